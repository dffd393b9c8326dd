#include "clients/JsonTextWriter.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace csm {

namespace {

// ", " on one line when the file puts a space after ':', else ",".
QByteArray inlineSeparator(const JsonTextWriter::Style& style)
{
    return style.colon.endsWith(' ') ? QByteArray(", ") : QByteArray(",");
}

// Writes `count` items as `{...}` or `[...]`; `item(i, indent)` writes one of them.
template <typename Item>
QByteArray container(char open, char close, qsizetype count, const JsonTextWriter::Style& style,
                     const QByteArray& indent, Item item)
{
    QByteArray text(1, open);
    if (count == 0)
        return text + close;
    const QByteArray inner = indent + style.indentUnit;
    for (qsizetype i = 0; i < count; ++i) {
        if (i > 0)
            text += style.multiline ? QByteArray(",") : inlineSeparator(style);
        if (style.multiline)
            text += style.newline + inner;
        text += item(i, inner);
    }
    if (style.multiline)
        text += style.newline + indent;
    return text + close;
}

} // namespace

QByteArray JsonTextWriter::object(const JsonMembers& members, const Style& style,
                                  const QByteArray& indent)
{
    return container(
        '{', '}', members.size(), style, indent, [&](qsizetype i, const QByteArray& inner) {
            return member(members.at(i).first, value(members.at(i).second, style, inner), style);
        });
}

QByteArray JsonTextWriter::value(const QJsonValue& value, const Style& style,
                                 const QByteArray& indent)
{
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        JsonMembers members;
        for (auto it = object.begin(); it != object.end(); ++it)
            members.append({it.key(), it.value()});
        return JsonTextWriter::object(members, style, indent);
    }
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        return container('[', ']', array.size(), style, indent,
                         [&](qsizetype i, const QByteArray& inner) {
                             return JsonTextWriter::value(array.at(i), style, inner);
                         });
    }
    // A scalar: Qt's writer has the escaping right; strip the array written around it.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value.isUndefined() ? QJsonValue() : value})
                                   .toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

QByteArray JsonTextWriter::member(const QString& name, const QByteArray& valueText,
                                  const Style& style)
{
    return string(name) + style.colon + valueText;
}

QByteArray JsonTextWriter::string(const QString& text)
{
    return value(QJsonValue(text), Style(), {});
}

QJsonObject JsonTextWriter::toObject(const JsonMembers& members)
{
    QJsonObject object;
    for (const auto& [name, value] : members)
        object.insert(name, value);
    return object;
}

} // namespace csm
