#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

// A real HTTP server on this machine's loopback for the egress tests: Python's http.server in a
// process of its own (an MCP client blocks while a call runs, so the server cannot share the
// test's event loop), serving a folder with hello.txt (kPage). Bound to 127.0.0.2 by default: a
// loopback address the sandbox's NO_PROXY does not cover, so a program reaches it through the
// egress proxy, which an allow rule must name.
class LoopbackHttpServer final
{
public:
    static constexpr char kPage[] = "hello from the upstream\n";

    ~LoopbackHttpServer();

    bool start(const QString& address = QStringLiteral("127.0.0.2"));
    // The same, served by `script` (tests/gui/netns-http-server): at a public address in a
    // network namespace the script makes on this machine.
    bool startWithScript(const QString& script);
    // A file in the folder it serves (write it before start(), or any time after).
    QString filePath(const QString& name) const { return m_folder.filePath(name); }
    QString address() const { return m_address; }
    int port() const { return m_port; }
    // "127.0.0.2:PORT", as --allow-host takes it.
    QString hostPort() const;
    // What it has logged ("GET /hello.txt ..." a line for each request).
    QString log();
    // The times it logged GET /hello.txt, once at least `count` (or 10 s passed): it logs after
    // it has answered, so its log can come after the program's output.
    int pagesServed(int count);

private:
    bool startProcess(const QString& program, const QStringList& arguments);

    QTemporaryDir m_folder;
    QProcess m_process;
    QByteArray m_log;
    QString m_address;
    int m_port = 0;
};
