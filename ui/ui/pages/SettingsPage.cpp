#include "ui/pages/SettingsPage.h"

#include "core/ByteSize.h"
#include "core/FileContentWatcher.h"
#include "runtime/SharedFolderText.h"
#include "sandbox/RunQueue.h"
#include "server/ServerSettingsForm.h"
#include "server/ServerSettingsSchema.h"
#include "ui/widgets/SettingFieldEditor.h"

#include <QDir>
#include <QFormLayout>
#include <QGroupBox>
#include <QHash>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSpinBox>
#include <QVBoxLayout>

namespace csm {

namespace {

// What an error calls a value of `field`: its name, or its label's words.
QString nameOf(const SettingFormField& field)
{
    if (!field.name.isEmpty())
        return field.name;
    QString label = field.label;
    label.remove(QLatin1Char('&'));
    if (label.endsWith(QLatin1Char(':')))
        label.chop(1);
    return label;
}

} // namespace

SettingsPage::SettingsPage(const QString& dataDir, QWidget* parent)
    : QWidget(parent)
    , m_dataDir(dataDir)
    , m_watcher(new FileContentWatcher(ServerSettings::filePath(dataDir), this))
{
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(buildForm());

    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("problemsLabel"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setStyleSheet(QStringLiteral("color: #8a5300;"));
    m_problems->hide();
    m_changedElsewhere = new QLabel(tr("The settings file was changed by another program. Apply "
                                       "saves your edits over it and keeps its other values; "
                                       "Revert shows it as it is now."),
                                    this);
    m_changedElsewhere->setObjectName(QStringLiteral("changedElsewhereLabel"));
    m_changedElsewhere->setWordWrap(true);
    m_changedElsewhere->hide();
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("errorLabel"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_error->hide();

    m_apply = new QPushButton(tr("A&pply"), this);
    m_apply->setObjectName(QStringLiteral("applyButton"));
    m_apply->setToolTip(tr("Save the settings to %1")
                            .arg(QDir::toNativeSeparators(ServerSettings::filePath(dataDir))));
    m_revert = new QPushButton(tr("Re&vert"), this);
    m_revert->setObjectName(QStringLiteral("revertButton"));
    m_revert->setToolTip(tr("Discard the edits and show the saved settings"));
    m_defaults = new QPushButton(tr("Re&store defaults"), this);
    m_defaults->setObjectName(QStringLiteral("restoreDefaultsButton"));
    m_defaults->setToolTip(tr("Put the built-in defaults in the form (saved on Apply)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_revert);
    buttons->addStretch();
    buttons->addWidget(m_defaults);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_problems);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_changedElsewhere);
    layout->addWidget(m_error);
    layout->addLayout(buttons);
    layout->addWidget(
        SettingFieldEditor::note(tr("Applies to the next run of every Code Sandbox server; a new "
                                    "engine applies when a server starts."),
                                 this));

    for (const Field& field : m_fields)
        connect(field.editor, &SettingFieldEditor::changed, this, &SettingsPage::updateState);
    // What "automatic" means follows the memory limit.
    if (QSpinBox* sandboxes = editor(QStringLiteral("max-running"))->spinBox()) {
        SettingFieldEditor* memory = editor(QStringLiteral("memory"));
        const auto showAutomatic = [sandboxes, memory] {
            const qint64 bytes = ByteSize::parse(memory->text()).value_or(0);
            sandboxes->setSpecialValueText(
                tr("Automatic (%1)").arg(RunQueue::defaultMaxRunning(bytes)));
            sandboxes->updateGeometry(); // as wide as its new text
        };
        connect(memory, &SettingFieldEditor::changed, sandboxes, showAutomatic);
        showAutomatic();
    }
    connect(m_apply, &QPushButton::clicked, this, &SettingsPage::apply);
    connect(m_revert, &QPushButton::clicked, this, &SettingsPage::revert);
    connect(m_defaults, &QPushButton::clicked, this, &SettingsPage::restoreDefaults);
    connect(m_watcher, &FileContentWatcher::contentChanged, this, &SettingsPage::onFileChanged);

    m_watcher->start();
    reload();
}

QWidget* SettingsPage::buildForm()
{
    auto* form = new QWidget;
    for (const SettingFormField& field : ServerSettingsForm::fields()) {
        const ServerSetting* setting = ServerSettingsSchema::find(field.key);
        Q_ASSERT(setting); // a field names a setting of the schema
        if (setting)
            addField(field, form, Field{nullptr, setting, nullptr, {}});
    }
    for (const DesktopSettingsForm::Setting& setting : DesktopSettingsForm::settings())
        addField(setting.field, form, Field{nullptr, nullptr, &setting, {}});

    // What the page says beside a field, and which field depends on another.
    SettingFieldEditor* redact = editor(QStringLiteral("redact"));
    m_redactWarning = new QLabel(tr("Secret values that a program prints will reach the "
                                    "assistant as they are. The history and the logs stay "
                                    "redacted."),
                                 redact->widget()->parentWidget());
    m_redactWarning->setObjectName(QStringLiteral("redactWarning"));
    m_redactWarning->setWordWrap(true);
    m_redactWarning->setStyleSheet(QStringLiteral("color: #b3261e;"));
    qobject_cast<QFormLayout*>(redact->widget()->parentWidget()->layout())->addRow(m_redactWarning);

    qobject_cast<QVBoxLayout*>(form->layout())->addStretch();
    return form;
}

void SettingsPage::addField(const SettingFormField& field, QWidget* form, Field entry)
{
    // A group box per group, in the order they first come.
    auto* formLayout = qobject_cast<QVBoxLayout*>(form->layout());
    if (!formLayout)
        formLayout = new QVBoxLayout(form);
    QGroupBox* group = nullptr;
    for (QGroupBox* box : form->findChildren<QGroupBox*>(Qt::FindDirectChildrenOnly)) {
        if (box->title() == field.group)
            group = box;
    }
    if (!group) {
        group = new QGroupBox(field.group, form);
        auto* layout = new QFormLayout(group);
        layout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
        formLayout->addWidget(group);
    }
    entry.editor =
        new SettingFieldEditor(field, group, qobject_cast<QFormLayout*>(group->layout()));
    m_fields.push_back(entry);
}

SettingFieldEditor* SettingsPage::editor(const QString& key) const
{
    for (const Field& field : m_fields) {
        if (field.editor->field().key == key)
            return field.editor;
    }
    Q_ASSERT_X(false, "SettingsPage::editor", "no such field");
    return nullptr;
}

bool SettingsPage::hasChanges() const
{
    return std::any_of(m_fields.cbegin(), m_fields.cend(), [](const Field& field) {
        return field.editor->text() != field.shownAtLoad;
    });
}

bool SettingsPage::apply()
{
    // Over the file as it is now: another program may have changed what this form left alone.
    const Expected<ServerSettings> server = changedServer(ServerSettings::load(m_dataDir));
    const Expected<DesktopSettings> desktop = changedDesktop(DesktopSettings::load(m_dataDir));
    const QString invalid = !server ? server.error() : desktop.error();
    if (!invalid.isEmpty()) {
        m_saveError = tr("Not saved: %1").arg(invalid);
        updateState();
        return false;
    }
    Expected<void> saved = server->save(m_dataDir);
    if (saved)
        saved = desktop->save(m_dataDir);
    if (!saved) {
        m_saveError = tr("The settings cannot be saved: %1").arg(saved.error());
        updateState();
        return false;
    }
    reload();
    Q_EMIT applied();
    return true;
}

void SettingsPage::revert()
{
    reload();
}

void SettingsPage::restoreDefaults()
{
    // The images and the HTTP server have pages of their own: their values stay as they are.
    ServerSettings server;
    server.pythonImage = m_loadedServer.pythonImage;
    server.jsImage = m_loadedServer.jsImage;
    DesktopSettings desktop = m_loadedDesktop;
    const DesktopSettings defaults;
    desktop.approvalRequired = defaults.approvalRequired;
    desktop.approvalTimeoutSeconds = defaults.approvalTimeoutSeconds;
    desktop.notifyApprovals = defaults.notifyApprovals;
    desktop.notifyFailures = defaults.notifyFailures;
    // Shown, not loaded: what Apply compares against stays the file's.
    std::vector<QString> loaded;
    for (const Field& field : m_fields)
        loaded.push_back(field.shownAtLoad);
    fill(server, desktop);
    for (std::size_t i = 0; i < m_fields.size(); ++i)
        m_fields.at(i).shownAtLoad = loaded.at(i);
    m_saveError.clear();
    updateState();
}

void SettingsPage::reload()
{
    QStringList problems;
    m_loadedServer = ServerSettings::load(m_dataDir, &problems);
    m_loadedDesktop = DesktopSettings::load(m_dataDir);
    fill(m_loadedServer, m_loadedDesktop);
    if (problems.isEmpty()) {
        m_problems->clear();
        m_problems->hide();
    } else {
        m_problems->setText(tr("Some stored settings are not valid and were ignored; the form "
                               "shows what servers use instead:") +
                            QStringLiteral("\n• ") + problems.join(QStringLiteral("\n• ")));
        m_problems->show();
    }
    m_saveError.clear();
    m_changedElsewhere->hide();
    updateState();
}

void SettingsPage::fill(const ServerSettings& server, const DesktopSettings& desktop)
{
    m_filling = true;
    for (Field& field : m_fields) {
        field.editor->setText(field.server ? field.server->write(server)
                                           : field.desktop->write(desktop));
        // As the widget shows it: a value it can only show rounded is not an edit.
        field.shownAtLoad = field.editor->text();
    }
    m_filling = false;
}

Expected<ServerSettings> SettingsPage::changedServer(ServerSettings onto) const
{
    for (const Field& field : m_fields) {
        const QString text = field.editor->text();
        if (!field.server || text == field.shownAtLoad)
            continue;
        // A value the server would refuse is not saved: the server would ignore the whole file.
        if (const auto problem = field.server->read(text, onto))
            return Unexpected(
                tr("%1 is not valid: %2.").arg(nameOf(field.editor->field()), *problem));
    }
    if (const QString invalid = invalidTogether(onto); !invalid.isEmpty())
        return Unexpected(invalid);
    return onto;
}

Expected<DesktopSettings> SettingsPage::changedDesktop(DesktopSettings onto) const
{
    for (const Field& field : m_fields) {
        const QString text = field.editor->text();
        if (!field.desktop || text == field.shownAtLoad)
            continue;
        if (const auto problem = field.desktop->read(text, onto))
            return Unexpected(
                tr("%1 is not valid: %2.").arg(nameOf(field.editor->field()), *problem));
    }
    return onto;
}

QString SettingsPage::invalidTogether(const ServerSettings& settings)
{
    // A server refuses a stored default longer than the stored maximum, and would then ignore
    // the whole file.
    if (settings.defaultTimeoutSeconds > settings.maxTimeoutSeconds)
        return tr("the default timeout (%1 s) is longer than the maximum (%2 s).")
            .arg(settings.defaultTimeoutSeconds)
            .arg(settings.maxTimeoutSeconds);
    // A server would skip every share of a list it cannot read.
    QSet<QString> names;
    for (const SharedFolder& folder : settings.policy.sharedFolders) {
        if (names.contains(folder.name))
            return tr("two shared folders are named \"%1\".").arg(folder.name);
        names.insert(folder.name);
    }
    // A server refuses gVisor with the unfiltered bridge (it would give sandboxes no network).
    if (const QString conflict = settings.policy.conflict(); !conflict.isEmpty())
        return conflict;
    return {};
}

void SettingsPage::onFileChanged()
{
    // Edits in progress are the person's: they are never replaced behind their back.
    if (hasChanges()) {
        m_changedElsewhere->show();
        return;
    }
    reload();
}

void SettingsPage::updateState()
{
    if (m_filling)
        return;
    const bool changed = hasChanges();
    QString invalid;
    if (changed) {
        const Expected<ServerSettings> server = changedServer(m_loadedServer);
        const Expected<DesktopSettings> desktop = changedDesktop(m_loadedDesktop);
        invalid = !server ? server.error() : desktop.error();
        if (!invalid.isEmpty())
            invalid = tr("Cannot apply: %1").arg(invalid);
    }
    m_apply->setEnabled(changed && invalid.isEmpty());
    m_revert->setEnabled(changed);
    m_redactWarning->setVisible(!editor(QStringLiteral("redact"))->isChecked());
    editor(QStringLiteral("approval-timeout"))
        ->widget()
        ->setEnabled(editor(QStringLiteral("approval-required"))->isChecked());
    const QString error = invalid.isEmpty() ? m_saveError : invalid;
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    if (!changed)
        m_changedElsewhere->hide();
}

} // namespace csm
