#include "ui/widgets/SettingFieldEditor.h"

#include "core/ByteSize.h"
#include "runtime/SharedFolderText.h"
#include "ui/widgets/HostListEditor.h"
#include "ui/widgets/SharedFoldersEditor.h"
#include "ui/widgets/WheelNeedsFocus.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace csm {

namespace {

using Kind = SettingFormField::Kind;

// A rounded value, kept within a box's range as the box itself would keep it.
int shown(const QSpinBox* box, double value)
{
    return static_cast<int>(
        std::clamp<double>(std::llround(value), box->minimum(), box->maximum()));
}

} // namespace

SettingFieldEditor::SettingFieldEditor(SettingFormField field, QWidget* group, QFormLayout* layout)
    : QObject(group)
    , m_field(std::move(field))
{
    switch (m_field.kind) {
    case Kind::Number:
    case Kind::Size:
    case Kind::Decimal:
        makeNumber(group, layout);
        break;
    case Kind::Switch:
        m_check = new QCheckBox(m_field.label, group);
        connect(m_check, &QCheckBox::toggled, this, &SettingFieldEditor::changed);
        layout->addRow(m_check);
        m_widget = m_check;
        break;
    case Kind::Choice:
        makeChoice(group, layout);
        break;
    case Kind::Text:
        m_line = new QLineEdit(group);
        m_line->setPlaceholderText(m_field.placeholder);
        if (m_field.widthChars > 0)
            m_line->setMinimumWidth(m_line->fontMetrics().averageCharWidth() * m_field.widthChars);
        connect(m_line, &QLineEdit::textChanged, this, &SettingFieldEditor::changed);
        layout->addRow(m_field.label, m_line);
        m_widget = m_line;
        break;
    case Kind::HostList: {
        m_hosts = new HostListEditor(m_field.placeholder, group);
        connect(m_hosts, &QPlainTextEdit::textChanged, this, &SettingFieldEditor::changed);
        auto* label = new QLabel(m_field.label, group);
        label->setWordWrap(true);
        label->setBuddy(m_hosts);
        layout->addRow(label);
        layout->addRow(m_hosts);
        m_widget = m_hosts;
        break;
    }
    case Kind::Folders:
        // What the folders are for comes first: the table says nothing of it.
        if (!m_field.note.isEmpty())
            layout->addRow(note(m_field.note, group));
        m_folders = new SharedFoldersEditor(group);
        connect(m_folders, &SharedFoldersEditor::changed, this, &SettingFieldEditor::changed);
        layout->addRow(m_folders);
        m_widget = m_folders;
        break;
    }
    if (!m_radios) // each radio button has a name of its own
        m_widget->setObjectName(m_field.objectName);
    if (!m_field.toolTip.isEmpty())
        m_widget->setToolTip(m_field.toolTip);
    if (!m_field.note.isEmpty() && m_field.kind != Kind::Folders)
        layout->addRow(note(m_field.note, group));
}

void SettingFieldEditor::makeNumber(QWidget* group, QFormLayout* layout)
{
    if (m_field.kind == Kind::Decimal) {
        m_decimal = new QDoubleSpinBox(group);
        m_decimal->setDecimals(m_field.decimals);
        m_decimal->setRange(m_field.minimum, m_field.maximum);
        m_decimal->setSingleStep(m_field.step);
        connect(m_decimal, &QDoubleSpinBox::valueChanged, this, &SettingFieldEditor::changed);
        WheelNeedsFocus::applyTo(m_decimal);
        layout->addRow(m_field.label, m_decimal);
        m_widget = m_decimal;
        return;
    }
    m_spin = new QSpinBox(group);
    m_spin->setSuffix(m_field.suffix);
    m_spin->setSingleStep(static_cast<int>(m_field.step));
    m_spin->setSpecialValueText(m_field.minimumText);
    m_spin->setGroupSeparatorShown(false);
    m_spin->setAccelerated(true);
    m_widget = m_spin;
    connect(m_spin, &QSpinBox::valueChanged, this, &SettingFieldEditor::changed);
    WheelNeedsFocus::applyTo(m_spin);
    if (m_field.kind == Kind::Number) {
        m_spin->setRange(static_cast<int>(m_field.minimum), static_cast<int>(m_field.maximum));
        layout->addRow(m_field.label, m_spin);
        return;
    }
    if (m_field.units.size() == 1) {
        m_spin->setSuffix(QLatin1Char(' ') + m_field.units.constFirst().name);
        showSize(qint64(m_field.minimum));
        layout->addRow(m_field.label, m_spin);
        return;
    }
    // Several units: the box and a list of them, the box as wide as its widest range needs.
    m_unit = new QComboBox(group);
    m_unit->setObjectName(m_field.objectName + QStringLiteral("Unit"));
    WheelNeedsFocus::applyTo(m_unit);
    for (const SettingFormField::Unit& unit : std::as_const(m_field.units))
        m_unit->addItem(unit.name, unit.bytes);
    m_spin->setRange(1, static_cast<int>(m_field.maximum / m_field.units.constFirst().bytes));
    m_spin->setMinimumWidth(m_spin->sizeHint().width());
    connect(m_unit, &QComboBox::currentIndexChanged, this, [this] {
        const qint64 bytes =
            qint64(m_spin->value()) * qint64(m_unit->property("shownIn").toLongLong());
        showSize(bytes);
        Q_EMIT changed();
    });
    auto* row = new QHBoxLayout;
    row->addWidget(m_spin);
    row->addWidget(m_unit);
    row->addStretch();
    // A row of a layout gets no buddy from addRow: the label is made here.
    auto* label = new QLabel(m_field.label, group);
    label->setBuddy(m_spin);
    layout->addRow(label, row);
}

