// The Files tab of the real main window under the offscreen platform, over a real SQLite history
// and real files in its RunFilesStore folder, as a server leaves them: the run is marked in the
// Runs table, its PNG is shown as a thumbnail that opens full size, and its CSV can be saved.
#include "core/RunFilesStore.h"
#include "FindNamed.h"
#include "history/HistoryStore.h"
#include "RunFilesTab.h"
#include "ServerCli.h"
#include "ui/MainWindow.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/ImagePreview.h"
#include "ui/widgets/ImageViewerDialog.h"

#include <QDesktopServices>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScopeGuard>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <memory>

using csm::RunFileRecord;
using csm::RunsModel;

namespace {

const QByteArray kCsv = QByteArrayLiteral("x,y\n1,2\n3,4\n");

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

// Stands in for the desktop's handler of file: URLs (QDesktopServices::setUrlHandler).
class OpenedUrls final : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> urls;

public Q_SLOTS:
    void open(const QUrl& url) { urls.append(url); }
};

class tst_RunFilesTab final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        // A run as a server records it: its files in its folder, their records in the history.
        auto opened = csm::HistoryStore::open(m_data.filePath(QStringLiteral("history.sqlite")));
        QVERIFY2(opened, qPrintable(opened.error()));
        std::unique_ptr<csm::HistoryStore> store = *std::move(opened);
        const csm::RunFilesStore files(store->filesRoot());
        const auto key = files.reserve();
        QVERIFY(key);
        QVERIFY(QDir().mkpath(files.folder(*key) + QStringLiteral("/out")));
        const QString out = files.folder(*key) + QStringLiteral("/out/");
        QImage chart(400, 300, QImage::Format_RGB32);
        chart.fill(Qt::white);
        {
            QPainter painter(&chart);
            painter.fillRect(QRect(50, 100, 60, 200), Qt::blue);
        }
        QVERIFY(chart.save(out + QStringLiteral("chart.png"), "PNG"));
        QVERIFY(writeFile(out + QStringLiteral("table.csv"), kCsv));
        m_pngPath = out + QStringLiteral("chart.png");
        m_csvPath = out + QStringLiteral("table.csv");
        // Text, but a script by its name: the desktop would run it.
        m_shPath = out + QStringLiteral("run.sh");
        QVERIFY(writeFile(m_shPath, "#!/bin/sh\necho from the sandbox\n"));

        csm::RunRecord run;
        run.tool = QStringLiteral("run_python_code");
        run.language = QStringLiteral("python");
        run.code = QStringLiteral("import matplotlib");
        run.filesKey = *key;
        const auto id = store->ledger().recordStart(run);
        QVERIFY(id);
        csm::RunRecord end;
        end.status = csm::RunStatus::Ok;
        end.exitCode = 0;
        end.files = {
            {RunFileRecord::Direction::Output,
             QStringLiteral("chart.png"),
             QFileInfo(m_pngPath).size(),
             QStringLiteral("image/png"),
             m_pngPath,
             {}},
            {RunFileRecord::Direction::Output,
             QStringLiteral("table.csv"),
             kCsv.size(),
             QStringLiteral("text/csv"),
             m_csvPath,
             {}},
            {RunFileRecord::Direction::Output,
             QStringLiteral("escape"),
             0,
             {},
             {},
             QStringLiteral("a symbolic link: not followed")},
            {RunFileRecord::Direction::Output,
             QStringLiteral("run.sh"),
             QFileInfo(m_shPath).size(),
             QStringLiteral("text/plain"),
             m_shPath,
             {}},
        };
        QVERIFY(store->ledger().recordEnd(*id, end));
        m_runId = *id;
        store.reset();

        // No first-run setup dialog over the window (it would take the clicks).
        csm::DesktopSettings desktop;
        desktop.setupDone = true;
        QVERIFY(desktop.save(m_data.path()));
        m_window = std::make_unique<csm::MainWindow>(m_data.path());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    void theRunIsMarkedInTheTable()
    {
        auto& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        const auto& model = findNamed<RunsModel>(page, "model");
        QTRY_COMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RunsModel::Files).data().toString(), QStringLiteral("3"));
    }

    void theFilesTabShowsTheImageAndListsTheFiles()
    {
        auto& page = findNamed<csm::RunsPage>(*m_window, "runsPage");
        auto& table = findNamed<QTableView>(page, "table");
        const QRect row = table.visualRect(table.model()->index(0, RunsModel::Language));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, row.center());
        QTRY_COMPARE(findNamed<csm::RunDetailPane>(page, "detail").shownRunId(), m_runId);

        const QList<QToolButton*> thumbnails = filesTabThumbnails(*m_window);
        QCOMPARE(thumbnails.size(), 1);
        const QPixmap thumbnail = thumbnailPixmap(*thumbnails.constFirst());
        QVERIFY(!thumbnail.isNull());
        QCOMPARE(thumbnail.size(), QSize(160, 120)); // 400x300 within 160x160
        // The run's one image is in the preview: no strip of one thumbnail below it.
        QVERIFY(!thumbnails.constFirst()->isVisible());
        QCOMPARE(findNamed<QTabWidget>(*m_window, "detailTabs")
                     .tabText(findNamed<QTabWidget>(*m_window, "detailTabs").currentIndex()),
                 QStringLiteral("Files (4)"));

        // The chart at the pane's size, not a thumbnail's: fitted, then zoomed and fitted again.
        // Wide enough, the pane is beside the list, the window's height.
        m_window->resize(1920, 1080);
        auto& preview = findNamed<csm::ImagePreview>(*m_window, "imagePreview");
        QVERIFY(preview.isVisible());
        QCOMPARE(findNamed<QLabel>(preview, "previewName").text(),
                 QStringLiteral("chart.png (400 × 300)"));
        const auto shownSize = [&preview] {
            return findNamed<QLabel>(preview, "previewImage").pixmap().size();
        };
        QTRY_VERIFY2(shownSize().width() > 160, qPrintable(QString::number(shownSize().width())));
        QVERIFY(shownSize().width() <= 800);
        QVERIFY(preview.isFitted());
        QTest::mouseClick(&findNamed<QPushButton>(preview, "previewActualSize"), Qt::LeftButton);
        QCOMPARE(shownSize(), QSize(400, 300));
        QTest::mouseClick(&findNamed<QPushButton>(preview, "previewZoomIn"), Qt::LeftButton);
        QCOMPARE(shownSize(), QSize(500, 375));
        QVERIFY(!preview.isFitted());
        QTest::mouseClick(&findNamed<QPushButton>(preview, "previewFit"), Qt::LeftButton);
        QVERIFY(preview.isFitted());

        // Full size, in a dialog of its own, with a double-click.
        QWidget* viewport = findNamed<QLabel>(preview, "previewImage").parentWidget();
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, viewport->rect().center());
        csm::ImageViewerDialog* viewer = nullptr;
        QTRY_VERIFY((viewer = findOptional<csm::ImageViewerDialog>(*m_window, "imageViewer")));
        QCOMPARE(findNamed<QLabel>(*viewer, "image").pixmap().size(), QSize(400, 300));
        viewer->close();

        // Save from the preview asks where, for the chart.
        QTest::mouseClick(&findNamed<QPushButton>(preview, "previewSave"), Qt::LeftButton);
        QFileDialog* where = nullptr;
        QTRY_VERIFY((where = findOptional<QFileDialog>(*m_window, "saveFileDialog")));
        QVERIFY2(where->windowTitle().contains(QLatin1String("chart.png")),
                 qPrintable(where->windowTitle()));
        where->reject();

        // Every file is listed; the skipped one with its reason.
        auto& list = findNamed<QTreeWidget>(*m_window, "fileList");
        QCOMPARE(list.topLevelItemCount(), 4);
        QCOMPARE(list.topLevelItem(1)->text(0), QStringLiteral("table.csv"));
        QCOMPARE(list.topLevelItem(2)->text(0), QStringLiteral("escape"));
        QVERIFY(list.topLevelItem(2)->text(4).contains(QLatin1String("a symbolic link")));
    }

    void aListedFileCanBeOpenedOrSaved()
    {
        auto& list = findNamed<QTreeWidget>(*m_window, "fileList");
        auto& open = findNamed<QPushButton>(*m_window, "openFile");
        auto& saveAs = findNamed<QPushButton>(*m_window, "saveFileAs");
        list.setCurrentItem(list.topLevelItem(2)); // skipped: nothing to open
        QVERIFY(!open.isEnabled());
        QVERIFY(!saveAs.isEnabled());
        list.setCurrentItem(list.topLevelItem(1));
        QVERIFY(open.isEnabled());
        QVERIFY(saveAs.isEnabled());

        QTemporaryDir target;
        QVERIFY(target.isValid());
        const QString saved = target.filePath(QStringLiteral("copy.csv"));
        QTest::mouseClick(&saveAs, Qt::LeftButton);
        QFileDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = findOptional<QFileDialog>(*m_window, "saveFileDialog")));
        dialog->selectFile(saved);
        static_cast<QDialog*>(dialog)->accept(); // QFileDialog::accept, as its Save button does
        QTRY_COMPARE(readFile(saved), kCsv);
        QVERIFY(
            findNamed<QLabel>(*m_window, "fileMessage").text().startsWith(QLatin1String("Saved")));
        // The kept copy is untouched.
        QCOMPARE(readFile(m_csvPath), kCsv);
    }

    // A file the desktop would run by its name (a script, a launcher, a page) is opened only
    // once the person says so: it was made by a sandboxed program. A chart or a table opens at
    // once. (What the desktop is handed is caught here, not opened.)
    void aFileThatCouldRunAsksBeforeItOpens()
    {
        OpenedUrls opened;
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &opened, "open");
        const auto restore =
            qScopeGuard([] { QDesktopServices::unsetUrlHandler(QStringLiteral("file")); });
        auto& list = findNamed<QTreeWidget>(*m_window, "fileList");
        auto& open = findNamed<QPushButton>(*m_window, "openFile");

        list.setCurrentItem(list.topLevelItem(1)); // table.csv
        QTest::mouseClick(&open, Qt::LeftButton);
        QCOMPARE(opened.urls, QList<QUrl>{QUrl::fromLocalFile(m_csvPath)});
        QVERIFY(!findOptional<QMessageBox>(*m_window, "confirmOpenDialog"));

        list.setCurrentItem(list.topLevelItem(3)); // run.sh
        for (const QMessageBox::StandardButton answer : {QMessageBox::Cancel, QMessageBox::Open}) {
            QTest::mouseClick(&open, Qt::LeftButton);
            QMessageBox* confirm = nullptr;
            QTRY_VERIFY((confirm = findOptional<QMessageBox>(*m_window, "confirmOpenDialog")));
            QVERIFY2(confirm->text().contains(QLatin1String("run.sh")) &&
                         confirm->text().contains(QLatin1String("sandboxed program")),
                     qPrintable(confirm->text()));
            QCOMPARE(confirm->defaultButton(), confirm->button(QMessageBox::Cancel));
            QCOMPARE(opened.urls.size(), 1); // nothing handed over while it asks
            confirm->button(answer)->click();
            QTRY_VERIFY(!findOptional<QMessageBox>(*m_window, "confirmOpenDialog"));
        }
        QCOMPARE(opened.urls,
                 (QList<QUrl>{QUrl::fromLocalFile(m_csvPath), QUrl::fromLocalFile(m_shPath)}));
    }

    // The desktop app's export and the command line's export and show list the files alike.
    void exportsListTheFiles()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const QString jsonPath = out.filePath(QStringLiteral("runs.json"));
        QVERIFY(findNamed<csm::RunsPage>(*m_window, "runsPage").exportRuns({m_runId}, jsonPath));
        checkFiles(QJsonDocument::fromJson(readFile(jsonPath)).array().at(0).toObject());

        const QStringList dataDir{QStringLiteral("--data-dir"), m_data.path()};
        const servercli::Result exported =
            servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("export"),
                                       QStringLiteral("--format"), QStringLiteral("json")} +
                           dataDir);
        QCOMPARE(exported.exitCode, 0);
        checkFiles(QJsonDocument::fromJson(exported.out).array().at(0).toObject());
        const servercli::Result shown =
            servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("show"),
                                       QString::number(m_runId), QStringLiteral("--json")} +
                           dataDir);
        QCOMPARE(shown.exitCode, 0);
        checkFiles(QJsonDocument::fromJson(shown.out).object());
    }

    void aFileGoneFromTheStoreIsSaidSo()
    {
        auto& view = findNamed<csm::RunFilesView>(*m_window, "files");
        QTemporaryDir target;
        QVERIFY(QFile::remove(m_csvPath));
        QVERIFY(!view.saveFileAs(1, target.filePath(QStringLiteral("x.csv"))));
        QVERIFY(findNamed<QLabel>(*m_window, "fileMessage")
                    .text()
                    .contains(QLatin1String("not kept any more")));
        QVERIFY(!QFile::exists(target.filePath(QStringLiteral("x.csv"))));
    }

