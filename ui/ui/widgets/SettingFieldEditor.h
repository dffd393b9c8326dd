#pragma once

#include "server/SettingFormField.h"

#include <QObject>
#include <QString>

class QAbstractButton;
class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace csm {

class HostListEditor;
class SharedFoldersEditor;

// The widget of one SettingFormField on the Settings page, read and set as the setting's text
// (what settings.ini holds): a spin box for a number or a size (with its unit), a check box, a
// list or radio buttons, a line edit, a host list or the shared folders' table. text() is what
// the widget shows now, in the setting's own words, so that comparing it with its text when the
// form was filled tells whether the person changed it.
class SettingFieldEditor final : public QObject
{
    Q_OBJECT

public:
    // Makes the widgets as children of `group` and adds them to `layout`.
    SettingFieldEditor(SettingFormField field, QWidget* group, QFormLayout* layout);

    const SettingFormField& field() const { return m_field; }
    QString text() const;
    // Shows `text` (rounded to the widget's unit, kept within its range).
    void setText(const QString& text);
    // The widget that holds the value (the first radio button of a choice of radio buttons).
    QWidget* widget() const { return m_widget; }
    // A number's box, or null: for what the page says of its lowest value.
    QSpinBox* spinBox() const { return m_spin; }
    bool isChecked() const;

    // A line of explanation as the Settings page shows it: wrapped, in the placeholder colour.
    static QLabel* note(const QString& text, QWidget* parent);

Q_SIGNALS:
    // The person (or setText) changed the value.
    void changed();

private:
    void makeNumber(QWidget* group, QFormLayout* layout);
    void makeChoice(QWidget* group, QFormLayout* layout);
    // A size: the box's range and value in the unit chosen now, keeping `bytes`.
    void showSize(qint64 bytes);
    qint64 unitBytes() const;

    SettingFormField m_field;
    QWidget* m_widget = nullptr;
    QSpinBox* m_spin = nullptr;
    QComboBox* m_unit = nullptr;
    QDoubleSpinBox* m_decimal = nullptr;
    QCheckBox* m_check = nullptr;
    QComboBox* m_list = nullptr;
    QButtonGroup* m_radios = nullptr;
    QLineEdit* m_line = nullptr;
    HostListEditor* m_hosts = nullptr;
    SharedFoldersEditor* m_folders = nullptr;
};

} // namespace csm
