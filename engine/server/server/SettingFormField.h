#pragma once

#include <QList>
#include <QString>

namespace csm {

// How the desktop app's Settings page offers one setting: the group it is in, its label, its
// widget, and the widget's unit and range. The page is built from a list of these, and reads and
// writes each setting as the text settings.ini holds (ServerSetting::read and write), so that a
// new setting on the page is one more entry.
struct SettingFormField
{
    enum class Kind
    {
        Number,   // a whole number; the text is the number
        Decimal,  // a number with `decimals` decimals
        Size,     // bytes, shown in one of `units` (the text: the bytes, or with a unit: 512m)
        Switch,   // true or false: a check box whose text is the label
        Choice,   // the text of one of `choices`: a list, or radio buttons with notes (`radio`)
        Text,     // a line of text
        HostList, // host patterns, one a line
        Folders,  // shared folders, as SharedFolderText writes them
    };
    struct Choice
    {
        QString label;
        QString text; // the setting's text for it
        QString note; // radio buttons: the explanation under it
    };
    struct Unit
    {
        QString name; // "MiB"
        qint64 bytes = 1;
    };

    QString key; // the setting's key in settings.ini
    Kind kind = Kind::Number;
    QString group;      // the title of the group box it is in
    QString label;      // with its mnemonic: "&Memory:"; a Switch's check box text
    QString objectName; // stable: tests find the widget by it
    QString toolTip;
    QString note; // a note shown under it
    // What an error calls a value of it that is not valid ("an allowed host"); the label's words
    // when empty.
    QString name;
    // Number, Decimal, and Size (in bytes): the range and the step of the box.
    double minimum = 0;
    double maximum = 0;
    double step = 1;
    int decimals = 0;
    QString suffix;
    // What the lowest value reads as ("Off", "No limit"); empty: the number.
    QString minimumText;
    QList<Unit> units;
    QList<Choice> choices;
    bool radio = false;
    QString placeholder;
    // A Text field's width, in average characters (0: the style's).
    int widthChars = 0;
};

} // namespace csm
