// The real main window under the offscreen platform, reading the run history that a separate,
// real headless server writes while it runs code in a real container engine
// (CSM_TEST_ENGINE=podman|docker).
#include "CallResult.h"
#include "MainWindow.h"
#include "McpStdioClient.h"
#include "models/RunsModel.h"
#include "pages/RunDetailPane.h"
#include "pages/RunsPage.h"
#include "TestEngine.h"

#include <QComboBox>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace callresult;
using csm::MainWindow;
using csm::RunsModel;

namespace {

QString cell(const QAbstractItemModel& model, int row, int column)
{
    return model.index(row, column).data().toString();
}

} // namespace

class tst_MainWindow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        m_server = std::make_unique<McpStdioClient>();
        QVERIFY(m_server->start({QStringLiteral("--engine"), TestEngine::name(),
                                 QStringLiteral("--data-dir"), m_data.path(),
                                 QStringLiteral("--pool"), QStringLiteral("0")},
                                QProcessEnvironment::systemEnvironment()));
        QVERIFY(!m_server->initialize().isEmpty());
        // The history file exists once the server has started.
        QTRY_VERIFY(QFile::exists(m_data.filePath(QStringLiteral("history.sqlite"))));
        m_window = std::make_unique<MainWindow>(m_data.path());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(m_window->runsPage());
    }

    void cleanupTestCase()
    {
        m_window.reset();
        if (m_server) {
            m_server->closeStdin();
            m_server->waitForExit(20'000);
        }
    }

    void aHeadlessServersRunAppearsLive()
    {
        csm::RunsPage& page = *m_window->runsPage();
        const QAbstractItemModel& model = page.model();
        QCOMPARE(model.rowCount(), 0);
        const QJsonObject result =
            m_server->callTool(QStringLiteral("run_python_code"),
                               code(QStringLiteral("print('hello from the sandbox')")));
        QCOMPARE(stdoutOf(result), QStringLiteral("hello from the sandbox\n"));
        // Within a refresh or two of its end, without reloading the page.
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, 0, RunsModel::Status), QStringLiteral("ok"), 5000);
        QCOMPARE(cell(model, 0, RunsModel::Tool), QStringLiteral("run_python_code"));
        QCOMPARE(cell(model, 0, RunsModel::Client), QStringLiteral("tst 1"));
        QCOMPARE(cell(model, 0, RunsModel::ExitCode), QStringLiteral("0"));
    }

    void selectingARunShowsItInFull()
    {
        csm::RunsPage& page = *m_window->runsPage();
        QTableView& table = page.table();
        const QRect firstRow = table.visualRect(table.model()->index(0, RunsModel::Tool));
        QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, firstRow.center());
        QTRY_VERIFY(page.detail().shownRunId() > 0);
        QCOMPARE(page.detail().codeText(), QStringLiteral("print('hello from the sandbox')"));
        QCOMPARE(page.detail().stdoutText(), QStringLiteral("hello from the sandbox\n"));
        QVERIFY2(page.detail().summaryText().contains(QLatin1String("ok")),
                 qPrintable(page.detail().summaryText()));
    }

    void filters()
    {
        csm::RunsPage& page = *m_window->runsPage();
        const QAbstractItemModel& model = page.model();
        const QJsonObject failing = m_server->callTool(QStringLiteral("run_python_code"),
                                                       code(QStringLiteral("raise SystemExit(4)")));
        QVERIFY(isError(failing));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 5000);

        // Typed text filters on code and output.
        page.textFilter().setFocus();
        QTest::keyClicks(&page.textFilter(), QStringLiteral("hello from"));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(cell(model, 0, RunsModel::Status), QStringLiteral("ok"));
        page.textFilter().clear();
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);

        // The status filter.
        QComboBox& status = page.statusFilter();
        status.setCurrentIndex(status.findText(QStringLiteral("error")));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 3000);
        QCOMPARE(cell(model, 0, RunsModel::ExitCode), QStringLiteral("4"));
        status.setCurrentIndex(0);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 3000);
    }

private:
    QTemporaryDir m_data;
    std::unique_ptr<McpStdioClient> m_server;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(tst_MainWindow)
#include "tst_MainWindow.moc"
