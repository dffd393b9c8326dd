#pragma once

#include "core/Expected.h"
#include "server/ServerSetting.h"
#include "server/ServerSettings.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/settings/DesktopSettingsForm.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;

namespace csm {

class FileContentWatcher;
class SettingFieldEditor;

// The settings every Code Sandbox server of the user reads (the [server] group of settings.ini:
// sandbox limits, network, shared folders, timeouts, warm pool, redaction, history retention,
// engine) and the app's approval mode and notifications (the [desktop] group), as one form built
// from their fields (ServerSettingsForm, DesktopSettingsForm). Apply saves them; each running
// server watches the file and uses them from its next run on.
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
    // One field of the form: its editor, the setting it edits (a server's or the app's), and
    // the text it showed once the form was filled, against which edits are told.
    struct Field
    {
        SettingFieldEditor* editor = nullptr;
        const ServerSetting* server = nullptr;
        const DesktopSettingsForm::Setting* desktop = nullptr;
        QString shownAtLoad;
    };

    // The group boxes and their fields, in the order of ServerSettingsForm and
    // DesktopSettingsForm.
    QWidget* buildForm();
    void addField(const SettingFormField& field, QWidget* form, Field entry);
    SettingFieldEditor* editor(const QString& key) const;
    void reload();
    void fill(const ServerSettings& server, const DesktopSettings& desktop);
    // `onto` with the fields the person changed since the last load put over it, or why they
    // cannot be saved.
    Expected<ServerSettings> changedServer(ServerSettings onto) const;
    Expected<DesktopSettings> changedDesktop(DesktopSettings onto) const;
    // What the fields cannot say alone: checks across them.
    static QString invalidTogether(const ServerSettings& settings);
    void onFileChanged();
    void updateState();

    QString m_dataDir;
    FileContentWatcher* m_watcher = nullptr;
    std::vector<Field> m_fields;
    // What the file held when the form was last loaded.
    ServerSettings m_loadedServer;
    DesktopSettings m_loadedDesktop;
    QString m_saveError;
    bool m_filling = false;

    QLabel* m_redactWarning = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_revert = nullptr;
    QPushButton* m_defaults = nullptr;
    QLabel* m_problems = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_changedElsewhere = nullptr;
};

} // namespace csm
