#include "clients/YamlConfigFormat.h"

#include "clients/TextLines.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace csm {

namespace {

using Action = ClientConfigChange::Action;

// The document `text` holds (a null node when it is empty), or why Code Sandbox will not edit
// it.
Expected<YAML::Node> load(const QByteArray& text)
{
    try {
        const std::vector<YAML::Node> documents = YAML::LoadAll(text.toStdString());
        if (documents.size() > 1)
            return Unexpected(QStringLiteral("the file holds several YAML documents"));
        YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
        if (!root.IsNull() && !root.IsMap())
            return Unexpected(QStringLiteral("the file holds YAML that is not a mapping"));
        return root;
    } catch (const YAML::Exception& problem) {
        return Unexpected(QStringLiteral("not valid YAML (line %1, column %2: %3)")
                              .arg(problem.mark.line + 1)
                              .arg(problem.mark.column + 1)
                              .arg(QString::fromStdString(problem.msg)));
    }
}

// A key of a mapping and its value.
struct YamlMember
{
    YAML::Node key;
    YAML::Node value;
    bool last = false; // no key follows it in its mapping
};

// A member looked for: nothing when there is none.
using Found = Expected<std::optional<YamlMember>>;
const Found kNone = Found(std::nullopt);

// The member `key` of `map`. Fails when there are several, since YAML forbids it and clients
// differ in which one they take.
Found memberOf(const YAML::Node& map, const QString& key)
{
    std::optional<YamlMember> found;
    if (!map.IsMap())
        return found;
    const std::string wanted = key.toStdString();
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (found)
            found->last = false;
        if (!it->first.IsScalar() || it->first.Scalar() != wanted)
            continue;
        if (found) {
            return Unexpected(QStringLiteral("\"%1\" appears more than once in a mapping, so "
                                             "which one counts is unclear; fix that by hand")
                                  .arg(key));
        }
        found = YamlMember{it->first, it->second, true};
    }
    return found;
}

// What a YAML node says, with every scalar as its text: how the file's content is compared.
QJsonValue canonical(const YAML::Node& node)
{
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (auto it = node.begin(); it != node.end(); ++it)
            object.insert(QString::fromStdString(it->first.Scalar()), canonical(it->second));
        return object;
    }
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const YAML::Node& element : node)
            array.append(canonical(element));
        return array;
    }
    case YAML::NodeType::Scalar:
        return QString::fromStdString(node.Scalar());
    default:
        return QJsonValue();
    }
}

// The same for a JSON value: what it reads as once written as YAML.
QJsonValue canonical(const QJsonValue& value)
{
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            *it = canonical(it.value());
        return object;
    }
    if (value.isArray()) {
        QJsonArray array;
        for (const QJsonValue& element : value.toArray())
            array.append(canonical(element));
        return array;
    }
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    return value;
}

// `root` without the server `name`, and without the servers mapping when that leaves it empty:
// what an edit of that server must leave as it was.
QJsonObject withoutServer(const YAML::Node& root, const QString& serversKey, const QString& name)
{
    QJsonObject object = canonical(root).toObject();
    const QJsonValue servers = object.value(serversKey);
    if (servers.isObject()) {
        QJsonObject rest = servers.toObject();
        rest.remove(name);
        if (rest.isEmpty())
            object.remove(serversKey);
        else
            object.insert(serversKey, rest);
    } else if (servers.isNull()) {
        object.remove(serversKey);
    }
    return object;
}

// The start of line `line` (0-based) of `text`.
qsizetype startOfLine(const QByteArray& text, qsizetype line)
{
    qsizetype start = 0;
    for (qsizetype n = 0; n < line && start < text.size(); ++n)
        start = TextLines::nextLineStart(text, start);
    return start;
}

// The end (before its line ending) of the last line of the block whose key starts the line at
// `keyLine` in `column`: the lines after it indented deeper. Blank lines and comments no deeper
// than the key, after its last line, belong to what follows.
qsizetype blockEnd(const QByteArray& text, qsizetype keyLine, qsizetype column)
{
    qsizetype last = keyLine;
    for (qsizetype at = TextLines::nextLineStart(text, keyLine); at < text.size();
         at = TextLines::nextLineStart(text, at)) {
        if (TextLines::isBlank(text, at))
            continue;
        const qsizetype indent = TextLines::indentOf(text, at);
        if (indent <= column && text.at(at + indent) == '#')
            continue;
        if (indent <= column)
            break;
        last = at;
    }
    return TextLines::lineEnd(text, last);
}

// Where a key's line starts, when the key starts its line (as a block mapping's keys do).
std::optional<qsizetype> keyLineOf(const QByteArray& text, const YAML::Node& key)
{
    const qsizetype start = startOfLine(text, key.Mark().line);
    if (key.Mark().line < 0 || TextLines::indentOf(text, start) != key.Mark().column)
        return std::nullopt;
    return start;
}

