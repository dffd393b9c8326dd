// Takes the README's screenshots of code-sandbox-desktop: the real main window on an X server
// (scripts/screenshots runs it under Xvfb), over a data folder filled the way a user's is: runs
// made by a real headless server for an assistant (a failure, a chart, a session...), secrets
// set with the CLI, and the engine's real images; for the Activity page, a day of earlier runs
// written to the history as servers write them (a day of real calls is too long to make).
// Every page at 1280x800 in the desktop's light palette (PAGE.png), and the runs and Activity
// pages at 1024x700, 1280x800 and 1920x1080, light and dark (PAGE-WxH-light|dark.png). Not a
// test: it asserts nothing, it shows.
#include "CallResult.h"
#include "FindNamed.h"
#include "history/HistoryLocation.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "server/EmbeddedServer.h"
#include "server/ServerOptionsParser.h"
#include "ServerCli.h"
#include "ui/MainWindow.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"

#include <QApplication>
#include <QDir>
#include <QMessageBox>
#include <QPalette>
#include <QPushButton>
#include <QRandomGenerator>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include <algorithm>

namespace {

void fillHistory(const QString& dataDir)
{
    McpStdioClient assistant;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), dataDir);
    if (!assistant.start({QStringLiteral("--pool"), QStringLiteral("0")}, environment))
        qFatal("code-sandbox-mcp did not start");
    assistant.initialize(QStringLiteral("2025-11-25"),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-ai")},
                                     {QStringLiteral("version"), QStringLiteral("0.1.0")}});
    const auto python = [&](const QString& code, double timeout = 30) {
        assistant.callTool(QStringLiteral("run_python_code"), callresult::code(code, timeout));
    };
    python(QStringLiteral("import time\nprint('thinking...')\ntime.sleep(5)\n"), 1);
    python(QStringLiteral("values = [3, 1, 4, 1, 5]\nprint(sum(values) / len(values))\n"
                          "print(1 / 0)\n"));
    python(QStringLiteral("import matplotlib.pyplot as plt\n"
                          "months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun']\n"
                          "plt.plot(months, [120, 135, 128, 160, 172, 190], marker='o')\n"
                          "plt.title('Monthly sign-ups')\n"
                          "plt.show()\n"));
    python(QStringLiteral("block = bytearray(1024 ** 3)\n"));
    assistant.callTool(
        QStringLiteral("run_js_code"),
        callresult::code(QStringLiteral("const words = 'the quick brown fox jumps'.split(' ');\n"
                                        "console.log(words.map(w => w.length));\n")));
    // An analysis in a persistent session: load once, then explore cell by cell.
    const auto cell = [&](const QString& code) {
        QJsonObject arguments = callresult::code(code);
        arguments.insert(QStringLiteral("session"), QStringLiteral("sales"));
        assistant.callTool(QStringLiteral("run_python_code"), arguments);
    };
    cell(QStringLiteral("import pandas as pd\n\n"
                        "sales = pd.DataFrame({\n"
                        "    'region': ['north', 'south', 'north', 'east', 'south'],\n"
                        "    'amount': [120, 80, 95, 130, 60],\n"
                        "})\n"
                        "len(sales)\n"));
    cell(QStringLiteral("sales['amount'].sum()\n"));
    cell(QStringLiteral("# Total and average sale per region, largest first\n"
                        "summary = sales.groupby('region')['amount'].agg(['sum', 'mean'])\n"
                        "summary.sort_values('sum', ascending=False)\n"));
    assistant.closeStdin();
    assistant.waitForExit(20'000);
}

