#pragma once

#include "server/ServerSettings.h"
#include "ui/settings/DesktopSettings.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace csm {

class FileContentWatcher;

// The settings every Code Sandbox server of the user reads (the [server] group of settings.ini:
// sandbox limits, network, timeouts, warm pool, redaction, history retention, engine) and the
// app's approval mode (the [desktop] group), as one form. Apply saves them; each running server
// watches the file and uses them from its next run on.
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

    // Sandbox limits.
    QSpinBox& memory() const { return *m_memory; } // MiB
    QDoubleSpinBox& cpus() const { return *m_cpus; }
    QSpinBox& processes() const { return *m_pids; }
    QSpinBox& writableSpace() const { return *m_tmpfs; } // MiB
    QSpinBox& outputCap() const { return *m_outputCap; } // in outputCapUnit()'s unit
    QComboBox& outputCapUnit() const { return *m_outputCapUnit; }
    // Network.
    QRadioButton& networkBridge() const { return *m_networkBridge; }
    QRadioButton& networkNone() const { return *m_networkNone; }
    // Timeouts, in seconds.
    QSpinBox& defaultTimeout() const { return *m_timeout; }
    QSpinBox& maxTimeout() const { return *m_maxTimeout; }
    // Warm pool.
    QSpinBox& poolSize() const { return *m_poolSize; }
    QSpinBox& poolIdle() const { return *m_poolIdle; } // seconds
    // Privacy: the warning is shown while redaction is off.
    QCheckBox& redact() const { return *m_redact; }
    QLabel& redactWarning() const { return *m_redactWarning; }
    QSpinBox& maxRunning() const { return *m_maxRunning; } // 0: automatic
    QCheckBox& allowUnlimited() const { return *m_allowUnlimited; }
    // History retention (0: no limit).
    QSpinBox& keepRuns() const { return *m_maxRuns; }
    QSpinBox& keepDays() const { return *m_maxDays; }
    QSpinBox& keepMegabytes() const { return *m_maxMb; }      // MiB
    QSpinBox& keepPerText() const { return *m_maxFieldSize; } // KiB of each code, stdout, stderr
    // Engine: Auto, Podman, Docker.
    QComboBox& engine() const { return *m_engine; }
    // Approval of the app's own server's calls.
    QCheckBox& approvalRequired() const { return *m_approval; }
    QSpinBox& approvalTimeout() const { return *m_approvalTimeout; }

    QPushButton& applyButton() const { return *m_apply; }
    QPushButton& revertButton() const { return *m_revert; }
    QPushButton& restoreDefaultsButton() const { return *m_defaults; }
    // Stored values that were ignored when the file was last read (hidden when none).
    QLabel& problemsLabel() const { return *m_problems; }
    // Why the form cannot be applied, or why the last Apply failed (hidden when neither).
    QLabel& errorLabel() const { return *m_error; }
    // Shown when the file changed elsewhere while the form held edits.
    QLabel& changedElsewhereLabel() const { return *m_changedElsewhere; }

    // Saves the edits (what the Apply button does); false with errorLabel() saying why.
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
        QString network;
        int timeoutSeconds = 0;
        int maxTimeoutSeconds = 0;
        int poolSize = 0;
        int poolIdleSeconds = 0;
        int maxRunning = 0;
        bool allowUnlimited = false;
        bool redact = false;
        int maxRuns = 0;
        int maxDays = 0;
        int maxMb = 0;
        int maxFieldKiB = 0;
        QString engine;
        bool approval = false;
        int approvalTimeoutSeconds = 0;

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
    QRadioButton* m_networkBridge = nullptr;
    QRadioButton* m_networkNone = nullptr;
    QSpinBox* m_timeout = nullptr;
    QSpinBox* m_maxTimeout = nullptr;
    QSpinBox* m_poolSize = nullptr;
    QSpinBox* m_poolIdle = nullptr;
    QSpinBox* m_maxRunning = nullptr;
    QCheckBox* m_allowUnlimited = nullptr;
    QCheckBox* m_redact = nullptr;
    QLabel* m_redactWarning = nullptr;
    QSpinBox* m_maxRuns = nullptr;
    QSpinBox* m_maxDays = nullptr;
    QSpinBox* m_maxMb = nullptr;
    QSpinBox* m_maxFieldSize = nullptr;
    QComboBox* m_engine = nullptr;
    QCheckBox* m_approval = nullptr;
    QSpinBox* m_approvalTimeout = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_revert = nullptr;
    QPushButton* m_defaults = nullptr;
    QLabel* m_problems = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_changedElsewhere = nullptr;
};

} // namespace csm
