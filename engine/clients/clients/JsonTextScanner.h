#pragma once

#include "clients/JsonTextNode.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace csm {

// A strict JSON reader (RFC 8259) that keeps where each value is instead of its value, with
// the two JSONC extensions a client may accept switched on or off: comments and a comma after
// the last member or element. A UTF-8 byte order mark at the start is accepted. Used to edit
// configuration files in place; nothing is decoded but object keys.
class JsonTextScanner final
{
public:
    struct Dialect
    {
        bool comments = false;       // // line and /* block */ comments
        bool trailingCommas = false; // [1, 2,] and {"a": 1,}
    };

    struct Error
    {
        qsizetype offset = 0;
        int line = 0;   // 1-based
        int column = 0; // 1-based, in characters
        QString message;

        // "line 3, column 7: expected ',' or '}'"
        QString toString() const;
    };

    // The single value `text` holds, or nothing with `error` set.
    static std::optional<JsonTextNode> parse(const QByteArray& text, Dialect dialect,
                                             Error* error = nullptr);
};

} // namespace csm
