// Hostile programs that try to leave the sandbox, run through the real code-sandbox-mcp binary
// against a real engine (CSM_TEST_ENGINE), in a container started for the call (cold) and in one
// of the warm pool (pooled). Each escape hatch is tried from inside and must be refused; the
// ordinary work a program does (threads, processes, pandas, plots, native code in /tmp) must
// still work under the same profile.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "ServerExit.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>

#include <memory>

using namespace callresult;

namespace {

// Every probe reports one word (an errno name such as EPERM, or a word of its own) under its
// name. A probe that gets further than it should never harms the run: a clone that succeeds
// leaves its child at once, and nothing is mounted or traced for real.
const char* const kHostileProgram = R"PY(import ctypes, errno, json, os, resource, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
results = {}

def errname(number):
    return errno.errorcode.get(number, 'errno%d' % number)

def syscall(number, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    if result == 0 and number == 56:
        os._exit(0)  # a clone that worked: its child leaves at once
    return errname(ctypes.get_errno()) if result == -1 else 'allowed'

def probe(name, action):
    try:
        results[name] = action()
    except OSError as e:
        results[name] = errname(e.errno)
    except Exception as e:
        results[name] = type(e).__name__

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x10000000, 0x40000000, 0x20000000
probe('unshare user+net namespaces', lambda: syscall(272, CLONE_NEWUSER | CLONE_NEWNET))
probe('unshare mount namespace', lambda: syscall(272, CLONE_NEWNS))
probe('clone into a new user namespace', lambda: syscall(56, CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0))
probe('clone into a new pid namespace', lambda: syscall(56, CLONE_NEWPID | signal.SIGCHLD, 0, 0, 0, 0))
probe('clone3', lambda: syscall(435, 0, 0))
probe('setns into its own network namespace', lambda: syscall(308, os.open('/proc/self/ns/net', os.O_RDONLY), 0))
probe('keyctl', lambda: syscall(250, 0, -3, 0))
probe('add_key', lambda: syscall(248, 0, 0, 0, 0, -3))
probe('bpf', lambda: syscall(321, 5, 0, 0))
probe('userfaultfd', lambda: syscall(323, 0))
probe('perf_event_open', lambda: syscall(298, 0, 0, -1, -1, 0))
probe('ptrace of PID 1', lambda: syscall(101, 16, 1, 0, 0))
probe('process_vm_readv of PID 1', lambda: syscall(310, 1, 0, 0, 0, 0, 0))
probe('mount a tmpfs', lambda: syscall(165, ctypes.addressof(ctypes.create_string_buffer(b'tmpfs')), ctypes.addressof(ctypes.create_string_buffer(b'/tmp')), ctypes.addressof(ctypes.create_string_buffer(b'tmpfs')), 0, 0))
probe('umount /tmp', lambda: syscall(166, ctypes.addressof(ctypes.create_string_buffer(b'/tmp')), 2))
probe('fsopen', lambda: syscall(430, ctypes.addressof(ctypes.create_string_buffer(b'tmpfs')), 0))
probe('pivot_root', lambda: syscall(155, ctypes.addressof(ctypes.create_string_buffer(b'/tmp')), ctypes.addressof(ctypes.create_string_buffer(b'/tmp'))))
probe('socket AF_VSOCK', lambda: syscall(41, 40, 1, 0))
probe('chroot', lambda: syscall(161, ctypes.addressof(ctypes.create_string_buffer(b'/tmp'))))
probe('read /proc/1/environ', lambda: 'read' if open('/proc/1/environ', 'rb').read() is not None else '')
def write_proc_sys():
    with open('/proc/sys/kernel/core_pattern', 'w') as f:
        f.write('|/tmp/evil')
    return 'written'
probe('write /proc/sys', write_proc_sys)

# Set-id mode bits, through each system call that sets a mode: a set-id file left in a writable
# share would run on the host as the sandbox's uid.
kept = []
def cpath(text):
    kept.append(ctypes.create_string_buffer(text.encode()))
    return ctypes.addressof(kept[-1])
AT_FDCWD, S_IFREG = -100, 0o100000
open('/tmp/setid', 'w').close()
setid_fd = os.open('/tmp/setid', os.O_RDONLY)
for bits, word in ((0o4755, 'set-uid'), (0o2755, 'set-gid')):
    probe('chmod ' + word, lambda bits=bits: syscall(90, cpath('/tmp/setid'), bits))
    probe('fchmod ' + word, lambda bits=bits: syscall(91, setid_fd, bits))
    probe('fchmodat ' + word, lambda bits=bits: syscall(268, AT_FDCWD, cpath('/tmp/setid'), bits))
    probe('open a new file ' + word, lambda bits=bits, word=word: syscall(2, cpath('/tmp/o-' + word), os.O_CREAT | os.O_WRONLY, bits))
    probe('openat a new file ' + word, lambda bits=bits, word=word: syscall(257, AT_FDCWD, cpath('/tmp/oa-' + word), os.O_CREAT | os.O_WRONLY, bits))
    probe('creat ' + word, lambda bits=bits, word=word: syscall(85, cpath('/tmp/c-' + word), bits))
    probe('mkdir ' + word, lambda bits=bits, word=word: syscall(83, cpath('/tmp/d-' + word), bits))
    probe('mkdirat ' + word, lambda bits=bits, word=word: syscall(258, AT_FDCWD, cpath('/tmp/da-' + word), bits))
    probe('mknod ' + word, lambda bits=bits, word=word: syscall(133, cpath('/tmp/n-' + word), S_IFREG | bits, 0))
    probe('mknodat ' + word, lambda bits=bits, word=word: syscall(259, AT_FDCWD, cpath('/tmp/na-' + word), S_IFREG | bits, 0))
probe('openat2', lambda: syscall(437, AT_FDCWD, cpath('/tmp/setid'), 0, 0))
def setid_left():
    found = []
    for name in os.listdir('/tmp'):
        if os.lstat('/tmp/' + name).st_mode & 0o6000:
            found.append(name)
    return ','.join(sorted(found)) or 'none'
probe('set-id files made', setid_left)

def core_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    return 'soft=%d hard=%d' % (soft, hard)
probe('core limit', core_limit)
def raise_core_limit():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return 'raised'
probe('raise the core limit', raise_core_limit)
def dump_core():
    # A child raises what it may and aborts: the kernel writes "core" in the working folder
    # (this host's core_pattern) unless the limit forbids it.
    pid = os.fork()
    if pid == 0:
        try:
            hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
            resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
        finally:
            os.abort()
    os.waitpid(pid, 0)
    return 'core written' if any(n.startswith('core') for n in os.listdir('.')) else 'no core'
probe('abort and dump core', dump_core)

def fill_shm():
    written = 0
    chunk = b'x' * (1 << 20)
    try:
        with open('/dev/shm/fill', 'wb') as f:
            while written < (256 << 20):
                f.write(chunk)
                f.flush()
                written += len(chunk)
    except OSError as e:
        os.unlink('/dev/shm/fill')
        return '%s after %d MiB' % (errname(e.errno), written >> 20)
    os.unlink('/dev/shm/fill')
    return 'wrote 256 MiB'
probe('fill /dev/shm', fill_shm)

def seccomp_mode():
    for line in open('/proc/self/status'):
        if line.startswith('Seccomp:'):
            return 'mode ' + line.split()[1]
    return 'unknown'
probe('seccomp', seccomp_mode)

def mount_options(path):
    options = [l.split()[3] for l in open('/proc/self/mounts') if l.split()[1] == path]
    return options[-1] if options else 'not mounted'
for path in ('/tmp', '/sandbox', '/dev/shm'):
    probe('options of ' + path, lambda path=path: ','.join(sorted(o for o in mount_options(path).split(',') if o in ('nosuid', 'nodev', 'noexec'))))

print(json.dumps(results))
)PY";

// What an ordinary program does, under the same profile: threads, processes, shared memory,
// pandas and a saved plot, native code run from /tmp.
const char* const kOrdinaryProgram = R"PY(import json, multiprocessing, os, subprocess, threading
results = {}
box = []
thread = threading.Thread(target=lambda: box.append('ran'))
thread.start()
thread.join()
results['thread'] = box[0]
results['subprocess'] = subprocess.run(['sh', '-c', 'echo child'], capture_output=True, text=True).stdout.strip()
with multiprocessing.Pool(2) as pool:
    results['multiprocessing'] = sum(pool.map(abs, [-1, -2, -3]))
import pandas, matplotlib.pyplot as plt
frame = pandas.DataFrame({'x': range(10), 'y': [v * v for v in range(10)]})
results['pandas'] = int(frame['y'].sum())
frame.plot(x='x', y='y')
plt.savefig('/sandbox/plot.png')
results['plot'] = os.path.getsize('/sandbox/plot.png') > 1000
with open('/tmp/tool.sh', 'w') as f:
    f.write('#!/bin/sh\necho native\n')
os.chmod('/tmp/tool.sh', 0o755)
results['exec from /tmp'] = subprocess.run(['/tmp/tool.sh'], capture_output=True, text=True).stdout.strip()
print(json.dumps(results))
)PY";

