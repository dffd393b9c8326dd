#include "clients/JsonConfigFormat.h"

#include "clients/JsonTextScanner.h"
#include "clients/TextLines.h"

#include <QJsonDocument>

#include <functional>

namespace csm {

namespace {

using Member = JsonTextNode::Member;
using Style = JsonTextWriter::Style;
// Writes a member's value for the line indentation it starts on.
using Render = std::function<QByteArray(const QByteArray& indent, const Style& style)>;
using Action = ClientConfigChange::Action;

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

bool isSpace(char c)
{
    return isBlank(c) || c == '\n' || c == '\r';
}

// The spaces and tabs the line holding `pos` starts with.
QByteArray lineIndent(const QByteArray& text, qsizetype pos)
{
    const qsizetype start = TextLines::lineStart(text, pos);
    qsizetype end = start;
    while (end < text.size() && isBlank(text.at(end)))
        ++end;
    return text.mid(start, end - start);
}

// Whether only spaces and tabs come before `pos` on its line.
bool startsItsLine(const QByteArray& text, qsizetype pos)
{
    for (qsizetype i = TextLines::lineStart(text, pos); i < pos; ++i) {
        if (!isBlank(text.at(i)))
            return false;
    }
    return true;
}

bool onlyWhitespace(const QByteArray& text, qsizetype from, qsizetype to)
{
    for (qsizetype i = from; i < to; ++i) {
        if (!isSpace(text.at(i)))
            return false;
    }
    return true;
}

// The end of the last comment in the gap [from, to) between two tokens, or `from` when the
// gap is whitespace only (whatever is not whitespace there is a comment).
qsizetype endOfLastComment(const QByteArray& text, qsizetype from, qsizetype to)
{
    while (to > from && isSpace(text.at(to - 1)))
        --to;
    return to;
}

// The leading whitespace of the first indented line: one level of the file's indentation.
QByteArray indentUnitOf(const QByteArray& text)
{
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        qsizetype indentEnd = start;
        while (indentEnd < end && isBlank(text.at(indentEnd)))
            ++indentEnd;
        if (indentEnd > start && indentEnd < end && !isSpace(text.at(indentEnd)))
            return text.mid(start, indentEnd - start);
        start = end + 1;
    }
    return "  "; // what the clients' documentation uses
}

// The text between a member's name and value when it is a plain ':' with spaces around.
QByteArray colonOf(const QByteArray& text, const Member& member)
{
    const QByteArray gap = text.mid(member.keyEnd, member.value.begin - member.keyEnd);
    if (gap.count(':') != 1)
        return {};
    for (const char c : gap) {
        if (c != ':' && !isBlank(c))
            return {};
    }
    return gap;
}

Style documentStyle(const QByteArray& text, const JsonTextNode& root)
{
    Style style;
    style.newline = TextLines::newlineOf(text);
    style.indentUnit = indentUnitOf(text);
    // A file written on one line stays so; an empty one grows over several lines.
    style.multiline =
        root.members.empty() || text.mid(root.begin, root.end - root.begin).contains('\n');
    if (!root.members.empty()) {
        if (const QByteArray colon = colonOf(text, root.members.back()); !colon.isEmpty())
            style.colon = colon;
    }
    return style;
}

// How a member goes into `object`: the object's own layout (on one line or several, the
// indentation of its members) where it has members to learn from, else the document's.
struct Placement
{
    Style style;
    QByteArray objectIndent;
    QByteArray memberIndent;
};

Placement placementIn(const QByteArray& text, const JsonTextNode& object, const Style& document)
{
    Placement placement{document, lineIndent(text, object.begin), {}};
    placement.memberIndent = placement.objectIndent + document.indentUnit;
    if (object.members.empty())
        return placement;
    const Member& first = object.members.front();
    const Member& last = object.members.back();
    placement.style.multiline =
        text.mid(object.begin + 1, first.keyBegin - object.begin - 1).contains('\n');
    if (const QByteArray colon = colonOf(text, last); !colon.isEmpty())
        placement.style.colon = colon;
    if (!placement.style.multiline)
        return placement;
    const Member* model = startsItsLine(text, last.keyBegin)    ? &last
                          : startsItsLine(text, first.keyBegin) ? &first
                                                                : nullptr;
    if (!model)
        return placement;
    placement.memberIndent = lineIndent(text, model->keyBegin);
    if (placement.memberIndent.startsWith(placement.objectIndent) &&
        placement.memberIndent.size() > placement.objectIndent.size())
        placement.style.indentUnit = placement.memberIndent.mid(placement.objectIndent.size());
    return placement;
}

QByteArray spliced(const QByteArray& text, qsizetype from, qsizetype to, const QByteArray& with)
{
    return text.left(from) + with + text.mid(to);
}

// `text` with the member `name` added at the end of `object`, in one piece of text put in one
// place, so the rest of the file is untouched.
QByteArray withMemberAdded(const QByteArray& text, const JsonTextNode& object, const QString& name,
                           const Render& render, const Style& document)
{
    const Placement at = placementIn(text, object, document);
    const Style& style = at.style;
    const QByteArray inlineSpace = style.colon.endsWith(' ') ? QByteArray(" ") : QByteArray();
    const auto member = [&](const QByteArray& indent) {
        return JsonTextWriter::member(name, render(indent, style), style);
    };
    if (object.members.empty()) {
        if (!style.multiline)
            return spliced(text, object.close(), object.close(), member(at.objectIndent));
        // "{}" gets the member on a line of its own and "}" on the next; an object already
        // over several lines keeps its line end and closing line.
        const qsizetype tail = endOfLastComment(text, object.begin + 1, object.close());
        const qsizetype newline = text.indexOf('\n', tail);
        const QByteArray added = style.newline + at.memberIndent + member(at.memberIndent);
        if (newline >= 0 && newline < object.close()) {
            const qsizetype insertAt =
                newline > tail && text.at(newline - 1) == '\r' ? newline - 1 : newline;
            return spliced(text, insertAt, insertAt, added);
        }
        return spliced(text, object.close(), object.close(),
                       added + style.newline + at.objectIndent);
    }
    // After the last value, before anything that follows it (a comment on the same line ends
    // up after the new member: still valid, and the rest stays in one piece).
    const Member& last = object.members.back();
    const QByteArray lead = style.multiline ? style.newline + at.memberIndent : inlineSpace;
    if (last.comma >= 0) // JSONC with a trailing comma: keep that style
        return spliced(text, last.comma + 1, last.comma + 1, lead + member(at.memberIndent) + ',');
    return spliced(text, last.value.end, last.value.end, ',' + lead + member(at.memberIndent));
}

QByteArray withValueReplaced(const QByteArray& text, const JsonTextNode& object,
                             const Member& member, const Render& render, const Style& document)
{
    const Placement at = placementIn(text, object, document);
    const QByteArray indent =
        startsItsLine(text, member.keyBegin) ? lineIndent(text, member.keyBegin) : at.memberIndent;
    return spliced(text, member.value.begin, member.value.end, render(indent, at.style));
}

// `text` without the member `index` of `object`: the member, the whitespace before it and one
// comma. Comments before the member's name stay.
QByteArray withMemberRemoved(const QByteArray& text, const JsonTextNode& object, size_t index)
{
    const Member& member = object.members.at(index);
    const qsizetype from = endOfLastComment(text, member.leadBegin, member.keyBegin);
    if (member.comma >= 0)
        return spliced(text, from, member.comma + 1, {});
    QByteArray result = spliced(text, from, member.value.end, {});
    if (index > 0) { // the last member: the comma before it goes
        const qsizetype comma = object.members.at(index - 1).comma;
        result = spliced(result, comma, comma + 1, {});
    }
    return result;
}

// The member `key` of `object` (nullptr when there is none). Fails when there are several,
// since clients differ in which one they take.
Expected<const Member*> uniqueMember(const JsonTextNode& object, const QString& key,
                                     const QString& where, size_t* index = nullptr)
{
    const Member* found = nullptr;
    for (size_t i = 0; i < object.members.size(); ++i) {
        if (object.members[i].key != key)
            continue;
        if (found) {
            return Unexpected(QStringLiteral("\"%1\" appears more than once in %2, so which one "
                                             "counts is unclear; fix that by hand")
                                  .arg(key, where));
        }
        found = &object.members[i];
        if (index)
            *index = i;
    }
    return found;
}

} // namespace

