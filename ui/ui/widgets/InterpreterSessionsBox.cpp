#include "ui/widgets/InterpreterSessionsBox.h"

#include "ui/models/InterpreterSessionsModel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace csm {

InterpreterSessionsBox::InterpreterSessionsBox(QWidget* parent)
    : QGroupBox(tr("Interpreter sessions"), parent)
    , m_model(new InterpreterSessionsModel(this))
    , m_view(new QTableView(this))
    , m_empty(new QLabel(this))
    , m_end(new QPushButton(tr("&End session"), this))
    , m_showCells(new QPushButton(tr("Show &cells"), this))
{
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_empty->setText(tr("None live. A session starts when an assistant passes \"session\" to a "
                        "run tool; its variables and imports live on between calls."));
    m_empty->setWordWrap(true);
    m_end->setToolTip(tr("Stops the session's interpreter and removes its container: its "
                         "variables are lost, and its client is told so on its next call."));
    m_showCells->setToolTip(tr("Shows the session's cells, in order, on the Runs page."));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_showCells);
    buttons->addWidget(m_end);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_empty);
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);

    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &InterpreterSessionsBox::updateButtons);
    connect(m_end, &QPushButton::clicked, this, [this] {
        if (const auto* session = selected())
            Q_EMIT endRequested(session->key);
    });
    connect(m_showCells, &QPushButton::clicked, this, [this] {
        if (const auto* session = selected())
            Q_EMIT showCellsRequested(session->key, session->name);
    });
    connect(m_view, &QTableView::doubleClicked, m_showCells, &QPushButton::click);
    m_clock.setInterval(5000);
    connect(&m_clock, &QTimer::timeout, m_model, &InterpreterSessionsModel::refreshTimes);

    // Stable names: tests find the widgets by them (findChild).
    m_view->setObjectName(QStringLiteral("interpreterSessionsView"));
    m_model->setObjectName(QStringLiteral("interpreterSessions"));
    m_end->setObjectName(QStringLiteral("endSessionButton"));
    m_showCells->setObjectName(QStringLiteral("showCellsButton"));
    setSessions({});
}

void InterpreterSessionsBox::setSessions(const QList<ServerStatus::InterpreterSession>& sessions)
{
    m_model->setSessions(sessions);
    m_empty->setVisible(sessions.isEmpty());
    m_view->setVisible(!sessions.isEmpty());
    if (sessions.isEmpty())
        m_clock.stop();
    else if (!m_clock.isActive())
        m_clock.start();
    updateButtons();
}

const ServerStatus::InterpreterSession* InterpreterSessionsBox::selected() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.constFirst().row() >= m_model->rowCount())
        return nullptr;
    return &m_model->rows().at(rows.constFirst().row());
}

void InterpreterSessionsBox::updateButtons()
{
    const bool any = selected() != nullptr;
    m_end->setEnabled(any);
    m_showCells->setEnabled(any);
}

} // namespace csm