private:
    void checkFiles(const QJsonObject& run)
    {
        QCOMPARE(run.value(QLatin1String("id")).toInteger(), m_runId);
        QVERIFY2(run.value(QLatin1String("output_file_count")).toInt() == 3,
                 QJsonDocument(run).toJson().constData());
        const QJsonArray files = run.value(QLatin1String("files")).toArray();
        QCOMPARE(files.size(), 4);
        const QJsonObject png = files.at(0).toObject();
        QCOMPARE(png.value(QLatin1String("path")).toString(), QStringLiteral("chart.png"));
        QCOMPARE(png.value(QLatin1String("direction")).toString(), QStringLiteral("out"));
        QCOMPARE(png.value(QLatin1String("size_bytes")).toInteger(), QFileInfo(m_pngPath).size());
        QCOMPARE(png.value(QLatin1String("mime_type")).toString(), QStringLiteral("image/png"));
        QCOMPARE(png.value(QLatin1String("stored_path")).toString(), m_pngPath);
        QCOMPARE(png.value(QLatin1String("skip_reason")).toString(), QString());
        QCOMPARE(files.at(2).toObject().value(QLatin1String("skip_reason")).toString(),
                 QStringLiteral("a symbolic link: not followed"));
    }

    QTemporaryDir m_data;
    std::unique_ptr<csm::MainWindow> m_window;
    QString m_pngPath;
    QString m_csvPath;
    QString m_shPath;
    qint64 m_runId = 0;
};

QTEST_MAIN(tst_RunFilesTab)
#include "tst_RunFilesTab.moc"
