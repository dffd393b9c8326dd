#include "runtime/PythonBootstrap.h"

namespace csm {

namespace {

// Runs as `python3 -u -c`: its frames are in the file "<string>", which is how it finds them in
// a traceback. The program gets a fresh __main__ module with the globals `python3 -` gives it.
// The backend is chosen when matplotlib is imported, not through MPLBACKEND, which a Python
// started by the program would inherit without the module behind it. Figures still open at the
// end are saved when the program's code ends (normally, by an exception or by sys.exit), not in
// an atexit hook: pyplot registers its own atexit hook later, which would run first and close
// them.
constexpr char kBootstrapSource[] = R"py(import sys


def _csm_bootstrap():
    # Code Sandbox: run the program read from stdin as `python3 -` would, but save matplotlib
    # figures (plt.show(), and those still open at the end) as /sandbox/out/figure-N.png.
    import os

    out_dir = "/sandbox/out"
    backend = "_csm_sandbox_backend"
    seed_dir = "/usr/local/share/code-sandbox/matplotlib"
    state = {"next": 1}

    def save_figures():
        pylab = sys.modules.get("matplotlib._pylab_helpers")
        if pylab is None:
            return
        managers = pylab.Gcf.get_all_fig_managers()
        if not managers:
            return
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as error:
            print("could not save the figures: %s" % error, file=sys.stderr)
            return
        for manager in managers:
            while os.path.exists("%s/figure-%d.png" % (out_dir, state["next"])):
                state["next"] += 1
            path = "%s/figure-%d.png" % (out_dir, state["next"])
            state["next"] += 1
            try:
                manager.canvas.figure.savefig(path, format="png")
            except Exception as error:
                print("could not save a figure to %s: %r" % (path, error), file=sys.stderr)
        pylab.Gcf.destroy_all()

    def show(*args, **kwargs):
        save_figures()

    class BackendLoader:
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            from matplotlib.backends import backend_agg

            module.FigureCanvas = backend_agg.FigureCanvasAgg
            module.FigureManager = backend_agg.FigureManager
            module.show = show

    def seed_font_cache():
        # A fresh container's home is empty: copy the font list the image built ahead, so that
        # matplotlib does not scan every font again.
        try:
            names = [n for n in os.listdir(seed_dir) if n.startswith("fontlist-")]
        except OSError:
            return
        cache = os.environ.get("MPLCONFIGDIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "matplotlib")
        try:
            os.makedirs(cache, exist_ok=True)
            for name in names:
                target = os.path.join(cache, name)
                if not os.path.exists(target):
                    with open(os.path.join(seed_dir, name), "rb") as source:
                        data = source.read()
                    with open(target, "wb") as copy:
                        copy.write(data)
        except OSError:
            pass

    class Finder:
        # Lets matplotlib load the sandbox backend, and makes it the default the moment matplotlib
        # itself is imported (not through MPLBACKEND: a child Python would inherit it).
        def find_spec(self, name, path=None, target=None):
            if name == backend:
                from importlib.machinery import ModuleSpec

                return ModuleSpec(name, BackendLoader())
            if name != "matplotlib":
                return None
            from importlib.machinery import PathFinder

            spec = PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            seed_font_cache()
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                module.rcParams["backend"] = "module://" + backend

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Finder())

    if "preload" in sys.argv[1:]:
        # A pooled container: pay the imports before the program arrives. A program that arrives
        # meanwhile stops it: it waits for one import at most, not for modules it may not need.
        import select
        import warnings

        def program_arrived():
            return bool(select.select([sys.stdin.buffer], [], [], 0)[0])

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in ("numpy", "pandas", "matplotlib", "matplotlib.pyplot"):
                if program_arrived():
                    break
                try:
                    __import__(name)
                except Exception:
                    pass
            pyplot = sys.modules.get("matplotlib.pyplot")
            if pyplot is not None and not program_arrived():
                # One small chart, drawn and thrown away: loads the fonts, the renderer and
                # pandas' plotting code that a first chart would otherwise wait for.
                import io

                try:
                    figure = pyplot.figure(figsize=(2, 2))
                    axes = figure.add_subplot()
                    if "pandas" in sys.modules:
                        sys.modules["pandas"].Series([1.0], index=["a"]).plot.bar(ax=axes)
                    else:
                        axes.bar(["a"], [1.0])
                    axes.set_title("a")
                    figure.savefig(io.BytesIO(), format="png")
                except Exception:
                    pass
                pyplot.close("all")
        # What the preload made lives as long as the interpreter: keep it out of the collector's
        # way, so that collections during the program and at its end look at its objects only.
        import gc

        gc.freeze()

    def run_session(control):
        # A session (the launcher's --session): cells share this interpreter and one namespace,
        # as a notebook's do. Each cell arrives on stdin (an 8-byte length, the cell's 8-byte
        # tag, then the code); after it, "e", the tag and its status go to the launcher on
        # `control`, which ends a cell only on its own tag. The cells' own stdin is empty.
        import ast
        import linecache
        import signal
        import traceback

        # SIGINT (the launcher's interrupt) reaches only a running cell: between cells it is
        # blocked, and one that comes after its cell ended is dropped before the next starts, so
        # that it can neither break the driver nor the next cell.
        interrupt = {signal.SIGINT}

