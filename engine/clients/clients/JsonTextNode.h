#pragma once

#include <QString>
#include <QtGlobal>

#include <vector>

namespace csm {

// Where a JSON value sits in a text, as byte offsets [begin, end), so an edit can splice new
// text in and leave every other byte as it was. Objects list their members; arrays and scalars
// are only located. Between two tokens there is only whitespace and, in JSONC, comments: any
// byte of such a gap that is not whitespace belongs to a comment.
struct JsonTextNode
{
    enum class Kind
    {
        Object,
        Array,
        String,
        Number,
        Literal, // true, false, null
    };
    struct Member;

    Kind kind = Kind::Literal;
    qsizetype begin = 0;
    qsizetype end = 0;           // an object's or array's end is just after its closing bracket
    std::vector<Member> members; // objects only, in the order of the text

    // The offset of an object's or array's closing bracket.
    qsizetype close() const { return end - 1; }
};

struct JsonTextNode::Member
{
    QString key;             // decoded
    qsizetype leadBegin = 0; // just after the token before the key: '{' or ','
    qsizetype keyBegin = 0;  // the key's opening quote
    qsizetype keyEnd = 0;    // just after its closing quote
    qsizetype comma = -1;    // the ',' after the value; -1 when none follows
    JsonTextNode value;
};

} // namespace csm