QByteArray yamlKey(const QString& name)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_-]*$"));
    static const QStringList special{
        QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("yes"),
        QStringLiteral("no"),   QStringLiteral("on"),    QStringLiteral("off"),
        QStringLiteral("null"), QStringLiteral("y"),     QStringLiteral("n")};
    if (plain.match(name).hasMatch() && !special.contains(name.toLower()))
        return name.toUtf8();
    return JsonTextWriter::string(name);
}

// A value on the line of its key: JSON's notation, which YAML reads the same.
QByteArray flowValue(const QJsonValue& value)
{
    if (value.isObject() || value.isArray()) {
        return value.isObject() ? QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact)
                                : QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    }
    return JsonTextWriter::value(value, JsonTextWriter::Style(), {});
}

// `key: value` at `indent`, a non-empty mapping as a block one level deeper.
void appendMember(QByteArrayList& lines, const QByteArray& indent, const QByteArray& unit,
                  const QString& key, const QJsonValue& value)
{
    if (value.isObject() && !value.toObject().isEmpty()) {
        lines << indent + yamlKey(key) + ':';
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            appendMember(lines, indent + unit, unit, it.key(), it.value());
        return;
    }
    lines << indent + yamlKey(key) + ": " + flowValue(value);
}

QByteArray entryText(const QString& name, const JsonMembers& value, qsizetype indent,
                     qsizetype unit, const QByteArray& newline)
{
    const QByteArray unitText(unit, ' ');
    const QByteArray indentText(indent, ' ');
    QByteArrayList lines{QByteArray(indentText + yamlKey(name) + ':')};
    for (const auto& [key, memberValue] : value)
        appendMember(lines, indentText + unitText, unitText, key, memberValue);
    return lines.join(newline);
}

// Removes the lines [line, end) (end before its line ending) with the line ending before them,
// or after them when they start the text.
QByteArray withoutLines(const QByteArray& text, qsizetype line, qsizetype end)
{
    const qsizetype previous = TextLines::previousLineStart(text, line);
    if (previous < 0)
        return text.mid(TextLines::nextLineStart(text, end));
    return text.left(TextLines::lineEnd(text, previous)) + text.mid(end);
}

} // namespace

YamlConfigFormat::YamlConfigFormat(QString serversKey)
    : m_serversKey(std::move(serversKey))
{}

ClientConfigChange YamlConfigFormat::merge(const QByteArray& text, const QString& name,
                                           const JsonMembers& value) const
{
    ClientConfigChange change;
    change.text = text;
    const bool blank = text.trimmed().isEmpty();
    const Expected<YAML::Node> before = blank ? Expected<YAML::Node>(YAML::Node()) : load(text);
    const Found serversFound =
        before ? memberOf(*before, m_serversKey) : Unexpected(before.error());
    if (!serversFound) {
        change.error = serversFound.error();
        return change;
    }
    const std::optional<YamlMember>& servers = *serversFound;
    if (servers && !servers->value.IsMap() && !servers->value.IsNull()) {
        change.error = QStringLiteral("\"%1\" is not a mapping").arg(m_serversKey);
        return change;
    }
    const Found existingFound = servers ? memberOf(servers->value, name) : kNone;
    if (!existingFound) {
        change.error = existingFound.error();
        return change;
    }
    const std::optional<YamlMember>& existing = *existingFound;
    const QJsonValue expected = canonical(QJsonValue(JsonTextWriter::toObject(value)));
    if (existing && canonical(existing->value) == expected) {
        change.action = Action::Unchanged;
        return change;
    }

    const QByteArray newline = TextLines::newlineOf(text);
    const auto notByLines = [&change](const QString& what) {
        change.error = QStringLiteral("%1 is written in a way Code Sandbox does not edit (flow "
                                      "style); change it by hand")
                           .arg(what);
        return change;
    };
    QByteArray document;
    if (existing) {
        const std::optional<qsizetype> line = keyLineOf(text, existing->key);
        if (!line)
            return notByLines(QStringLiteral("\"%1\"").arg(name));
        const qsizetype column = existing->key.Mark().column;
        const qsizetype unit = std::max<qsizetype>(column - servers->key.Mark().column, 2);
        document = text.left(*line) + entryText(name, value, column, unit, newline) +
                   text.mid(blockEnd(text, *line, column));
        change.action = Action::Replaced;
    } else if (servers) {
        const std::optional<qsizetype> line = keyLineOf(text, servers->key);
        if (!line)
            return notByLines(QStringLiteral("\"%1\"").arg(m_serversKey));
        const qsizetype column = servers->key.Mark().column;
        if (servers->value.IsMap() && servers->value.Style() == YAML::EmitterStyle::Flow) {
            // "extensions: {}" becomes a block; one with entries is not edited.
            static const QRegularExpression emptyFlow(QStringLiteral(":\\s*\\{\\s*\\}"));
            const QString keyLine =
                QString::fromUtf8(text.mid(*line, TextLines::lineEnd(text, *line) - *line));
            const QRegularExpressionMatch match = emptyFlow.match(keyLine, column);
            if (servers->value.size() > 0 || !match.hasMatch())
                return notByLines(QStringLiteral("\"%1\"").arg(m_serversKey));
            const qsizetype from =
                *line + QStringView(keyLine).left(match.capturedStart() + 1).toUtf8().size();
            const qsizetype to =
                *line + QStringView(keyLine).left(match.capturedEnd()).toUtf8().size();
            document = text.left(from) + newline + entryText(name, value, column + 2, 2, newline) +
                       text.mid(to);
        } else {
            qsizetype indent = column + 2;
            if (servers->value.IsMap() && servers->value.size() > 0)
                indent = servers->value.begin()->first.Mark().column;
            const qsizetype end = blockEnd(text, *line, column);
            document =
                text.left(end) + newline +
                entryText(name, value, indent, std::max<qsizetype>(indent - column, 2), newline) +
                text.mid(end);
        }
        change.action = Action::Added;
    } else {
        const QByteArray block =
            yamlKey(m_serversKey) + ':' + newline + entryText(name, value, 2, 2, newline);
        if (blank)
            document = block + newline;
        else if (text.endsWith('\n'))
            document = text + block + newline;
        else
            document = text + newline + block;
        change.action = Action::Added;
    }

    // A check of what was written: anything it cannot read is a mismatch.
    const Expected<YAML::Node> after = load(document);
    const std::optional<YamlMember> serversAfter =
        after ? memberOf(*after, m_serversKey).valueOr(std::nullopt) : std::nullopt;
    const std::optional<YamlMember> written =
        serversAfter ? memberOf(serversAfter->value, name).valueOr(std::nullopt) : std::nullopt;
    return outcome(text, change.action, document,
                   written && canonical(written->value) == expected &&
                       withoutServer(*before, m_serversKey, name) ==
                           withoutServer(*after, m_serversKey, name));
}

