// Linked into every test executable (csm_test_startup, compiled once as an object library).
//
// A test registered against a remote engine (csm_add_remote_test) gets CSM_TEST_REMOTE_ENV: the
// file where tests/remote/remote-engine wrote what leads an engine CLI there (DOCKER_HOST,
// DOCKER_CERT_PATH, CONTAINER_HOST, a PATH with its ssh). Set in this process's own environment
// before main(), it reaches everything the test starts: the server under test and its engine
// CLIs, and the test's own checks of the engine (TestEngine::run), with nothing to pass along.
#include <QByteArray>
#include <QFile>
#include <QtGlobal>

namespace {

[[maybe_unused]] const bool g_remoteEnvironment = [] {
    const QByteArray path = qgetenv("CSM_TEST_REMOTE_ENV");
    if (path.isEmpty())
        return false;
    QFile file(QString::fromLocal8Bit(path));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        qFatal("CSM_TEST_REMOTE_ENV: cannot read %s (did the remote engine start?)",
               path.constData());
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        const qsizetype equals = line.indexOf('=');
        if (equals > 0)
            qputenv(line.left(equals).constData(), line.mid(equals + 1));
    }
    // The remote engines the tests start run on this machine, and see its files: asked, they
    // would be found local (tst_EngineLocation tests that). They stand in for engines elsewhere,
    // so they are told where they are.
    if (qEnvironmentVariableIsEmpty("CODE_SANDBOX_ENGINE_LOCATION"))
        qputenv("CODE_SANDBOX_ENGINE_LOCATION", "remote");
    // The remote suites run without a network (each proxied run there starts an egress carrier
    // through the engine, which the egress suite, registered with CODE_SANDBOX_EGRESS=open,
    // covers), unless a test asks for something else.
    if (qEnvironmentVariableIsEmpty("CODE_SANDBOX_EGRESS"))
        qputenv("CODE_SANDBOX_EGRESS", "none");
    return true;
}();

} // namespace