void SettingFieldEditor::makeChoice(QWidget* group, QFormLayout* layout)
{
    if (!m_field.radio) {
        m_list = new QComboBox(group);
        for (const SettingFormField::Choice& choice : std::as_const(m_field.choices))
            m_list->addItem(choice.label, choice.text);
        connect(m_list, &QComboBox::currentIndexChanged, this, &SettingFieldEditor::changed);
        WheelNeedsFocus::applyTo(m_list);
        layout->addRow(m_field.label, m_list);
        m_widget = m_list;
        return;
    }
    m_radios = new QButtonGroup(this);
    for (qsizetype i = 0; i < m_field.choices.size(); ++i) {
        const SettingFormField::Choice& choice = m_field.choices.at(i);
        auto* button = new QRadioButton(choice.label, group);
        button->setObjectName(m_field.objectName + QLatin1Char('-') + choice.text);
        m_radios->addButton(button, int(i));
        layout->addRow(button);
        if (!choice.note.isEmpty())
            layout->addRow(note(choice.note, group));
        if (!m_widget)
            m_widget = button;
    }
    connect(m_radios, &QButtonGroup::idToggled, this, [this](int, bool on) {
        if (on)
            Q_EMIT changed();
    });
}

qint64 SettingFieldEditor::unitBytes() const
{
    if (m_unit)
        return m_unit->currentData().toLongLong();
    return m_field.units.isEmpty() ? 1 : m_field.units.constFirst().bytes;
}

void SettingFieldEditor::showSize(qint64 bytes)
{
    const QSignalBlocker blocker(m_spin);
    const qint64 unit = unitBytes();
    if (m_unit)
        m_unit->setProperty("shownIn", unit);
    m_spin->setRange(static_cast<int>(std::max<qint64>(1, qint64(m_field.minimum) / unit)),
                     static_cast<int>(qint64(m_field.maximum) / unit));
    m_spin->setValue(shown(m_spin, static_cast<double>(bytes) / double(unit)));
}

QString SettingFieldEditor::text() const
{
    switch (m_field.kind) {
    case Kind::Number:
        return QString::number(m_spin->value());
    case Kind::Size:
        return QString::number(qint64(m_spin->value()) * unitBytes());
    case Kind::Decimal:
        return QString::number(m_decimal->value());
    case Kind::Switch:
        return m_check->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    case Kind::Choice:
        if (m_list)
            return m_list->currentData().toString();
        return m_radios->checkedId() >= 0 ? m_field.choices.at(m_radios->checkedId()).text
                                          : QString();
    case Kind::Text:
        return m_line->text().trimmed();
    case Kind::HostList:
        return m_hosts->lines().join(QLatin1Char('\n'));
    case Kind::Folders:
        return SharedFolderText::formatList(m_folders->folders());
    }
    return {};
}

void SettingFieldEditor::setText(const QString& text)
{
    switch (m_field.kind) {
    case Kind::Number:
        m_spin->setValue(shown(m_spin, text.trimmed().toDouble()));
        return;
    case Kind::Size: {
        const qint64 bytes = ByteSize::parse(text).value_or(qint64(m_field.minimum));
        if (m_unit) {
            // Whole units of the largest that divides it read best; anything else is kept
            // exact enough in the smallest.
            int best = 0;
            for (int i = 0; i < m_unit->count(); ++i) {
                if (bytes % m_unit->itemData(i).toLongLong() == 0)
                    best = i;
            }
            const QSignalBlocker blocker(m_unit);
            m_unit->setCurrentIndex(best);
        }
        showSize(bytes);
        Q_EMIT changed();
        return;
    }
    case Kind::Decimal:
        m_decimal->setValue(text.trimmed().toDouble());
        return;
    case Kind::Switch:
        m_check->setChecked(text.trimmed().compare(QLatin1String("true"), Qt::CaseInsensitive) ==
                            0);
        return;
    case Kind::Choice:
        for (qsizetype i = 0; i < m_field.choices.size(); ++i) {
            if (m_field.choices.at(i).text.compare(text.trimmed(), Qt::CaseInsensitive) != 0)
                continue;
            if (m_list)
                m_list->setCurrentIndex(int(i));
            else
                m_radios->button(int(i))->setChecked(true);
            return;
        }
        if (m_list)
            m_list->setCurrentIndex(0);
        return;
    case Kind::Text:
        m_line->setText(text);
        return;
    case Kind::HostList:
        m_hosts->setHosts(HostListEditor::parse(text.split(QLatin1Char('\n'))));
        return;
    case Kind::Folders:
        m_folders->setFolders(SharedFolderText::parseList(text).valueOr({}));
        return;
    }
}

QLabel* SettingFieldEditor::note(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

bool SettingFieldEditor::isChecked() const
{
    return m_check && m_check->isChecked();
}

} // namespace csm
