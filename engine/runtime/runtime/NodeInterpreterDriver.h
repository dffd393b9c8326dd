#pragma once

#include <QString>
#include <QStringList>

namespace csm {

// A JavaScript session's driver (the launcher's --session, --ready-fd): a small Node.js program
// of ours (`node -e SOURCE`), so that custom images get it too. Cells run one after another in
// one global scope, as a notebook's do: top-level await, let and const that later cells see (and
// may declare again), the value of a final expression shown (util.inspect, as the Node REPL
// does), an exception that ends its cell and not the session, stack traces that name the cell
// (`<cell-3>:2:5`), and a SIGINT that stops a running cell (a busy loop or a pending await).
class NodeInterpreterDriver final
{
public:
    // The interpreter's command line, e.g. {node, --expose-internals, -e, SOURCE}.
    static QStringList command();
    // The driver's JavaScript source.
    static QString source();
};

} // namespace csm
