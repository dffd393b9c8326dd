#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <utility>

namespace csm {

// An object's members in the order they are to be written (QJsonObject sorts its keys).
using JsonMembers = QList<std::pair<QString, QJsonValue>>;

// Writes JSON text laid out like the file it goes into: its line ending, indentation unit and
// spacing after ':', on several lines or on one.
class JsonTextWriter final
{
public:
    struct Style
    {
        QByteArray newline = "\n";
        QByteArray indentUnit = "  ";
        QByteArray colon = ": "; // between a member's name and its value
        bool multiline = true;   // false: the whole value on one line
    };

    // `indent`: the indentation of the line the value starts on; its members go one unit
    // deeper and its closing brace back at `indent`.
    static QByteArray object(const JsonMembers& members, const Style& style,
                             const QByteArray& indent);
    static QByteArray value(const QJsonValue& value, const Style& style, const QByteArray& indent);
    // "name": value, the way a member is written inside an object.
    static QByteArray member(const QString& name, const QByteArray& valueText, const Style& style);
    // A quoted, escaped JSON string.
    static QByteArray string(const QString& text);

    static QJsonObject toObject(const JsonMembers& members);
};

} // namespace csm
