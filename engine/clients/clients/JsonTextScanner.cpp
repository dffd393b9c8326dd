#include "clients/JsonTextScanner.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace csm {

namespace {

// Deeper than any configuration file; keeps the recursion far from the stack's limit.
constexpr int kMaxDepth = 256;

bool isWhitespace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHexDigit(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The characters that may follow a backslash in a string, besides 'u'.
bool isSimpleEscape(char c)
{
    switch (c) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        return true;
    default:
        return false;
    }
}

class Parser
{
public:
    Parser(const QByteArray& text, JsonTextScanner::Dialect dialect)
        : m_text(text)
        , m_dialect(dialect)
    {}

    std::optional<JsonTextNode> run()
    {
        if (m_text.startsWith("\xEF\xBB\xBF"))
            m_pos = 3;
        if (!skipTrivia())
            return std::nullopt;
        if (atEnd()) {
            fail(QStringLiteral("the text holds no JSON value"));
            return std::nullopt;
        }
        JsonTextNode root;
        if (!value(root, 0) || !skipTrivia())
            return std::nullopt;
        if (!atEnd()) {
            fail(QStringLiteral("unexpected text after the JSON value"));
            return std::nullopt;
        }
        return root;
    }

    qsizetype errorOffset() const { return m_errorOffset; }
    QString errorMessage() const { return m_errorMessage; }

private:
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek(qsizetype ahead = 0) const
    {
        return m_pos + ahead < m_text.size() ? m_text.at(m_pos + ahead) : '\0';
    }

    bool fail(const QString& message) { return failAt(m_pos, message); }
    bool failAt(qsizetype offset, const QString& message)
    {
        m_errorOffset = offset;
        m_errorMessage = message;
        return false;
    }

    // Whitespace and, where the dialect allows them, comments.
    bool skipTrivia()
    {
        while (!atEnd()) {
            const char c = peek();
            if (isWhitespace(c)) {
                ++m_pos;
                continue;
            }
            if (c != '/' || (peek(1) != '/' && peek(1) != '*'))
                return true;
            if (!m_dialect.comments)
                return fail(QStringLiteral("a comment, which plain JSON does not allow"));
            if (peek(1) == '/') {
                while (!atEnd() && peek() != '\n' && peek() != '\r')
                    ++m_pos;
                continue;
            }
            const qsizetype close = m_text.indexOf("*/", m_pos + 2);
            if (close < 0)
                return fail(QStringLiteral("a /* comment that is never closed"));
            m_pos = close + 2;
        }
        return true;
    }

    bool value(JsonTextNode& node, int depth)
    {
        node.begin = m_pos;
        const char c = peek();
        if (c == '{') {
            node.kind = JsonTextNode::Kind::Object;
            return object(node, depth + 1);
        }
        if (c == '[') {
            node.kind = JsonTextNode::Kind::Array;
            return array(node, depth + 1);
        }
        if (c == '"') {
            node.kind = JsonTextNode::Kind::String;
            return string(node.end);
        }
        if (c == '-' || isDigit(c)) {
            node.kind = JsonTextNode::Kind::Number;
            return number(node.end);
        }
        for (const char* literal : {"true", "false", "null"}) {
            if (QByteArrayView(m_text).sliced(m_pos).startsWith(literal)) {
                node.kind = JsonTextNode::Kind::Literal;
                m_pos += qsizetype(qstrlen(literal));
                node.end = m_pos;
                return true;
            }
        }
        return fail(QStringLiteral("expected a value"));
    }

    bool object(JsonTextNode& node, int depth)
    {
        if (depth > kMaxDepth)
            return fail(QStringLiteral("values nested too deeply"));
        ++m_pos; // '{'
        qsizetype lead = m_pos;
        JsonTextNode::Member* previous = nullptr;
        while (true) {
            if (!skipTrivia())
                return false;
            if (peek() == '}') {
                if (previous && !m_dialect.trailingCommas)
                    return failAt(previous->comma,
                                  QStringLiteral("a comma after the last member, which plain "
                                                 "JSON does not allow"));
                ++m_pos;
                node.end = m_pos;
                return true;
            }
            if (peek() != '"')
                return fail(previous ? QStringLiteral("expected a member name in quotes")
                                     : QStringLiteral("expected a member name in quotes or '}'"));
            JsonTextNode::Member member;
            member.leadBegin = lead;
            member.keyBegin = m_pos;
            if (!string(member.keyEnd))
                return false;
            member.key = decodedString(member.keyBegin, member.keyEnd);
            if (!skipTrivia())
                return false;
            if (peek() != ':')
                return fail(QStringLiteral("expected ':' after the member name"));
            ++m_pos;
            if (!skipTrivia())
                return false;
            if (atEnd())
                return fail(QStringLiteral("expected a value"));
            if (!value(member.value, depth))
                return false;
            if (!skipTrivia())
                return false;
            node.members.push_back(std::move(member));
            previous = &node.members.back();
            if (peek() == ',') {
                previous->comma = m_pos;
                ++m_pos;
                lead = m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                node.end = m_pos;
                return true;
            }
            return fail(QStringLiteral("expected ',' or '}'"));
        }
    }

