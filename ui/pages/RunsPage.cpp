#include "pages/RunsPage.h"

#include "history/HistoryStore.h"
#include "models/RunsModel.h"
#include "pages/RunDetailPane.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace csm {

namespace {
constexpr int kFilterDelayMs = 250;
constexpr RunStatus kStatuses[] = {
    RunStatus::Running,   RunStatus::Ok,  RunStatus::Error,       RunStatus::Timeout,
    RunStatus::Cancelled, RunStatus::Oom, RunStatus::EngineError, RunStatus::Interrupted,
};
} // namespace

RunsPage::RunsPage(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_model(new RunsModel(store, this))
    , m_text(new QLineEdit(this))
    , m_status(new QComboBox(this))
    , m_table(new QTableView(this))
    , m_detail(new RunDetailPane(this))
{
    m_text->setPlaceholderText(tr("Filter by code or output"));
    m_text->setClearButtonEnabled(true);
    m_status->addItem(tr("Any status"));
    for (RunStatus status : kStatuses)
        m_status->addItem(RunStatusTraits::toString(status), int(status));

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_text, 1);
    filters->addWidget(m_status);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(splitter, 1);

    m_filterDelay.setSingleShot(true);
    connect(&m_filterDelay, &QTimer::timeout, this, &RunsPage::applyFilter);
    connect(m_text, &QLineEdit::textChanged, this, [this] { m_filterDelay.start(kFilterDelayMs); });
    connect(m_status, &QComboBox::currentIndexChanged, this, &RunsPage::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RunsPage::showSelectedRun);
    // A run that ends while it is shown gets its output.
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
                const int row = m_table->currentIndex().row();
                if (row >= topLeft.row() && row <= bottomRight.row())
                    showSelectedRun();
            });
    connect(m_model, &QAbstractItemModel::modelReset, this, &RunsPage::showSelectedRun);
    connect(&m_refresh, &QTimer::timeout, m_model, &RunsModel::refresh);
    m_refresh.start(kRefreshIntervalMs);
}

void RunsPage::applyFilter()
{
    HistoryQuery filter;
    filter.text = m_text->text().trimmed();
    if (m_status->currentData().isValid())
        filter.statuses = {static_cast<RunStatus>(m_status->currentData().toInt())};
    m_model->setFilter(filter);
}

void RunsPage::showSelectedRun()
{
    const qint64 id = m_model->runId(m_table->currentIndex().row());
    m_detail->showRun(id > 0 ? m_store.get(id) : std::nullopt);
}

} // namespace csm
