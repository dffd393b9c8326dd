#pragma once

#include "server/ServerStatus.h"

#include <QGroupBox>
#include <QTimer>

class QLabel;
class QPushButton;
class QTableView;

namespace csm {

class InterpreterSessionsModel;

// The live interpreter sessions of the app's server, with End (the session's state is lost; its
// client hears so on its next call) and Show cells (the session's runs on the Runs page).
class InterpreterSessionsBox final : public QGroupBox
{
    Q_OBJECT

public:
    explicit InterpreterSessionsBox(QWidget* parent = nullptr);

    void setSessions(const QList<ServerStatus::InterpreterSession>& sessions);

Q_SIGNALS:
    void endRequested(const QString& key);
    void showCellsRequested(const QString& key, const QString& name);

private:
    // The selected session, or none.
    const ServerStatus::InterpreterSession* selected() const;
    void updateButtons();

    InterpreterSessionsModel* m_model;
    QTableView* m_view;
    QLabel* m_empty;
    QPushButton* m_end;
    QPushButton* m_showCells;
    QTimer m_clock; // idle and age count on while nothing else changes
};

} // namespace csm