ClientConfigChange YamlConfigFormat::remove(const QByteArray& text, const QString& name) const
{
    if (text.trimmed().isEmpty())
        return notFound(text);
    const auto failed = [&text](const QString& error) {
        return failure(text, error);
    };
    const Expected<YAML::Node> before = load(text);
    if (!before)
        return failed(before.error());
    const Found serversFound = memberOf(*before, m_serversKey);
    if (!serversFound)
        return failed(serversFound.error());
    const std::optional<YamlMember>& servers = *serversFound;
    const Found existingFound = servers ? memberOf(servers->value, name) : kNone;
    if (!existingFound)
        return failed(existingFound.error());
    const std::optional<YamlMember>& existing = *existingFound;
    if (!existing)
        return notFound(text);
    const std::optional<qsizetype> line = keyLineOf(text, existing->key);
    const std::optional<qsizetype> serversLine = keyLineOf(text, servers->key);
    if (!line || !serversLine) {
        return failed(QStringLiteral("\"%1\" is written in a way Code Sandbox does not edit "
                                     "(flow style); remove it by hand")
                          .arg(name));
    }
    QByteArray document =
        withoutLines(text, *line, blockEnd(text, *line, existing->key.Mark().column));
    if (servers->value.size() == 1) {
        // The mapping is left empty: it goes when it is the file's last key (where an install
        // appends it), else it stays as "{}".
        const qsizetype column = servers->key.Mark().column;
        if (servers->last) {
            document =
                withoutLines(document, *serversLine, blockEnd(document, *serversLine, column));
        } else {
            const qsizetype lineEnd = TextLines::lineEnd(document, *serversLine);
            const qsizetype colon = document.indexOf(':', *serversLine + column);
            if (colon < 0 || colon >= lineEnd)
                return failed(internalError());
            document.insert(colon + 1, " {}");
        }
    }

    const Expected<YAML::Node> after = load(document);
    const std::optional<YamlMember> serversAfter =
        after ? memberOf(*after, m_serversKey).valueOr(std::nullopt) : std::nullopt;
    return outcome(
        text, Action::Removed, document,
        after && !(serversAfter && memberOf(serversAfter->value, name).valueOr(std::nullopt)) &&
            withoutServer(*before, m_serversKey, name) ==
                withoutServer(*after, m_serversKey, name));
}

Expected<QMap<QString, QJsonObject>> YamlConfigFormat::servers(const QByteArray& text) const
{
    QMap<QString, QJsonObject> found;
    if (text.trimmed().isEmpty())
        return found;
    const Expected<YAML::Node> root = load(text);
    if (!root)
        return Unexpected(root.error());
    const Found serversFound = memberOf(*root, m_serversKey);
    if (!serversFound)
        return Unexpected(serversFound.error());
    const std::optional<YamlMember>& servers = *serversFound;
    if (servers && servers->value.IsMap()) {
        for (auto it = servers->value.begin(); it != servers->value.end(); ++it)
            found.insert(QString::fromStdString(it->first.Scalar()),
                         canonical(it->second).toObject());
    }
    return found;
}

} // namespace csm