// The last 24 hours of three assistants, busier in working hours, mostly fine.
void fillEarlierDay(const QString& dataDir)
{
    auto opened = csm::HistoryStore::open(csm::HistoryLocation::historyPath(dataDir));
    if (!opened)
        qFatal("%s", qPrintable(opened.error()));
    const std::unique_ptr<csm::HistoryStore> store = *std::move(opened);
    QRandomGenerator random(19);
    const QDateTime now = QDateTime::currentDateTime();
    for (int hour = 24; hour >= 1; --hour) {
        const QDateTime start = now.addSecs(-hour * 3600);
        const int localHour = start.time().hour();
        const int calls =
            localHour >= 9 && localHour < 19 ? 6 + int(random.bounded(10)) : int(random.bounded(3));
        QList<qint64> offsets;
        for (int call = 0; call < calls; ++call)
            offsets << qint64(random.bounded(3600));
        std::sort(offsets.begin(), offsets.end()); // recorded in the order they started
        for (qint64 offset : std::as_const(offsets)) {
            csm::RunRecord run;
            const quint32 who = random.bounded(10);
            run.clientName = who < 5   ? QStringLiteral("claude-code")
                             : who < 8 ? QStringLiteral("codex-mcp-client")
                                       : QStringLiteral("gemini-cli-mcp-client");
            run.tool = QStringLiteral("run_python_code");
            run.language = QStringLiteral("python");
            run.code = QStringLiteral("print('earlier')");
            run.startedAt = start.addSecs(offset);
            const auto id = store->ledger().recordStart(run);
            if (!id)
                continue;
            csm::RunRecord end;
            const quint32 roll = random.bounded(100);
            end.status = roll < 82   ? csm::RunStatus::Ok
                         : roll < 93 ? csm::RunStatus::Error
                         : roll < 97 ? csm::RunStatus::Timeout
                         : roll < 99 ? csm::RunStatus::Cancelled
                                     : csm::RunStatus::Oom;
            end.exitCode = end.status == csm::RunStatus::Ok ? 0 : 1;
            end.durationMs =
                40 + random.bounded(end.status == csm::RunStatus::Timeout ? 30'000 : 900);
            end.endedAt = run.startedAt.addMSecs(end.durationMs);
            (void)store->ledger().recordEnd(*id, end);
        }
    }
}

// The window alone, at whatever size it has (the screen is as big as the biggest).
void grab(QWidget& window, const QString& path)
{
    QTest::qWait(700); // the page's refresh and layout
    window.grab().save(path);
    QTextStream(stdout) << path << "\n";
}

// A dark palette of the kind desktops give (Fusion draws it as the desktop would).
QPalette darkPalette()
{
    QPalette dark;
    const QColor window(0x2b, 0x2b, 0x2e);
    const QColor base(0x1e, 0x1e, 0x20);
    const QColor text(0xe6, 0xe6, 0xe6);
    dark.setColor(QPalette::Window, window);
    dark.setColor(QPalette::WindowText, text);
    dark.setColor(QPalette::Base, base);
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x29));
    dark.setColor(QPalette::Text, text);
    dark.setColor(QPalette::Button, window);
    dark.setColor(QPalette::ButtonText, text);
    dark.setColor(QPalette::ToolTipBase, base);
    dark.setColor(QPalette::ToolTipText, text);
    dark.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x94));
    dark.setColor(QPalette::Highlight, QColor(0x35, 0x84, 0xe4));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::Link, QColor(0x78, 0xae, 0xed));
    dark.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x84));
    dark.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x84));
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x84));
    return dark;
}