const char* const kOrdinaryJavaScript = R"JS(const { Worker } = require('worker_threads');
const { execFileSync } = require('child_process');
const results = { child: execFileSync('sh', ['-c', 'echo child']).toString().trim() };
new Worker('require("worker_threads").parentPort.postMessage(6 * 7)', { eval: true })
  .on('message', (value) => { results.worker = value; console.log(JSON.stringify(results)); });
)JS";

// The hostile probes and what each must see. Refusals are EPERM, as the issue asks; clone3 is
// ENOSYS so that the C library falls back to clone, whose flags are checked.
const QList<std::pair<QString, QString>>& expectedRefusals()
{
    static const QList<std::pair<QString, QString>> expected = [] {
        QList<std::pair<QString, QString>> list{
            {QStringLiteral("unshare user+net namespaces"), QStringLiteral("EPERM")},
            {QStringLiteral("unshare mount namespace"), QStringLiteral("EPERM")},
            {QStringLiteral("clone into a new user namespace"), QStringLiteral("EPERM")},
            {QStringLiteral("clone into a new pid namespace"), QStringLiteral("EPERM")},
            {QStringLiteral("clone3"), QStringLiteral("ENOSYS")},
            {QStringLiteral("setns into its own network namespace"), QStringLiteral("EPERM")},
            {QStringLiteral("keyctl"), QStringLiteral("EPERM")},
            {QStringLiteral("add_key"), QStringLiteral("EPERM")},
            {QStringLiteral("bpf"), QStringLiteral("EPERM")},
            {QStringLiteral("userfaultfd"), QStringLiteral("EPERM")},
            {QStringLiteral("perf_event_open"), QStringLiteral("EPERM")},
            {QStringLiteral("ptrace of PID 1"), QStringLiteral("EPERM")},
            {QStringLiteral("process_vm_readv of PID 1"), QStringLiteral("EPERM")},
            {QStringLiteral("mount a tmpfs"), QStringLiteral("EPERM")},
            {QStringLiteral("umount /tmp"), QStringLiteral("EPERM")},
            {QStringLiteral("fsopen"), QStringLiteral("EPERM")},
            {QStringLiteral("pivot_root"), QStringLiteral("EPERM")},
            {QStringLiteral("chroot"), QStringLiteral("EPERM")},
            // vsock is confined by no network namespace: the hypervisor's and host's services. The
            // profile's default answer: ENOSYS where the engine's runc applies defaultErrnoRet,
            // EPERM where it does not (Docker 20.10's).
            {QStringLiteral("socket AF_VSOCK"), QStringLiteral("EPERM|ENOSYS")},
            // PID 1 (the launcher) is not dumpable: its /proc files belong to root.
            {QStringLiteral("read /proc/1/environ"), QStringLiteral("EACCES")},
            {QStringLiteral("write /proc/sys"), QStringLiteral("EROFS")},
            {QStringLiteral("core limit"), QStringLiteral("soft=0 hard=0")},
            {QStringLiteral("raise the core limit"), QStringLiteral("ValueError")},
            {QStringLiteral("abort and dump core"), QStringLiteral("no core")},
            {QStringLiteral("seccomp"), QStringLiteral("mode 2")},
            {QStringLiteral("openat2"), QStringLiteral("ENOSYS")},
            {QStringLiteral("set-id files made"), QStringLiteral("none")},
            {QStringLiteral("options of /tmp"), QStringLiteral("nodev,nosuid")},
            {QStringLiteral("options of /sandbox"), QStringLiteral("nodev,nosuid")},
        };
        // Set-id bits, through every call that sets a mode.
        for (const char* word : {"set-uid", "set-gid"}) {
            for (const char* call :
                 {"chmod", "fchmod", "fchmodat", "open a new file", "openat a new file", "creat",
                  "mkdir", "mkdirat", "mknod", "mknodat"}) {
                list.append({QStringLiteral("%1 %2").arg(QLatin1String(call), QLatin1String(word)),
                             QStringLiteral("EPERM")});
            }
        }
        return list;
    }();
    return expected;
}