    bool array(JsonTextNode& node, int depth)
    {
        if (depth > kMaxDepth)
            return fail(QStringLiteral("values nested too deeply"));
        ++m_pos; // '['
        qsizetype lastComma = -1;
        while (true) {
            if (!skipTrivia())
                return false;
            if (peek() == ']') {
                if (lastComma >= 0 && !m_dialect.trailingCommas)
                    return failAt(lastComma, QStringLiteral("a comma after the last element, "
                                                            "which plain JSON does not allow"));
                ++m_pos;
                node.end = m_pos;
                return true;
            }
            if (atEnd())
                return fail(QStringLiteral("expected a value or ']'"));
            JsonTextNode element;
            if (!value(element, depth))
                return false;
            if (!skipTrivia())
                return false;
            if (peek() == ',') {
                lastComma = m_pos;
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                node.end = m_pos;
                return true;
            }
            return fail(QStringLiteral("expected ',' or ']'"));
        }
    }

    bool string(qsizetype& end)
    {
        const qsizetype open = m_pos;
        ++m_pos; // '"'
        while (!atEnd()) {
            const char c = peek();
            if (c == '"') {
                ++m_pos;
                end = m_pos;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20)
                return fail(QStringLiteral("a control character (such as a line break) inside "
                                           "a string"));
            if (c != '\\') {
                ++m_pos;
                continue;
            }
            const char escaped = peek(1);
            if (escaped == 'u') {
                for (int i = 2; i < 6; ++i) {
                    if (!isHexDigit(peek(i)))
                        return fail(QStringLiteral("a \\u escape needs four hex digits"));
                }
                m_pos += 6;
                continue;
            }
            if (!isSimpleEscape(escaped))
                return fail(QStringLiteral("an invalid escape sequence in a string"));
            m_pos += 2;
        }
        return failAt(open, QStringLiteral("a string that is never closed"));
    }

    bool number(qsizetype& end)
    {
        if (peek() == '-')
            ++m_pos;
        if (peek() == '0') {
            ++m_pos;
        } else if (isDigit(peek())) {
            while (isDigit(peek()))
                ++m_pos;
        } else {
            return fail(QStringLiteral("expected a digit"));
        }
        if (peek() == '.') {
            ++m_pos;
            if (!isDigit(peek()))
                return fail(QStringLiteral("expected a digit after the decimal point"));
            while (isDigit(peek()))
                ++m_pos;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (!isDigit(peek()))
                return fail(QStringLiteral("expected a digit in the exponent"));
            while (isDigit(peek()))
                ++m_pos;
        }
        end = m_pos;
        return true;
    }

    // The string at [begin, end), already checked, with its escapes resolved (by Qt's own
    // parser, so \u escapes and surrogate pairs are read as JSON defines them).
    QString decodedString(qsizetype begin, qsizetype end) const
    {
        const QByteArray wrapped = '[' + m_text.mid(begin, end - begin) + ']';
        return QJsonDocument::fromJson(wrapped).array().at(0).toString();
    }

    const QByteArray& m_text;
    JsonTextScanner::Dialect m_dialect;
    qsizetype m_pos = 0;
    qsizetype m_errorOffset = 0;
    QString m_errorMessage;
};

} // namespace

QString JsonTextScanner::Error::toString() const
{
    return QStringLiteral("line %1, column %2: %3").arg(line).arg(column).arg(message);
}

std::optional<JsonTextNode> JsonTextScanner::parse(const QByteArray& text, Dialect dialect,
                                                   Error* error)
{
    Parser parser(text, dialect);
    std::optional<JsonTextNode> root = parser.run();
    if (!root && error) {
        const qsizetype offset = std::min(parser.errorOffset(), text.size());
        const QByteArray before = text.left(offset);
        const qsizetype lineStart = before.lastIndexOf('\n') + 1;
        error->offset = offset;
        error->line = int(before.count('\n')) + 1;
        error->column = int(QString::fromUtf8(before.mid(lineStart)).size()) + 1;
        error->message = parser.errorMessage();
    }
    return root;
}

} // namespace csm
