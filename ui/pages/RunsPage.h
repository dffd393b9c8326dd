#pragma once

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLineEdit;
class QTableView;

namespace csm {

class HistoryStore;
class RunDetailPane;
class RunsModel;

// The main page: every run of every Code Sandbox process of this user, live, newest first, with
// a text and a status filter and the selected run in full below.
class RunsPage final : public QWidget
{
    Q_OBJECT

public:
    // How often the history is asked what changed: a run shows within this long of its start.
    static constexpr int kRefreshIntervalMs = 500;

    explicit RunsPage(HistoryStore& store, QWidget* parent = nullptr);

    RunsModel& model() const { return *m_model; }
    QTableView& table() const { return *m_table; }
    RunDetailPane& detail() const { return *m_detail; }
    QLineEdit& textFilter() const { return *m_text; }
    QComboBox& statusFilter() const { return *m_status; }

private:
    void applyFilter();
    void showSelectedRun();

    HistoryStore& m_store;
    RunsModel* m_model = nullptr;
    QLineEdit* m_text = nullptr;
    QComboBox* m_status = nullptr;
    QTableView* m_table = nullptr;
    RunDetailPane* m_detail = nullptr;
    QTimer m_refresh;
    QTimer m_filterDelay;
};

} // namespace csm