JsonConfigFormat::JsonConfigFormat(QString serversKey, JsonTextScanner::Dialect dialect,
                                   QString clientName)
    : m_serversKey(std::move(serversKey))
    , m_dialect(dialect)
    , m_clientName(std::move(clientName))
{}

// The document's root object, or why the client would not read it.
Expected<JsonTextNode> JsonConfigFormat::parseRoot(const QByteArray& text) const
{
    const JsonTextScanner::Dialect dialect = m_dialect;
    JsonTextScanner::Error problem;
    std::optional<JsonTextNode> root = JsonTextScanner::parse(text, dialect, &problem);
    if (!root) {
        return Unexpected(QStringLiteral("not valid %1 as %2 reads it (%3)")
                              .arg(dialect.comments ? QStringLiteral("JSON with comments")
                                                    : QStringLiteral("JSON"),
                                   m_clientName, problem.toString()));
    }
    if (root->kind != JsonTextNode::Kind::Object)
        return Unexpected(QStringLiteral("the file holds a JSON value that is not an object"));
    return *std::move(root);
}

// Whether `text` is what the edit meant: readable by the client, with the server as expected
// (or, with no `expected`, without it). Guards against a mistake here ever reaching a file.
bool JsonConfigFormat::checksOut(const QByteArray& text, const QString& name,
                                 const QJsonObject* expected) const
{
    const Expected<JsonTextNode> root = parseRoot(text);
    if (!root)
        return false;
    const Expected<const Member*> servers = uniqueMember(*root, m_serversKey, {});
    if (!servers)
        return false;
    if (!*servers || (*servers)->value.kind != JsonTextNode::Kind::Object)
        return expected == nullptr;
    const Expected<const Member*> found = uniqueMember((*servers)->value, name, {});
    if (!found)
        return false;
    const Member* entry = *found;
    if (!expected)
        return entry == nullptr;
    if (!entry)
        return false;
    const QByteArray valueText =
        text.mid(entry->value.begin, entry->value.end - entry->value.begin);
    const QJsonDocument value = QJsonDocument::fromJson(valueText);
    return value.isObject() && value.object() == *expected;
}

