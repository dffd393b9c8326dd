#pragma once

#include "secrets/SecretInfo.h"
#include "ui/dialogs/SecretDialog.h"

#include <QFileSystemWatcher>
#include <QMessageBox>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;
class QTableView;

namespace csm {

class SecretStore;
class SecretsModel;

// The secrets that servers give to their sandboxes: names, pass-through flags (checkable in the
// table), Add / Edit / Delete, and where the values are kept (the keychain or a private file, and
// why). Never a value: only SecretDialog shows one, and only when asked to.
//
// Live: the page watches the data folder, so secrets changed by the CLI, a server or another
// window show within a moment; it also rereads them whenever it is shown. Errors are shown on
// the page. Dialogs are opened with open(), never exec() (QPointer needs their full types here).
class SecretsPage final : public QWidget
{
    Q_OBJECT

public:
    // How long a burst of changes in the data folder is gathered before the index is reread.
    static constexpr int kRefreshDelayMs = 100;
    // How often the index is reread when the folder cannot be watched (missing, no inotify).
    static constexpr int kPollIntervalMs = 2000;

    // Creates its own SecretStore over `dataDir` (BackendChoice::Auto: the keychain when a
    // Secret Service answers, else a private file) and opens it.
    explicit SecretsPage(const QString& dataDir, QWidget* parent = nullptr);
    ~SecretsPage() override;

    SecretStore& store() const { return *m_store; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void openStore();
    void reopenStore();
    void refresh();
    void watch();
    void add();
    void editSelected();
    void confirmDelete();
    void remove(const QString& name);
    void showDialog(SecretDialog* dialog);
    void select(const QString& name);
    void updateBackend();
    void updateButtons();
    void updateErrors();
    void setOperationError(const QString& error);
    std::optional<SecretInfo> selectedSecret() const;

    QString m_dataDir;
    std::unique_ptr<SecretStore> m_store;
    SecretsModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_backend = nullptr;
    QPushButton* m_retry = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_edit = nullptr;
    QPushButton* m_delete = nullptr;
    QFileSystemWatcher m_watcher;
    QTimer m_refreshDelay;
    QTimer m_poll;
    QPointer<SecretDialog> m_dialog;
    QPointer<QMessageBox> m_confirmation;
    bool m_opening = false;
    bool m_removing = false;
    QString m_openError;
    // Another process bound the secrets to the other backend since this store was opened.
    QString m_reboundError;
    QString m_operationError;
};

} // namespace csm
