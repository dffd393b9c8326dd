// code-sandbox-desktop: the desktop app. A thin composition root over the ui and engine
// libraries.
#include "core/Version.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QProcessEnvironment>

int main(int argc, char* argv[])
{
    using namespace csm;
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("code-sandbox-desktop"));
    QApplication::setApplicationDisplayName(QStringLiteral("Code Sandbox"));
    QApplication::setApplicationVersion(QString::fromLatin1(kVersion));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Watch what AI assistants run in Code Sandbox, live."));
    parser.addHelpOption();
    parser.addVersionOption();
    const HistoryOptions historyOptions;
    parser.addOption(historyOptions.dataDir());
    parser.process(app);

    MainWindow window(HistoryLocation::dataDir(parser.value(historyOptions.dataDir()),
                                               QProcessEnvironment::systemEnvironment()));
    window.show();
    return QApplication::exec();
}
