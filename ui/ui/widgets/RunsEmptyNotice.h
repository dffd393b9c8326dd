#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace csm {

// What the Runs page shows in place of an empty table: with no runs at all, what to do next
// (connect an assistant, by command or from the Server page); under a filter that matches
// nothing, just that.
class RunsEmptyNotice final : public QWidget
{
    Q_OBJECT

public:
    enum class Reason
    {
        NoRuns,  // the history holds no run yet
        NoMatch, // the filter matches none of the runs
    };

    // The command that wires the most common client, shown to copy.
    static QString installCommand();

    explicit RunsEmptyNotice(QWidget* parent = nullptr);

    void showReason(Reason reason);
    Reason reason() const { return m_reason; }

Q_SIGNALS:
    // The person asked to see the clients' configuration (the Server page).
    void connectAssistantRequested();

private:
    Reason m_reason = Reason::NoRuns;
    QLabel* m_title = nullptr;
    QLabel* m_steps = nullptr;
    QLabel* m_command = nullptr;
    QPushButton* m_connect = nullptr;
};

} // namespace csm
