#pragma once

#include "server/ServerSettings.h"
#include "ui/settings/DesktopSettings.h"

#include <QStringList>
#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace csm {

class FileContentWatcher;
class HostListEditor;
class SharedFoldersEditor;

// The settings every Code Sandbox server of the user reads (the [server] group of settings.ini:
// sandbox limits, network, shared folders, timeouts, warm pool, redaction, history retention,
// engine) and the app's approval mode and notifications (the [desktop] group), as one form.
// Apply saves them; each running server watches the file and uses them from its next run on.
//
// Only what the person changed is written: Apply rereads the file and puts the changed fields
// over it, so values shown elsewhere (the images, the HTTP server) or changed by another program
// meanwhile are kept, and so is a stored value the form can only show rounded. The file is
// watched: a change made elsewhere reloads the form unless it holds unsaved edits.
class SettingsPage final : public QWidget
{
    Q_OBJECT

public:
    // `dataDir`: the folder of settings.ini (HistoryLocation::dataDir()).
    explicit SettingsPage(const QString& dataDir, QWidget* parent = nullptr);

    // Whether the form holds edits that are not saved.
    bool hasChanges() const;

    // Saves the edits (what the Apply button does); false with the error label saying why.
    bool apply();
    // Discards the edits and shows the file as it is now.
    void revert();
    // Puts the built-in defaults in the form (not saved until Apply).
    void restoreDefaults();

Q_SIGNALS:
    // The edits were saved.
    void applied();

private:
    // The values as the widgets show them (rounded to the widgets' units and ranges).
    struct FormValues
    {
        int memoryMiB = 0;
        double cpus = 0;
        int pids = 0;
        int tmpfsMiB = 0;
        qint64 outputCapBytes = 0;
        int egressMode = -1; // EgressMode
        QStringList allowedHosts;
        QStringList alwaysAllowed;
        QList<SharedFolder> sharedFolders;
        int timeoutSeconds = 0;
        int maxTimeoutSeconds = 0;
        int poolSize = 0;
        int poolIdleSeconds = 0;
        int interpreterIdleSeconds = 0;
        int maxInterpreters = 0;
        int maxClientInterpreters = 0;
        int maxRunning = 0;
        bool allowUnlimited = false;
        bool redact = false;
        int maxRuns = 0;
        int maxDays = 0;
        int maxMb = 0;
        int filesMaxMb = 0;
        int maxFieldKiB = 0;
        QString engine;
        QString engineHost;
        bool approval = false;
        int approvalTimeoutSeconds = 0;
        bool notifyApprovals = false;
        bool notifyFailures = false;

        friend bool operator==(const FormValues&, const FormValues&) = default;
    };

    void reload();
    void setOutputCap(qint64 bytes);
    void fill(const ServerSettings& server, const DesktopSettings& desktop);
    FormValues formValues() const;
    // `onto` with the fields the person changed since the last load replaced by the form's.
    ServerSettings changedServer(ServerSettings onto) const;
    DesktopSettings changedDesktop(DesktopSettings onto) const;
    // Why `settings` cannot be saved (empty when they can).
    QString invalidReason(const ServerSettings& settings) const;
    void onOutputCapUnitChanged();
    void onFileChanged();
    void updateState();

    QString m_dataDir;
    FileContentWatcher* m_watcher = nullptr;
    // What the file held when the form was last loaded, and how the widgets showed it.
    ServerSettings m_loadedServer;
    DesktopSettings m_loadedDesktop;
    FormValues m_shownAtLoad;
    // Bytes per unit of m_outputCap (the unit chosen in m_outputCapUnit).
    qint64 m_outputCapFactor = 1024;
    QString m_saveError;
    bool m_filling = false;

    QSpinBox* m_memory = nullptr;
    QDoubleSpinBox* m_cpus = nullptr;
    QSpinBox* m_pids = nullptr;
    QSpinBox* m_tmpfs = nullptr;
    QSpinBox* m_outputCap = nullptr;
    QComboBox* m_outputCapUnit = nullptr;
    QButtonGroup* m_egressModes = nullptr;
    HostListEditor* m_allowedHosts = nullptr;
    HostListEditor* m_alwaysAllowed = nullptr;
    SharedFoldersEditor* m_sharedFolders = nullptr;
    QSpinBox* m_timeout = nullptr;
    QSpinBox* m_maxTimeout = nullptr;
    QSpinBox* m_poolSize = nullptr;
    QSpinBox* m_poolIdle = nullptr;
    QSpinBox* m_interpreterIdle = nullptr;
    QSpinBox* m_maxInterpreters = nullptr;
    QSpinBox* m_maxClientInterpreters = nullptr;
    QSpinBox* m_maxRunning = nullptr;
    QCheckBox* m_allowUnlimited = nullptr;
    QCheckBox* m_redact = nullptr;
    QLabel* m_redactWarning = nullptr;
    QSpinBox* m_maxRuns = nullptr;
    QSpinBox* m_maxDays = nullptr;
    QSpinBox* m_maxMb = nullptr;
    QSpinBox* m_filesMaxMb = nullptr;
    QSpinBox* m_maxFieldSize = nullptr;
    QComboBox* m_engine = nullptr;
    QLineEdit* m_engineHost = nullptr;
    QCheckBox* m_approval = nullptr;
    QSpinBox* m_approvalTimeout = nullptr;
    QCheckBox* m_notifyApprovals = nullptr;
    QCheckBox* m_notifyFailures = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_revert = nullptr;
    QPushButton* m_defaults = nullptr;
    QLabel* m_problems = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_changedElsewhere = nullptr;
};

} // namespace csm
