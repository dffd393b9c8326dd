#include "ui/pages/ImagesPage.h"

#include "core/FileContentWatcher.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/RuntimeFactory.h"
#include "server/ServerSettings.h"
#include "ui/ImageOperations.h"
#include "ui/models/ImagesModel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <unistd.h>

namespace csm {

namespace {
constexpr int kLogLines = 10'000;
} // namespace

ImagesPage::ImagesPage(const QString& dataDir, ImageOperations& operations, QWidget* parent)
    : QWidget(parent)
    , m_dataDir(dataDir)
    , m_operations(operations)
    , m_settingsWatcher(new FileContentWatcher(ServerSettings::filePath(dataDir), this))
    , m_model(new ImagesModel(this))
    , m_defaults(new QLabel(this))
    , m_status(new QLabel(this))
    , m_table(new QTableView(this))
    , m_buildPython(new QPushButton(tr("Build Python"), this))
    , m_buildJs(new QPushButton(tr("Build JavaScript"), this))
    , m_method(new QComboBox(this))
    , m_force(new QCheckBox(tr("Rebuild if present"), this))
    , m_pull(new QPushButton(tr("Pull…"), this))
    , m_remove(new QPushButton(tr("Remove"), this))
    , m_test(new QPushButton(tr("Test"), this))
    , m_setDefault(new QToolButton(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_refreshButton(new QPushButton(tr("Refresh"), this))
    , m_log(new QPlainTextEdit(this))
{
    using BuildMethod = ImageOperations::BuildMethod;
    m_method->addItem(tr("Offline builder (Debian packages)"), int(BuildMethod::OfflineBuilder));
    m_method->addItem(tr("Dockerfile (needs a registry)"), int(BuildMethod::Dockerfile));
    m_method->setToolTip(tr("The offline builder needs only the Debian archive (and root for "
                            "debootstrap, unless the root filesystem is cached); the "
                            "Dockerfiles need Docker Hub and PyPI."));
    m_force->setToolTip(tr("Without this, an image the engine has is left alone and a removed "
                           "one is imported again from the builder's cache."));

    m_setDefault->setText(tr("Set as default for"));
    m_setDefault->setPopupMode(QToolButton::InstantPopup);
    auto* defaultMenu = new QMenu(m_setDefault);
    m_setDefaultPython = defaultMenu->addAction(LanguageTraits::displayName(Language::Python));
    m_setDefaultJs = defaultMenu->addAction(LanguageTraits::displayName(Language::JavaScript));
    m_setDefault->setMenu(defaultMenu);

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ImagesModel::Image, QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);

    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kLogLines);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("What the engine says about builds, pulls and tests shows here."));
    m_defaults->setWordWrap(true);
    m_defaults->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buildRow = new QHBoxLayout;
    buildRow->addWidget(m_buildPython);
    buildRow->addWidget(m_buildJs);
    buildRow->addWidget(m_method);
    buildRow->addWidget(m_force);
    buildRow->addWidget(m_pull);
    buildRow->addStretch(1);
    buildRow->addWidget(m_refreshButton);
    auto* imageRow = new QHBoxLayout;
    imageRow->addWidget(m_test);
    imageRow->addWidget(m_setDefault);
    imageRow->addWidget(m_remove);
    imageRow->addStretch(1);
    imageRow->addWidget(m_cancel);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_defaults);
    topLayout->addLayout(buildRow);
    topLayout->addWidget(m_table, 1);
    topLayout->addLayout(imageRow);
    topLayout->addWidget(m_status);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    // The first-run setup builds with the same choices.
    connect(m_method, &QComboBox::currentIndexChanged, this, [this] {
        m_operations.setBuildMethod(ImageOperations::BuildMethod(m_method->currentData().toInt()));
    });
    connect(m_force, &QCheckBox::toggled, &m_operations, &ImageOperations::setRebuild);
    connect(m_buildPython, &QPushButton::clicked, &m_operations,
            [this] { m_operations.buildDefaultImage(Language::Python); });
    connect(m_buildJs, &QPushButton::clicked, &m_operations,
            [this] { m_operations.buildDefaultImage(Language::JavaScript); });
    connect(m_pull, &QPushButton::clicked, this, [this] {
        // Window-modal and open(): the event loop keeps running, and a test can fill it in.
        auto* dialog = new QInputDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setWindowTitle(tr("Pull an image"));
        dialog->setLabelText(tr("Image to pull from its registry (e.g. python:3.12-slim):"));
        connect(dialog, &QInputDialog::textValueSelected, this, [this](const QString& image) {
            if (!image.trimmed().isEmpty())
                m_operations.pull(image.trimmed());
        });
        dialog->setObjectName(QStringLiteral("pullDialog"));
        dialog->open();
    });
    connect(m_remove, &QPushButton::clicked, this, &ImagesPage::removeSelected);
    connect(m_test, &QPushButton::clicked, this, &ImagesPage::testSelected);
    connect(m_setDefaultPython, &QAction::triggered, this,
            [this] { setSelectedAsDefault(Language::Python); });
    connect(m_setDefaultJs, &QAction::triggered, this,
            [this] { setSelectedAsDefault(Language::JavaScript); });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_operations.cancel();
        m_cancel->setEnabled(false); // once is enough: the command is stopping
    });
    connect(&m_operations, &ImageOperations::logged, this, &ImagesPage::appendLog);
    connect(&m_operations, &ImageOperations::busyChanged, this, &ImagesPage::updateButtons);
    connect(&m_operations, &ImageOperations::finished, this,
            [this](bool, bool imagesChanged) { onOperationFinished(imagesChanged); });
    connect(m_refreshButton, &QPushButton::clicked, this, &ImagesPage::refresh);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ImagesPage::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ImagesPage::updateButtons);

    m_listTimeout.setSingleShot(true);
    connect(&m_listTimeout, &QTimer::timeout, this, [this] {
        if (m_listing)
            m_listing->kill();
    });

    connect(m_settingsWatcher, &FileContentWatcher::contentChanged, this, [this] {
        reloadSettings();
        refresh();
    });
    m_settingsWatcher->start();
    reloadSettings();
    updateButtons();
    refresh();
    // Stable names: tests find the widgets by them (findChild).
    m_model->setObjectName(QStringLiteral("model"));
    m_table->setObjectName(QStringLiteral("table"));
    m_log->setObjectName(QStringLiteral("log"));
    m_status->setObjectName(QStringLiteral("status"));
    m_defaults->setObjectName(QStringLiteral("defaultsSummary"));
    m_buildPython->setObjectName(QStringLiteral("buildPython"));
    m_buildJs->setObjectName(QStringLiteral("buildJavaScript"));
    m_method->setObjectName(QStringLiteral("buildMethod"));
    m_force->setObjectName(QStringLiteral("forceRebuild"));
    m_pull->setObjectName(QStringLiteral("pullButton"));
    m_remove->setObjectName(QStringLiteral("removeButton"));
    m_test->setObjectName(QStringLiteral("testButton"));
    m_setDefault->setObjectName(QStringLiteral("setDefaultButton"));
    m_setDefaultPython->setObjectName(QStringLiteral("setDefaultPython"));
    m_setDefaultJs->setObjectName(QStringLiteral("setDefaultJavaScript"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_refreshButton->setObjectName(QStringLiteral("refreshButton"));
}

ImagesPage::~ImagesPage()
{
    if (m_listing) {
        // Killed, a listing is reaped in milliseconds; its destructor would wait with a warning.
        m_listing->disconnect(this);
        m_listing->kill();
        m_listing->waitForFinished(1000);
    }
}

void ImagesPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

QString ImagesPage::engineName() const
{
    return m_runtime->name();
}

void ImagesPage::reloadSettings()
{
    const ServerSettings settings = ServerSettings::load(m_dataDir);
    if (!m_runtime || settings.engine != m_engineSetting ||
        settings.engineHost != m_runtime->endpoint()) {
        m_engineSetting = settings.engine;
        m_runtime = RuntimeFactory::create(settings.engine, settings.engineHost);
        if (!m_runtime) {
            appendLog(tr("The settings name an unknown engine \"%1\"; using the one found here.")
                          .arg(settings.engine));
            m_runtime = RuntimeFactory::create({}, settings.engineHost);
        }
        m_operations.setRuntime(m_runtime);
    }
    for (Language language : {Language::Python, Language::JavaScript}) {
        const QString chosen = settings.image(language);
        m_model->setImageFor(language,
                             chosen.isEmpty() ? m_runtime->defaultImage(language) : chosen);
    }
    updateDefaults();
}

void ImagesPage::refresh()
{
    if (m_listing) {
        m_listAgain = true;
        return;
    }
    m_listing = m_runtime->newProcess(m_runtime->listImagesArguments(), this);
    connect(m_listing, &QProcess::finished, this, &ImagesPage::onListed);
    connect(m_listing, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onListed();
    });
    m_listing->start();
    m_listTimeout.start(kListTimeoutMs);
}