// What a probe must see with every sandbox under gVisor, where that differs: gVisor's kernel
// answers some refusals in its own words, and one thing it does not refuse.
QString expectedUnderGvisor(const QString& probe, const QString& standard)
{
    static const QHash<QString, QString> differences{
        // gVisor (20221219, Debian 12's) does not apply PR_SET_DUMPABLE to /proc/PID: the
        // program, as the launcher's user, opens PID 1's files: its own environment, and the
        // launcher's channel to the server, into which it can write frames of its own (the
        // server caps and checks them as any bytes from inside a sandbox). A known weakness of
        // this tier here, said in the README; this row fails once gVisor refuses.
        {QStringLiteral("read /proc/1/environ"), QStringLiteral("read")},
        {QStringLiteral("write /proc/sys"), QStringLiteral("EACCES")},
        // gVisor fails every call the profile refuses with EPERM, whatever errno it names.
        {QStringLiteral("openat2"), QStringLiteral("EPERM")},
        // gVisor's mount table names no nosuid or nodev: no set-id file can be made (above), and
        // no-new-privileges holds either way.
        {QStringLiteral("options of /tmp"), QString()},
        {QStringLiteral("options of /sandbox"), QString()},
    };
    return differences.value(probe, standard);
}

} // namespace

class TestEscapes final : public QObject
{
    Q_OBJECT

private:
    enum class Mode
    {
        Cold,
        Pooled,
    };