ClientConfigChange JsonConfigFormat::merge(const QByteArray& text, const QString& name,
                                           const JsonMembers& value) const
{
    ClientConfigChange change;
    change.text = text;
    const bool blank = text.trimmed().isEmpty();
    QByteArray document = blank ? QByteArray("{}") : text;
    Expected<JsonTextNode> root = parseRoot(document);
    if (!root) {
        change.error = root.error();
        return change;
    }
    const Style style = documentStyle(document, *root);
    const QString& serversKey = m_serversKey;
    const QString serversPlace = QStringLiteral("\"%1\"").arg(serversKey);
    const QJsonObject expected = JsonTextWriter::toObject(value);
    const Render render = [&value](const QByteArray& indent, const Style& at) {
        return JsonTextWriter::object(value, at, indent);
    };

    const Expected<const Member*> inFile =
        uniqueMember(*root, serversKey, QStringLiteral("the file"));
    if (!inFile) {
        change.error = inFile.error();
        return change;
    }
    const Member* servers = *inFile;
    if (!servers) {
        const Render empty = [](const QByteArray&, const Style&) {
            return QByteArray("{}");
        };
        document = withMemberAdded(document, *root, serversKey, empty, style);
        root = parseRoot(document);
        servers = root ? uniqueMember(*root, serversKey, {}).valueOr(nullptr) : nullptr;
        if (!servers) {
            change.error = internalError();
            return change;
        }
    }
    if (servers->value.kind != JsonTextNode::Kind::Object) {
        change.error = QStringLiteral("%1 is not an object").arg(serversPlace);
        return change;
    }
    const Expected<const Member*> found = uniqueMember(servers->value, name, serversPlace);
    if (!found) {
        change.error = found.error();
        return change;
    }
    const Member* existing = *found;
    Action action = Action::Added;
    if (existing) {
        const QByteArray current =
            document.mid(existing->value.begin, existing->value.end - existing->value.begin);
        const QJsonDocument currentValue = QJsonDocument::fromJson(current);
        if (currentValue.isObject() && currentValue.object() == expected) {
            change.action = Action::Unchanged;
            return change;
        }
        document = withValueReplaced(document, servers->value, *existing, render, style);
        action = Action::Replaced;
    } else {
        document = withMemberAdded(document, servers->value, name, render, style);
    }
    if (blank)
        document += style.newline;
    return outcome(text, action, document, checksOut(document, name, &expected));
}