void ImagesPage::onListed()
{
    QProcess* listing = m_listing;
    m_listing = nullptr;
    m_listTimeout.stop();
    listing->disconnect(this);
    listing->deleteLater();
    if (listing->error() == QProcess::FailedToStart) {
        m_status->setText(tr("%1 not found: %2").arg(m_runtime->name(), listing->errorString()));
    } else if (listing->exitStatus() != QProcess::NormalExit || listing->exitCode() != 0) {
        const QString detail = QString::fromUtf8(listing->readAllStandardError()).trimmed();
        m_status->setText(tr("%1 cannot list its images: %2")
                              .arg(m_runtime->name(), detail.isEmpty() ? tr("no answer") : detail));
    } else {
        const QString selected = selectedImage();
        m_model->setImages(m_runtime->parseImageList(listing->readAllStandardOutput()));
        const int row = selected.isEmpty() ? -1 : m_model->rowOf(selected);
        if (row >= 0 && selectedImage() != selected)
            m_table->selectRow(row);
        m_status->setText(tr("Images in %1: %2").arg(m_runtime->name()).arg(m_model->rowCount()));
    }
    updateDefaults();
    if (m_listAgain) {
        m_listAgain = false;
        refresh();
    }
}

void ImagesPage::updateDefaults()
{
    QStringList lines;
    for (Language language : {Language::Python, Language::JavaScript}) {
        const QString image = m_model->imageFor(language);
        const bool present = m_model->rowOf(image) >= 0;
        lines << tr("%1 runs in %2%3")
                     .arg(LanguageTraits::displayName(language), image,
                          present ? QString() : tr(" (not in %1)").arg(m_runtime->name()));
    }
    m_defaults->setText(lines.join(QStringLiteral(" · ")));
}

