#include "clients/TomlConfigFormat.h"

#include "clients/TextLines.h"

#include <QJsonArray>

#include <sstream>
#include <string>
#include <toml++/toml.h>
#include <vector>

namespace csm {

namespace {

using Action = ClientConfigChange::Action;

std::string_view view(const QByteArray& bytes)
{
    return {bytes.constData(), static_cast<size_t>(bytes.size())};
}

QString fromView(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::string toStd(const QString& text)
{
    return text.toStdString();
}

// The document `text` holds (an empty one for a blank text), or why it is not TOML.
Expected<toml::table> parse(const QByteArray& text)
{
    try {
        return toml::table(toml::parse(view(text)));
    } catch (const toml::parse_error& problem) {
        return Unexpected(QStringLiteral("not valid TOML (line %1, column %2: %3)")
                              .arg(problem.source().begin.line)
                              .arg(problem.source().begin.column)
                              .arg(fromView(problem.description())));
    }
}

QJsonValue toJson(const toml::node& node)
{
    switch (node.type()) {
    case toml::node_type::table: {
        QJsonObject object;
        for (auto&& [key, value] : *node.as_table())
            object.insert(fromView(key.str()), toJson(value));
        return object;
    }
    case toml::node_type::array: {
        QJsonArray array;
        for (const toml::node& element : *node.as_array())
            array.append(toJson(element));
        return array;
    }
    case toml::node_type::string:
        return fromView(node.as_string()->get());
    case toml::node_type::integer:
        return static_cast<double>(node.as_integer()->get());
    case toml::node_type::floating_point:
        return node.as_floating_point()->get();
    case toml::node_type::boolean:
        return node.as_boolean()->get();
    default: { // dates and times, as written
        std::ostringstream written;
        node.visit([&written](auto&& value) { written << value; });
        return QString::fromStdString(written.str());
    }
    }
}

// `document` without the server `name` (and without the servers table, when that leaves it
// empty): what an edit of that server must leave exactly as it was.
toml::table withoutServer(toml::table document, const QString& serversKey, const QString& name)
{
    const std::string key = toStd(serversKey);
    if (toml::table* servers = document[key].as_table()) {
        servers->erase(toStd(name));
        if (servers->empty())
            document.erase(key);
    }
    return document;
}

// A [table] or [[array]] header of the text: the start of its line and the key between its
// brackets.
struct Header
{
    qsizetype lineStart = 0;
    QByteArray key;
};

// Skips the string that starts at `pos` (basic or literal, on one line or several); returns the
// position just after it. The text is valid TOML: toml++ read it first.
qsizetype skipString(const QByteArray& text, qsizetype pos)
{
    const char quote = text.at(pos);
    const bool basic = quote == '"';
    const QByteArray triple(3, quote);
    if (text.mid(pos, 3) == triple) {
        qsizetype at = pos + 3;
        for (;;) {
            const qsizetype close = text.indexOf(triple, at);
            if (close < 0)
                return text.size();
            // An escaped quote does not close a basic string: count the backslashes before it.
            qsizetype backslashes = 0;
            while (basic && close - backslashes - 1 >= at &&
                   text.at(close - backslashes - 1) == '\\')
                ++backslashes;
            if (backslashes % 2 == 1) {
                at = close + 1;
                continue;
            }
            qsizetype end = close + 3;
            // Up to two quotes of the content may touch the closing three.
            for (int extra = 0; extra < 2 && end < text.size() && text.at(end) == quote; ++extra)
                ++end;
            return end;
        }
    }
    for (qsizetype at = pos + 1; at < text.size(); ++at) {
        if (basic && text.at(at) == '\\') {
            ++at;
            continue;
        }
        if (text.at(at) == quote || text.at(at) == '\n')
            return at + 1;
    }
    return text.size();
}

// Every table header of `text`, in order: a '[' that starts a line outside any value.
std::vector<Header> headersOf(const QByteArray& text)
{
    std::vector<Header> headers;
    int depth = 0; // open arrays and inline tables of a value
    bool lineStart = true;
    qsizetype pos = 0;
    while (pos < text.size()) {
        const char c = text.at(pos);
        if (c == '\n') {
            lineStart = true;
            ++pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ++pos;
        } else if (c == '#') {
            pos = TextLines::lineEnd(text, pos);
        } else if (c == '[' && depth == 0 && lineStart) {
            Header header{TextLines::lineStart(text, pos), {}};
            const bool array = pos + 1 < text.size() && text.at(pos + 1) == '[';
            qsizetype at = pos + (array ? 2 : 1);
            const qsizetype keyBegin = at;
            while (at < text.size() && text.at(at) != ']' && text.at(at) != '\n')
                at = text.at(at) == '"' || text.at(at) == '\'' ? skipString(text, at) : at + 1;
            header.key = text.mid(keyBegin, at - keyBegin);
            headers.push_back(header);
            pos = TextLines::lineEnd(text, at);
        } else if (c == '"' || c == '\'') {
            lineStart = false;
            pos = skipString(text, pos);
        } else {
            lineStart = false;
            if (c == '[' || c == '{')
                ++depth;
            else if ((c == ']' || c == '}') && depth > 0)
                --depth;
            ++pos;
        }
    }
    return headers;
}

// The keys a header names ("a.\"b.c\"" is a, b.c), read by toml++ itself.
QStringList pathOf(const QByteArray& headerKey)
{
    QStringList path;
    const Expected<toml::table> table = parse("[" + headerKey + "]\n");
    const toml::table* at = table ? &*table : nullptr;
    while (at && at->size() == 1) {
        const auto entry = at->begin();
        path << fromView(entry->first.str());
        at = entry->second.as_table();
    }
    return path;
}

// Where the tables of one server are: from its header's line to the next header of anything
// else (or the end of the text).
struct Span
{
    qsizetype begin = -1;
    qsizetype end = -1;
    bool split = false; // its sub-tables do not all follow it
};

Span spanOf(const QByteArray& text, const QString& serversKey, const QString& name)
{
    Span span;
    for (const Header& header : headersOf(text)) {
        const QStringList path = pathOf(header.key);
        const bool ours = path.size() >= 2 && path.at(0) == serversKey && path.at(1) == name;
        if (ours && span.begin < 0)
            span.begin = header.lineStart;
        else if (ours && span.end >= 0)
            span.split = true;
        else if (!ours && span.begin >= 0 && span.end < 0)
            span.end = header.lineStart;
    }
    if (span.begin >= 0 && span.end < 0)
        span.end = text.size();
    return span;
}

// The end (before its line ending) of the last line in [begin, end) that holds more than
// whitespace or a comment: comments and blank lines before the next table are that table's.
qsizetype contentEnd(const QByteArray& text, qsizetype begin, qsizetype end)
{
    qsizetype start = end > begin && text.at(end - 1) != '\n'
                          ? TextLines::lineStart(text, end)
                          : TextLines::previousLineStart(text, end);
    while (start > begin && TextLines::isBlankOrComment(text, start, '#'))
        start = TextLines::previousLineStart(text, start);
    return TextLines::lineEnd(text, start);
}

} // namespace

TomlConfigFormat::TomlConfigFormat(QString serversKey)
    : m_serversKey(std::move(serversKey))
{}

QByteArray TomlConfigFormat::key(const QString& name)
{
    bool bare = !name.isEmpty();
    for (const QChar c : name) {
        bare = bare && c.unicode() < 128 &&
               (c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-'));
    }
    return bare ? name.toUtf8() : value(QJsonValue(name));
}

QByteArray TomlConfigFormat::value(const QJsonValue& value)
{
    if (value.isBool())
        return value.toBool() ? "true" : "false";
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (number == static_cast<double>(static_cast<qint64>(number)))
            return QByteArray::number(static_cast<qint64>(number));
        return QByteArray::number(number, 'g', 17);
    }
    if (value.isArray()) {
        QByteArrayList elements;
        for (const QJsonValue& element : value.toArray())
            elements << TomlConfigFormat::value(element);
        return '[' + elements.join(", ") + ']';
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        if (object.isEmpty())
            return "{}";
        QByteArrayList members;
        for (auto it = object.begin(); it != object.end(); ++it)
            members << key(it.key()) + " = " + TomlConfigFormat::value(it.value());
        return "{ " + members.join(", ") + " }";
    }
    // A basic string: quotes, backslashes and control characters escaped.
    QByteArray quoted("\"");
    for (const char c : value.toString().toUtf8()) {
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\b':
            quoted += "\\b";
            break;
        case '\t':
            quoted += "\\t";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\f':
            quoted += "\\f";
            break;
        case '\r':
            quoted += "\\r";
            break;
        default:
            if ((c >= 0 && c < 0x20) || c == 0x7f)
                quoted += QByteArray("\\u00") + QByteArray::number(c, 16).rightJustified(2, '0');
            else
                quoted += c;
        }
    }
    return quoted + '"';
}

ClientConfigChange TomlConfigFormat::merge(const QByteArray& text, const QString& name,
                                           const JsonMembers& value) const
{
    ClientConfigChange change;
    change.text = text;
    const bool blank = text.trimmed().isEmpty();
    const Expected<toml::table> before = blank ? Expected<toml::table>(toml::table()) : parse(text);
    if (!before) {
        change.error = before.error();
        return change;
    }
    const toml::node* servers = before->get(toStd(m_serversKey));
    if (servers && !servers->is_table()) {
        change.error = QStringLiteral("%1 is not a table").arg(m_serversKey);
        return change;
    }
    const toml::node* existing = servers ? servers->as_table()->get(toStd(name)) : nullptr;
    const QJsonObject expected = JsonTextWriter::toObject(value);
    if (existing && existing->is_table() && toJson(*existing).toObject() == expected) {
        change.action = Action::Unchanged;
        return change;
    }

    const QByteArray newline = TextLines::newlineOf(text);
    QByteArrayList lines{QByteArray('[' + key(m_serversKey) + '.' + key(name) + ']')};
    for (const auto& [member, memberValue] : value)
        lines << key(member) + " = " + TomlConfigFormat::value(memberValue);
    const QByteArray table = lines.join(newline);

    QByteArray document;
    if (existing) {
        const Span span = spanOf(text, m_serversKey, name);
        if (span.begin < 0 || span.split) {
            change.error = QStringLiteral("the server \"%1\" is written %2, which Code Sandbox "
                                          "does not edit; change or remove it by hand")
                               .arg(name, span.split ? QStringLiteral("in parts apart")
                                                     : QStringLiteral("inline"));
            return change;
        }
        document = text.left(span.begin) + table + text.mid(contentEnd(text, span.begin, span.end));
        change.action = Action::Replaced;
    } else if (servers && servers->as_table()->is_inline()) {
        change.error = QStringLiteral("%1 is an inline table, which cannot take another server "
                                      "as a table of its own; add it by hand")
                           .arg(m_serversKey);
        return change;
    } else {
        // After a blank line; a file without a final line ending stays without one.
        if (blank)
            document = table + newline;
        else if (text.endsWith('\n'))
            document = text + newline + table + newline;
        else
            document = text + newline + newline + table;
        change.action = Action::Added;
    }

    const Expected<toml::table> after = parse(document);
    const toml::table* serversAfter =
        after ? after->get_as<toml::table>(toStd(m_serversKey)) : nullptr;
    const toml::node* written = serversAfter ? serversAfter->get(toStd(name)) : nullptr;
    return outcome(text, change.action, document,
                   written && toJson(*written).toObject() == expected &&
                       withoutServer(*before, m_serversKey, name) ==
                           withoutServer(*after, m_serversKey, name));
}

ClientConfigChange TomlConfigFormat::remove(const QByteArray& text, const QString& name) const
{
    if (text.trimmed().isEmpty())
        return notFound(text);
    const auto failed = [&text](const QString& error) {
        return failure(text, error);
    };
    const Expected<toml::table> before = parse(text);
    if (!before)
        return failed(before.error());
    const toml::table* servers = before->get_as<toml::table>(toStd(m_serversKey));
    if (!servers || !servers->get(toStd(name)))
        return notFound(text);
    const Span span = spanOf(text, m_serversKey, name);
    if (span.begin < 0 || span.split) {
        return failed(QStringLiteral("the server \"%1\" is written %2, which Code Sandbox does "
                                     "not edit; remove it by hand")
                          .arg(name, span.split ? QStringLiteral("in parts apart")
                                                : QStringLiteral("inline")));
    }
    const qsizetype end = contentEnd(text, span.begin, span.end);
    qsizetype from = span.begin;
    qsizetype to = TextLines::nextLineStart(text, end);
    if (text.mid(to).trimmed().isEmpty()) {
        // The file's last table: the blank line an install puts before it goes too, and
        // when the table ended the file without a line ending, the one before that blank line.
        const qsizetype previous = TextLines::previousLineStart(text, from);
        if (previous >= 0 && TextLines::isBlank(text, previous)) {
            from = previous;
            if (end == text.size() && from > 0)
                from = TextLines::lineEnd(text, TextLines::lineStart(text, from - 1));
        }
    } else if (TextLines::isBlank(text, to)) {
        to = TextLines::nextLineStart(text, to); // the blank line that parted it from the next
    }
    const QByteArray document = text.left(from) + text.mid(to);

    const Expected<toml::table> after = parse(document);
    const toml::table* left = after ? after->get_as<toml::table>(toStd(m_serversKey)) : nullptr;
    return outcome(text, Action::Removed, document,
                   after && !(left && left->get(toStd(name))) &&
                       withoutServer(*before, m_serversKey, name) ==
                           withoutServer(*after, m_serversKey, name));
}

Expected<QMap<QString, QJsonObject>> TomlConfigFormat::servers(const QByteArray& text) const
{
    QMap<QString, QJsonObject> found;
    if (text.trimmed().isEmpty())
        return found;
    const Expected<toml::table> document = parse(text);
    if (!document)
        return Unexpected(document.error());
    if (const toml::table* servers = document->get_as<toml::table>(toStd(m_serversKey))) {
        for (auto&& [name, value] : *servers) {
            if (value.is_table())
                found.insert(fromView(name.str()), toJson(value).toObject());
        }
    }
    return found;
}

} // namespace csm
