#include "ui/dialogs/SecretDialog.h"

#include "secrets/SecretStore.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace csm {

namespace {

// Text a line edit can show and give back unchanged; other bytes cannot be edited here.
bool isEditableText(const QByteArray& value)
{
    return QString::fromUtf8(value).toUtf8() == value;
}

} // namespace

SecretDialog::SecretDialog(SecretStore& store, QWidget* parent)
    : SecretDialog(store, Mode::Add, SecretInfo{}, parent)
{}

SecretDialog::SecretDialog(SecretStore& store, const SecretInfo& secret, QWidget* parent)
    : SecretDialog(store, Mode::Edit, secret, parent)
{}

SecretDialog::SecretDialog(SecretStore& store, Mode mode, const SecretInfo& secret, QWidget* parent)
    : QDialog(parent)
    , m_store(store)
    , m_mode(mode)
    , m_initialPassThrough(secret.passThrough)
    , m_name(new QLineEdit(secret.name, this))
    , m_value(new QLineEdit(this))
    , m_show(new QCheckBox(tr("Show"), this))
    , m_passThrough(new QCheckBox(this))
    , m_hint(new QLabel(this))
    , m_problem(new QLabel(this))
{
    const bool editing = mode == Mode::Edit;
    setWindowTitle(editing ? tr("Edit the secret %1").arg(secret.name) : tr("Add a secret"));
    setMinimumWidth(480);

    m_name->setReadOnly(editing);
    m_name->setPlaceholderText(tr("e.g. OPENAI_API_KEY"));
    m_value->setEchoMode(QLineEdit::Password);
    m_value->setInputMethodHints(Qt::ImhHiddenText | Qt::ImhSensitiveData |
                                 Qt::ImhNoPredictiveText | Qt::ImhNoAutoUppercase);
    m_value->setPlaceholderText(editing ? tr("Unchanged") : QString());
    m_show->setToolTip(editing ? tr("Show the value; with the field empty, read the stored value")
                               : tr("Show the value as typed"));
    m_passThrough->setChecked(secret.passThrough);
    // What an empty value means when editing: people expect to change the flag alone.
    m_hint->setText(editing ? tr("Leave the value empty to keep the stored one; Show reveals it.")
                            : QString());
    m_hint->setVisible(editing);
    m_hint->setWordWrap(true);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* valueRow = new QHBoxLayout;
    valueRow->addWidget(m_value, 1);
    valueRow->addWidget(m_show);
    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    // A row of a layout gets no buddy from the form: without one, "&V" would show as is.
    auto* valueLabel = new QLabel(tr("&Value:"), this);
    valueLabel->setBuddy(m_value);
    form->addRow(valueLabel, valueRow);
    form->addRow(QString(), m_hint);
    form->addRow(QString(), m_passThrough);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(editing ? tr("Save") : tr("Add"));
    connect(buttons, &QDialogButtonBox::accepted, this, &SecretDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SecretDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addStretch();
    layout->addWidget(buttons);

    connect(m_name, &QLineEdit::textEdited, this, [this] {
        m_nameEdited = true;
        m_storeError.clear();
    });
    connect(m_name, &QLineEdit::textChanged, this, &SecretDialog::validate);
    connect(m_value, &QLineEdit::textEdited, this, [this] {
        m_valueEdited = true;
        m_storeError.clear();
    });
    connect(m_value, &QLineEdit::textChanged, this, &SecretDialog::validate);
    connect(m_show, &QCheckBox::toggled, this, &SecretDialog::revealChanged);
    connect(m_passThrough, &QCheckBox::toggled, this, [this] {
        m_storeError.clear();
        validate();
    });
    (editing ? m_value : m_name)->setFocus();
    validate();
    // Stable names: tests find the widgets by them (findChild).
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_value->setObjectName(QStringLiteral("valueEdit"));
    m_show->setObjectName(QStringLiteral("showValue"));
    m_passThrough->setObjectName(QStringLiteral("passThrough"));
    m_ok->setObjectName(QStringLiteral("okButton"));
}

SecretDialog::~SecretDialog() = default;

QString SecretDialog::name() const
{
    return m_name->text();
}

QString SecretDialog::problem() const
{
    return m_storeError.isEmpty() ? formProblem() : m_storeError;
}

QString SecretDialog::formProblem() const
{
    const QString name = this->name();
    if (const QString error = SecretInfo::nameError(name); !error.isEmpty())
        return error;
    if (m_mode == Mode::Add) {
        const QList<SecretInfo> existing = m_store.list().valueOr({});
        const bool taken =
            std::any_of(existing.begin(), existing.end(),
                        [&name](const SecretInfo& info) { return info.name == name; });
        if (taken)
            return tr("%1 already exists: select it in the list and choose Edit to change it")
                .arg(name);
        if (m_value->text().isEmpty())
            return tr("type the value");
    }
    return {};
}

void SecretDialog::validate()
{
    const QString problem = this->problem();
    // An untouched empty field is not a mistake yet: OK stays disabled without a reproach.
    const bool untouched = (name().isEmpty() && !m_nameEdited) ||
                           (m_mode == Mode::Add && !m_valueEdited && m_value->text().isEmpty() &&
                            SecretInfo::nameError(name()).isEmpty());
    m_problem->setText(untouched && m_storeError.isEmpty() ? QString() : problem);
    m_ok->setEnabled(formProblem().isEmpty() && !m_saving && !m_reading);
    m_passThrough->setText(
        SecretInfo::isValidName(name())
            ? tr("Pass through: give every sandbox the environment variable %1").arg(name())
            : tr("Pass through: give every sandbox this environment variable"));
}

void SecretDialog::revealChanged(bool shown)
{
    m_value->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    if (shown && m_mode == Mode::Edit && !m_storedValueLoaded && m_value->text().isEmpty())
        readStoredValue();
}

void SecretDialog::readStoredValue()
{
    m_reading = true;
    setBusy(true);
    QPointer<SecretDialog> self(this);
    m_store.read(name(), [self](const QByteArray& value, const QString& error) {
        if (!self)
            return;
        self->m_reading = false;
        self->setBusy(false);
        if (error.isEmpty() && !isEditableText(value))
            self->m_storeError = tr("the stored value is not text, so it cannot be shown here; "
                                    "type a new value to replace it");
        else if (!error.isEmpty())
            self->m_storeError = tr("cannot read the stored value: %1").arg(error);
        if (!self->m_storeError.isEmpty()) {
            self->m_show->setChecked(false);
            self->validate();
            return;
        }
        self->m_storedValue = value;
        self->m_storedValueLoaded = true;
        // Typed meanwhile? What was typed wins.
        if (self->m_value->text().isEmpty())
            self->m_value->setText(QString::fromUtf8(value));
        self->validate();
    });
}

void SecretDialog::accept()
{
    if (m_saving || m_reading || !formProblem().isEmpty())
        return;
    const QString name = this->name();
    QByteArray value = m_value->text().toUtf8();
    const bool on = m_passThrough->isChecked();
    const bool keepValue = m_mode == Mode::Edit &&
                           (value.isEmpty() || (m_storedValueLoaded && value == m_storedValue));
    if (keepValue && on == m_initialPassThrough) {
        QDialog::accept();
        return;
    }
    m_storeError.clear();
    m_saving = true;
    setBusy(true);
    QPointer<SecretDialog> self(this);
    const auto answer = [self](const QString& error) {
        if (self)
            self->saved(error);
    };
    // Only the flag when the value is kept: it is not read, nor written again.
    if (keepValue)
        m_store.setPassThrough(name, on, answer);
    else
        m_store.set(name, value, on, answer);
}

void SecretDialog::saved(const QString& error)
{
    m_saving = false;
    setBusy(false);
    if (error.isEmpty()) {
        QDialog::accept();
        return;
    }
    m_storeError = error;
    validate();
}

void SecretDialog::reject()
{
    if (!m_saving)
        QDialog::reject();
}

void SecretDialog::done(int result)
{
    m_value->clear();
    m_storedValue.clear();
    m_storedValueLoaded = false;
    QDialog::done(result);
}

void SecretDialog::setBusy(bool busy)
{
    m_name->setEnabled(!busy);
    m_value->setEnabled(!busy);
    m_show->setEnabled(!busy);
    m_passThrough->setEnabled(!busy);
    if (!busy)
        m_value->setFocus();
    validate();
}

} // namespace csm
