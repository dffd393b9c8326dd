#pragma once

#include "secrets/SecretInfo.h"

#include <QByteArray>
#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace csm {

class SecretStore;

// Adds a secret or edits one, and saves it in the store itself: OK writes the value and the
// pass-through flag, and the dialog closes (accepted) only once the store has answered; a
// refusal (locked keychain...) is shown in the dialog with what was typed still there.
//
// The value is typed in a password field and shown only while "Show" is checked. When editing,
// an empty value keeps the stored one (only the flag changes), and "Show" reads the stored value
// from the store into the field, so it can be seen and changed in place. Values never leave the
// dialog except to the store, and the field is cleared when the dialog closes.
//
// Open it with open(), not exec(): the store answers through the event loop.
class SecretDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Mode
    {
        Add,
        Edit,
    };

    // Adds a new secret. `store` must be open and outlive the dialog.
    explicit SecretDialog(SecretStore& store, QWidget* parent = nullptr);
    // Edits `secret`: its name is read-only.
    SecretDialog(SecretStore& store, const SecretInfo& secret, QWidget* parent = nullptr);
    ~SecretDialog() override;

    Mode mode() const { return m_mode; }
    QString name() const;
    // Why OK is disabled, or what the store refused; empty when OK can be pressed.
    QString problem() const;

    // Saves, then closes once the store has answered. Does nothing while OK is disabled.
    void accept() override;
    // Ignored while saving: the store's answer decides.
    void reject() override;
    void done(int result) override;

private:
    SecretDialog(SecretStore& store, Mode mode, const SecretInfo& secret, QWidget* parent);
    void revealChanged(bool shown);
    void readStoredValue();
    void validate();
    void saved(const QString& error);
    void setBusy(bool busy);
    // Empty when the form is complete; else why not, for the user.
    QString formProblem() const;

    SecretStore& m_store;
    const Mode m_mode;
    const bool m_initialPassThrough;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_value = nullptr;
    QCheckBox* m_show = nullptr;
    QCheckBox* m_passThrough = nullptr;
    QLabel* m_hint = nullptr;
    QLabel* m_problem = nullptr;
    QPushButton* m_ok = nullptr;
    QString m_storeError; // the store's last refusal, until the form changes
    bool m_nameEdited = false;
    bool m_valueEdited = false;
    bool m_saving = false;
    bool m_reading = false;
    // Edit mode, after "Show" read it: the stored value, to tell an untouched field from a change.
    QByteArray m_storedValue;
    bool m_storedValueLoaded = false;
};

} // namespace csm