    static std::unique_ptr<McpStdioClient> startServer(Mode mode, const QStringList& extra = {})
    {
        // --verbose: the server says whether a call got a warm container.
        return McpStdioClient::startOnTestEngine(
            QStringList{QStringLiteral("--verbose"), QStringLiteral("--pool"),
                        mode == Mode::Cold ? QStringLiteral("0") : QStringLiteral("1")} +
            TestEngine::serverArguments() + extra);
    }

    // Runs `program` as the mode says: in a pooled server, only once a warm container is
    // ready, and the server's log must say it ran warm.
    QJsonObject run(Mode mode, const QString& tool, const QString& program)
    {
        McpStdioClient& server = mode == Mode::Cold ? *m_cold : *m_pooled;
        if (mode == Mode::Pooled) {
            // One container per language at first, and one refill after each pooled call: the
            // pool is full again once the log has said "ready" that many times.
            const int expectedReady = 2 + m_pooledCalls++;
            QDeadlineTimer deadline(60'000);
            while (int(server.standardError().count(QStringLiteral(" ready in all"))) <
                       expectedReady &&
                   !deadline.hasExpired())
                QTest::qWait(50);
        }
        const int warmBefore = int(server.standardError().count(QStringLiteral("(warm)")));
        const QJsonObject result = server.callTool(
            tool,
            QJsonObject{{QStringLiteral("code"), program}, {QStringLiteral("timeout_seconds"), 60}},
            90'000);
        const int warmAfter = int(server.standardError().count(QStringLiteral("(warm)")));
        // The mode under test is the one that ran, or the test proves nothing.
        [&] {
            QVERIFY2(warmAfter == warmBefore + (mode == Mode::Pooled ? 1 : 0),
                     qPrintable(server.standardError().right(3000)));
        }();
        return result;
    }

    static void addModeRows()
    {
        QTest::addColumn<int>("mode");
        QTest::newRow("cold") << int(Mode::Cold);
        QTest::newRow("pooled") << int(Mode::Pooled);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
        m_cold = startServer(Mode::Cold);
        QVERIFY(m_cold);
        m_pooled = startServer(Mode::Pooled);
        QVERIFY(m_pooled);
        // One hostile run per mode; the rows below read its findings.
        for (const Mode mode : {Mode::Cold, Mode::Pooled}) {
            const QJsonObject result =
                run(mode, QStringLiteral("run_python_code"), QString::fromLatin1(kHostileProgram));
            m_findings[int(mode)] = printedJson(result);
            QVERIFY2(!m_findings[int(mode)].isEmpty(), describe(result).constData());
        }
    }

    void cleanupTestCase()
    {
        for (auto* server : {m_cold.get(), m_pooled.get()}) {
            if (server)
                expectCleanExit(*server);
        }
    }

    void escapeIsRefused_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("probe");
        QTest::addColumn<QString>("expected");
        for (const auto& [mode, name] :
             {std::pair{Mode::Cold, "cold"}, std::pair{Mode::Pooled, "pooled"}}) {
            for (const auto& [probe, expected] : expectedRefusals()) {
                QTest::addRow("%s: %s", name, qPrintable(probe))
                    << int(mode) << probe
                    << (TestEngine::isolation() == QLatin1String("gvisor")
                            ? expectedUnderGvisor(probe, expected)
                            : expected);
            }
        }
    }

    void escapeIsRefused()
    {
        QFETCH(int, mode);
        QFETCH(QString, probe);
        QFETCH(QString, expected);
        const QJsonObject& findings = m_findings[mode];
        QVERIFY2(findings.contains(probe),
                 QJsonDocument(findings).toJson(QJsonDocument::Compact).constData());
        const QString seen = findings.value(probe).toString();
        QVERIFY2(expected.split(u'|').contains(seen),
                 qPrintable(QStringLiteral("%1: %2, expected %3").arg(probe, seen, expected)));
    }

    void sharedMemoryIsBounded_data() { addModeRows(); }
    void sharedMemoryIsBounded()
    {
        QFETCH(int, mode);
        // /dev/shm is a tmpfs of the --tmpfs-size (64 MiB): filling it stops there.
        const QString outcome = m_findings[mode].value(QLatin1String("fill /dev/shm")).toString();
        static const QRegularExpression stopped(QStringLiteral("^ENOSPC after (\\d+) MiB$"));
        const auto match = stopped.match(outcome);
        QVERIFY2(match.hasMatch(), qPrintable(outcome));
        QVERIFY2(match.captured(1).toInt() <= 64, qPrintable(outcome));
    }

    void ordinaryWorkStillWorks_data() { addModeRows(); }
    void ordinaryWorkStillWorks()
    {
        QFETCH(int, mode);
        const QJsonObject result = run(Mode(mode), QStringLiteral("run_python_code"),
                                       QString::fromLatin1(kOrdinaryProgram));
        QVERIFY2(!isError(result), describe(result).constData());
        const QJsonObject seen = printedJson(result);
        QCOMPARE(seen.value(QLatin1String("thread")).toString(), QStringLiteral("ran"));
        QCOMPARE(seen.value(QLatin1String("subprocess")).toString(), QStringLiteral("child"));
        QCOMPARE(seen.value(QLatin1String("multiprocessing")).toInt(), 6);
        QCOMPARE(seen.value(QLatin1String("pandas")).toInt(), 285);
        QCOMPARE(seen.value(QLatin1String("plot")).toBool(), true);
        QCOMPARE(seen.value(QLatin1String("exec from /tmp")).toString(), QStringLiteral("native"));
    }

    void javaScriptStillWorks_data() { addModeRows(); }
    void javaScriptStillWorks()
    {
        QFETCH(int, mode);
        const QJsonObject result = run(Mode(mode), QStringLiteral("run_js_code"),
                                       QString::fromLatin1(kOrdinaryJavaScript));
        QVERIFY2(!isError(result), describe(result).constData());
        const QJsonObject seen = printedJson(result);
        QCOMPARE(seen.value(QLatin1String("child")).toString(), QStringLiteral("child"));
        QCOMPARE(seen.value(QLatin1String("worker")).toInt(), 42);
    }

    void customImageRunsUnderTheSameProfile()
    {
        // Whatever the image, the profile and the launcher are the sandbox's own.
        const QString custom = TestEngine::localImage(QStringLiteral("csm-escapes-custom:latest"));
        bool tagged = false;
        TestEngine::run({QStringLiteral("tag"),
                         TestEngine::localImage(QStringLiteral("code-sandbox-python:latest")),
                         custom},
                        &tagged);
        QVERIFY(tagged);
        const auto untag = qScopeGuard([&] { TestEngine::run({QStringLiteral("rmi"), custom}); });
        auto server = startServer(Mode::Cold, {QStringLiteral("--python-image"), custom});
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import ctypes, json\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                                "refused = libc.unshare(0x10000000) == -1 and "
                                "ctypes.get_errno() == 1\n"
                                "import pandas\nprint(json.dumps({'refused': refused}))\n")));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(printedJson(result).value(QLatin1String("refused")).toBool(), true);
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));
    }

private:
    std::unique_ptr<McpStdioClient> m_cold;
    std::unique_ptr<McpStdioClient> m_pooled;
    int m_pooledCalls = 0;
    QJsonObject m_findings[2];
};

QTEST_GUILESS_MAIN(TestEscapes)
#include "tst_Escapes.moc"