void ImagesPage::updateButtons()
{
    const bool idle = !m_operations.isBusy();
    const bool selected = idle && !selectedImage().isEmpty();
    m_buildPython->setEnabled(idle);
    m_buildJs->setEnabled(idle);
    m_pull->setEnabled(idle);
    m_remove->setEnabled(selected);
    m_test->setEnabled(selected);
    m_setDefault->setEnabled(selected &&
                             !m_model->image(m_table->currentIndex().row()).name.isEmpty());
    m_cancel->setEnabled(!idle);
}

QString ImagesPage::selectedImage() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : m_model->image(rows.first().row()).reference();
}

Language ImagesPage::languageForTest(const QString& image) const
{
    const QList<Language> languages = m_model->languagesOf(m_model->rowOf(image));
    if (!languages.isEmpty())
        return languages.first();
    // An image no language uses yet: its name is the best hint.
    const QString repository = image.section(QLatin1Char(':'), 0, 0).toLower();
    return repository.contains(QLatin1String("node")) || repository.contains(QLatin1String("js"))
               ? Language::JavaScript
               : Language::Python;
}

void ImagesPage::removeSelected()
{
    const QString image = selectedImage();
    if (image.isEmpty() || m_operations.isBusy())
        return;
    QString text = tr("Remove %1 from %2?").arg(image, m_runtime->name());
    const QList<Language> languages = m_model->languagesOf(m_model->rowOf(image));
    for (Language language : languages) {
        text += QLatin1Char('\n') + tr("%1 code runs in this image: it fails until the image is "
                                       "built or pulled again.")
                                        .arg(LanguageTraits::displayName(language));
    }
    auto* box = new QMessageBox(QMessageBox::Question, tr("Remove image"), text,
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this, image](int result) {
        if (result == QMessageBox::Yes)
            m_operations.remove(image);
    });
    box->setObjectName(QStringLiteral("removeConfirmation"));
    box->open();
}

void ImagesPage::testSelected()
{
    const QString image = selectedImage();
    if (!image.isEmpty())
        m_operations.test(image, languageForTest(image));
}

void ImagesPage::setSelectedAsDefault(Language language)
{
    const QString image = m_model->image(m_table->currentIndex().row()).name;
    if (image.isEmpty())
        return;
    ServerSettings settings = ServerSettings::load(m_dataDir);
    // The built default is stored as "no choice", so it keeps following the engine's naming.
    const bool builtDefault = ImagesModel::sameImage(image, m_runtime->defaultImage(language));
    settings.setImage(language, builtDefault ? QString() : image);
    if (const Expected<void> saved = settings.save(m_dataDir); !saved) {
        appendLog(tr("The settings cannot be saved: %1").arg(saved.error()));
        return;
    }
    appendLog(tr("%1 code now runs in %2 (servers pick this up as they read the settings).")
                  .arg(LanguageTraits::displayName(language), image));
    reloadSettings();
    Q_EMIT settingsChanged();
}

void ImagesPage::appendLog(const QString& text)
{
    m_log->appendPlainText(text);
    m_log->verticalScrollBar()->setValue(m_log->verticalScrollBar()->maximum());
}

void ImagesPage::onOperationFinished(bool imagesChanged)
{
    if (!imagesChanged)
        return;
    refresh();
    Q_EMIT this->imagesChanged();
}

} // namespace csm
