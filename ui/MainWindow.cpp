#include "MainWindow.h"

#include "history/HistoryLocation.h"
#include "history/HistoryStore.h"
#include "pages/RunsPage.h"

#include <QDir>
#include <QLabel>
#include <QTabWidget>

namespace csm {

MainWindow::MainWindow(const QString& dataDir, QWidget* parent)
    : QMainWindow(parent)
    , m_pages(new QTabWidget(this))
{
    setWindowTitle(tr("Code Sandbox"));
    QString error;
    m_history = HistoryStore::open(HistoryLocation::historyPath(dataDir), &error);
    if (m_history) {
        m_runs = new RunsPage(*m_history, m_pages);
        m_pages->addTab(m_runs, tr("Runs"));
    } else {
        auto* problem = new QLabel(tr("The run history in %1 cannot be opened: %2")
                                       .arg(QDir::toNativeSeparators(dataDir), error),
                                   m_pages);
        problem->setWordWrap(true);
        problem->setAlignment(Qt::AlignCenter);
        m_pages->addTab(problem, tr("Runs"));
    }
    setCentralWidget(m_pages);
    resize(1280, 800);
}

MainWindow::~MainWindow()
{
    // The pages read the history: they go before it.
    delete m_pages;
}

} // namespace csm