// Selects the newest run whose summary starts with `start`, so that its detail shows.
void selectRun(csm::RunsPage& runs, const QString& start)
{
    auto& table = findNamed<QTableView>(runs, "table");
    const QAbstractItemModel& shown = *table.model();
    for (int row = 0; row < shown.rowCount(); ++row) {
        if (shown.index(row, csm::RunsModel::Summary).data().toString().startsWith(start)) {
            table.selectRow(row);
            return;
        }
    }
    table.selectRow(0);
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationDisplayName(QStringLiteral("Code Sandbox"));
    if (argc < 2) {
        QTextStream(stderr) << "usage: take_screenshots OUTPUT_DIR\n";
        return 2;
    }
    const QDir out(QString::fromLocal8Bit(argv[1]));
    QTemporaryDir data;
    // The earlier day first: the real runs are the newest.
    fillEarlierDay(data.path());
    fillHistory(data.path());
    for (const auto& [name, value] : {std::pair{"OPENAI_API_KEY", "sk-example-not-real-0000"},
                                      std::pair{"GITHUB_TOKEN", "ghp_example_not_real_0000"}}) {
        servercli::run({QStringLiteral("secrets"), QStringLiteral("set"), QString::fromLatin1(name),
                        QStringLiteral("--pass-through"), QStringLiteral("--secrets-file"),
                        QStringLiteral("--data-dir"), data.path()},
                       value);
    }

    const auto parsed = csm::ServerOptionsParser::parse(
        {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), data.path(),
         QStringLiteral("--pool"), QStringLiteral("0")},
        QProcessEnvironment::systemEnvironment());
    csm::EmbeddedServer server(*parsed);
    server.start();
    csm::MainWindow window(data.path(), &server);
    window.setGeometry(0, 0, 1280, 800);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        qWarning("the window was not exposed");

    csm::RunsPage& runs = findNamed<csm::RunsPage>(window, "runsPage");
    if (!QTest::qWaitFor([&] { return findNamed<csm::RunsModel>(runs, "model").rowCount() >= 8; },
                         10'000))
        qWarning("fewer runs than made");
    selectRun(runs, QStringLiteral("ZeroDivisionError"));
    QTabWidget& pages = findNamed<QTabWidget>(window, "pages");
    for (int page = 0; page < pages.count(); ++page) {
        pages.setCurrentIndex(page);
        const QString name = pages.tabText(page).remove(QLatin1Char('&')).toLower();
        grab(window, out.filePath(name + QStringLiteral(".png")));
    }
    pages.setCurrentWidget(&runs);
    selectRun(runs, QStringLiteral("import matplotlib"));
    grab(window, out.filePath(QStringLiteral("runs-chart.png")));

    // The runs and Activity pages at three sizes, in a light and a dark palette.
    const QPalette light = QApplication::palette();
    for (const bool dark : {false, true}) {
        QApplication::setPalette(dark ? darkPalette() : light);
        for (const QSize size : {QSize(1024, 700), QSize(1280, 800), QSize(1920, 1080)}) {
            window.setGeometry(0, 0, size.width(), size.height());
            const QString suffix =
                QStringLiteral("-%1x%2-%3.png")
                    .arg(size.width())
                    .arg(size.height())
                    .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"));
            pages.setCurrentWidget(&runs);
            selectRun(runs, QStringLiteral("import matplotlib"));
            grab(window, out.filePath(QStringLiteral("runs") + suffix));
            selectRun(runs, QStringLiteral("ZeroDivisionError"));
            grab(window, out.filePath(QStringLiteral("runs-failure") + suffix));
            pages.setCurrentWidget(&findNamed<QWidget>(window, "activityPage"));
            grab(window, out.filePath(QStringLiteral("activity") + suffix));
        }
    }
    QApplication::setPalette(light);
    window.setGeometry(0, 0, 1280, 800);

    // A call as it runs: its output so far, the time it has taken, and Stop.
    McpStdioClient assistant;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), data.path());
    if (assistant.start({QStringLiteral("--pool"), QStringLiteral("0")}, environment)) {
        assistant.initialize(QStringLiteral("2025-11-25"),
                             QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
                                         {QStringLiteral("version"), QStringLiteral("2.1.0")}});
        const int call = assistant.sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              callresult::code(
                  QStringLiteral("import time\n"
                                 "for epoch in range(1, 41):\n"
                                 "    loss = 2.0 / epoch\n"
                                 "    print(f'epoch {epoch:2d}/40  loss {loss:.4f}', flush=True)\n"
                                 "    time.sleep(0.25)\n"))}});
        pages.setCurrentWidget(&runs);
        auto& model = findNamed<csm::RunsModel>(runs, "model");
        if (QTest::qWaitFor(
                [&] {
                    return model.index(0, csm::RunsModel::Status).data().toString() ==
                           QLatin1String("Running");
                },
                30'000)) {
            findNamed<QTableView>(runs, "table").selectRow(0);
            QTest::qWait(3000);
            grab(window, out.filePath(QStringLiteral("runs-live.png")));
            QTest::mouseClick(&findNamed<QPushButton>(runs, "stopButton"), Qt::LeftButton);
            assistant.waitForResponse(call, 15'000);
        }
        assistant.closeStdin();
        assistant.waitForExit(20'000);
    }
    window.shutDownAndQuit();
    return QApplication::exec();
}
