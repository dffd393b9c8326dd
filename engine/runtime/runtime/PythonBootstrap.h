#pragma once

#include <QString>
#include <QStringList>

namespace csm {

// The small Python program every Python sandbox starts with (`python3 -u -c SOURCE`), ours rather
// than the image's, so custom images get it too. It reads the program from stdin and runs it as
// `python3 -` would (as __main__, file "<stdin>", sys.argv ['-'], the same exit status, tracebacks
// without its own frames), and saves matplotlib figures as /sandbox/out/figure-N.png: on
// plt.show() and for those still open when the program ends.
class PythonBootstrap final
{
public:
    enum class Imports
    {
        // A cold container: the program imports what it needs, when it needs it.
        OnDemand,
        // A pooled container, waiting for its program: numpy, pandas and matplotlib.pyplot (those
        // the image has) are imported, and one chart drawn, before the program arrives.
        Preload,
    };

    // The interpreter's command line, e.g. {python3, -u, -c, SOURCE}.
    static QStringList command(Imports imports);
    // A session's driver (the launcher's --session, --ready-fd): cells run one after another in
    // one namespace, like a notebook's; a final expression's value is shown, and an exception
    // ends its cell, not the session. With Preload (a warm pool's session) it says it is ready
    // only once the imports are done.
    static QStringList sessionCommand(Imports imports = Imports::OnDemand);
    // The bootstrap's Python source.
    static QString source();
};

} // namespace csm