        def allow_interrupts(allowed):
            if allowed:
                while signal.sigtimedwait(interrupt, 0) is not None:
                    pass
                signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupt)
            else:
                signal.pthread_sigmask(signal.SIG_BLOCK, interrupt)

        allow_interrupts(False)
        cells = os.fdopen(os.dup(0), "rb", buffering=0)
        empty = os.open(os.devnull, os.O_RDONLY)
        os.dup2(empty, 0)
        os.close(empty)
        main = type(sys)("__main__")
        main.__dict__.update(__annotations__={}, __builtins__=__builtins__, __cached__=None,
                             __file__="<stdin>", __loader__=__loader__, __package__=None)
        sys.modules["__main__"] = main
        sys.argv[:] = ["-"]

        def read_exactly(size):
            data = b""
            while len(data) < size:
                chunk = cells.read(size - len(data))
                if not chunk:
                    os._exit(0)  # the launcher ended the session
                data += chunk
            return data

        def run_cell(source, name):
            # Like a notebook cell: the value of a final expression is shown (and kept as _),
            # a traceback shows the cell's own lines, and an exception ends the cell, not the
            # session.
            text = source.decode("utf-8", "replace")
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)
            try:
                allow_interrupts(True)
                tree = ast.parse(source, name)
                last = None
                if tree.body and isinstance(tree.body[-1], ast.Expr):
                    last = ast.Expression(tree.body.pop().value)
                exec(compile(tree, name, "exec", dont_inherit=True), main.__dict__)
                if last is not None:
                    value = eval(compile(last, name, "eval", dont_inherit=True), main.__dict__)
                    if value is not None:
                        main.__dict__["_"] = value
                        print(repr(value))
                return 0
            except SystemExit as stop:
                if stop.code is None or isinstance(stop.code, int):
                    return int(stop.code or 0) & 0xFF
                print(stop.code, file=sys.stderr)
                return 1
            except BaseException:
                kind, value, trace = sys.exc_info()
                while trace is not None and trace.tb_frame.f_code.co_filename == "<string>":
                    trace = trace.tb_next
                traceback.print_exception(kind, value, trace)
                return 1

        os.write(control, b"r")
        number = 0
        while True:
            size = int.from_bytes(read_exactly(8), "big")
            tag = read_exactly(8)
            source = read_exactly(size)
            number += 1
            try:
                status = run_cell(source, "<cell %d>" % number)
                allow_interrupts(False)
                save_figures()
            except KeyboardInterrupt:
                allow_interrupts(False)
                status = 130
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            os.write(control, b"e" + tag + status.to_bytes(4, "big"))

    ready_fd = os.environ.pop("CSM_READY_FD", None)
    if "session" in sys.argv[1:] and ready_fd is not None:
        run_session(int(ready_fd))
    if ready_fd is not None:
        # A pooled container's launcher counts it ready only now (its --ready-fd); the program
        # never sees the pipe.
        try:
            os.write(int(ready_fd), b"r")
            os.close(int(ready_fd))
        except (OSError, ValueError):
            pass

    source = sys.stdin.buffer.read()
    main = type(sys)("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=__builtins__, __cached__=None,
                         __file__="<stdin>", __loader__=__loader__, __package__=None)
    sys.modules["__main__"] = main
    sys.argv[:] = ["-"]

    def strip_own_frames(hook):
        def strip(kind, value, traceback):
            while traceback is not None and traceback.tb_frame.f_code.co_filename == "<string>":
                traceback = traceback.tb_next
            hook(kind, value.with_traceback(traceback), traceback)
        return strip

    def quick_exit(status):
        # What Python's own exit does that a program can notice (it waits for its threads, runs
        # its atexit functions and its objects' finalizers, flushes the output), without then
        # tearing down every module one by one: after numpy, pandas and matplotlib that alone
        # takes longer than most programs.
        threading = sys.modules.get("threading")
        if threading is not None and hasattr(threading, "_shutdown"):
            threading._shutdown()
        import atexit
        import gc

        atexit._run_exitfuncs()
        main.__dict__.clear()
        gc.collect()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(status)

    try:
        exec(compile(source, "<stdin>", "exec", dont_inherit=True), main.__dict__)
        status = 0
    except SystemExit as stop:
        # sys.exit() with a number or nothing; with a message, Python prints it.
        if stop.code is not None and not isinstance(stop.code, int):
            raise
        status = int(stop.code or 0)
        if not -(2**31) <= status < 2**31:
            raise
    except BaseException:
        sys.excepthook = strip_own_frames(sys.excepthook)
        raise
    finally:
        save_figures()
    quick_exit(status)


_csm_bootstrap()
)py";

} // namespace

QStringList PythonBootstrap::command(Imports imports)
{
    // -u: unbuffered, so output written before a timeout or crash is not lost.
    QStringList arguments{QStringLiteral("python3"), QStringLiteral("-u"), QStringLiteral("-c"),
                          source()};
    if (imports == Imports::Preload)
        arguments.append(QStringLiteral("preload"));
    return arguments;
}

QStringList PythonBootstrap::sessionCommand(Imports imports)
{
    return command(imports) << QStringLiteral("session");
}

QString PythonBootstrap::source()
{
    return QString::fromUtf8(kBootstrapSource);
}

} // namespace csm