ClientConfigChange JsonConfigFormat::remove(const QByteArray& text, const QString& name) const
{
    if (text.trimmed().isEmpty())
        return notFound(text);
    const QString& serversKey = m_serversKey;
    const QString serversPlace = QStringLiteral("\"%1\"").arg(serversKey);
    const auto failed = [&text](const QString& error) {
        return failure(text, error);
    };

    Expected<JsonTextNode> root = parseRoot(text);
    if (!root)
        return failed(root.error());
    const Expected<const Member*> inFile =
        uniqueMember(*root, serversKey, QStringLiteral("the file"));
    if (!inFile)
        return failed(inFile.error());
    const Member* servers = *inFile;
    if (!servers || servers->value.kind != JsonTextNode::Kind::Object)
        return notFound(text);
    size_t index = 0;
    const Expected<const Member*> entry = uniqueMember(servers->value, name, serversPlace, &index);
    if (!entry)
        return failed(entry.error());
    if (!*entry)
        return notFound(text);

    QByteArray document = withMemberRemoved(text, servers->value, index);
    // What an install into an empty object started from: an object left with nothing but
    // whitespace in it becomes "{}", and the servers object goes when it is the root's last
    // member (where an install adds it).
    root = parseRoot(document);
    size_t serversIndex = 0;
    servers = root ? uniqueMember(*root, serversKey, {}, &serversIndex).valueOr(nullptr) : nullptr;
    if (!servers)
        return failed(internalError());
    const JsonTextNode& emptied = servers->value;
    if (emptied.members.empty() && onlyWhitespace(document, emptied.begin + 1, emptied.close())) {
        if (serversIndex + 1 < root->members.size()) {
            document = spliced(document, emptied.begin + 1, emptied.close(), {});
        } else {
            document = withMemberRemoved(document, *root, serversIndex);
            root = parseRoot(document);
            if (!root)
                return failed(internalError());
            if (root->members.empty() && onlyWhitespace(document, root->begin + 1, root->close()))
                document = spliced(document, root->begin + 1, root->close(), {});
        }
    }
    return outcome(text, Action::Removed, document, checksOut(document, name, nullptr));
}

Expected<QMap<QString, QJsonObject>> JsonConfigFormat::servers(const QByteArray& text) const
{
    QMap<QString, QJsonObject> found;
    if (text.trimmed().isEmpty())
        return found;
    const Expected<JsonTextNode> root = parseRoot(text);
    if (!root)
        return Unexpected(root.error());
    const Expected<const Member*> servers =
        uniqueMember(*root, m_serversKey, QStringLiteral("the file"));
    if (!servers)
        return Unexpected(servers.error());
    if (!*servers || (*servers)->value.kind != JsonTextNode::Kind::Object)
        return found;
    for (const Member& member : (*servers)->value.members) {
        const QByteArray valueText =
            text.mid(member.value.begin, member.value.end - member.value.begin);
        found.insert(member.key, QJsonDocument::fromJson(valueText).object());
    }
    return found;
}

} // namespace csm
