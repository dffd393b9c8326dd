// `code-sandbox-mcp install-client` / `uninstall-client`: the real program run on real client
// configuration files in a temporary home folder.
#include "core/SettingsFile.h"
#include "ServerCli.h"
#include "transport/http/HttpTokenFile.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

using Result = servercli::Result;

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& text)
{
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), text.size());
}

// The "code-sandbox" entry of the client file at `path` (servers under `serversKey`).
QJsonObject serverEntry(const QString& path,
                        const QString& serversKey = QStringLiteral("mcpServers"))
{
    return QJsonDocument::fromJson(readFile(path))
        .object()
        .value(serversKey)
        .toObject()
        .value(QStringLiteral("code-sandbox"))
        .toObject();
}

// What the entry sends as Authorization.
QString authorizationOf(const QJsonObject& entry)
{
    return entry.value(QStringLiteral("headers"))
        .toObject()
        .value(QStringLiteral("Authorization"))
        .toString();
}

// Whether `after` is `before` with one run of bytes inserted, and which.
bool isInsertion(const QByteArray& before, const QByteArray& after, QByteArray* inserted)
{
    if (after.size() <= before.size())
        return false;
    qsizetype prefix = 0;
    while (prefix < before.size() && before.at(prefix) == after.at(prefix))
        ++prefix;
    const qsizetype added = after.size() - before.size();
    if (after.mid(prefix + added) != before.mid(prefix))
        return false;
    *inserted = after.mid(prefix, added);
    return true;
}

} // namespace

class tst_ClientCommand final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void installKeepsEverythingElse_data();
    void installKeepsEverythingElse();
    void dryRunWritesNothing_data();
    void dryRunWritesNothing();
    void createsMissingFile();
    void refusesInvalidFile_data();
    void refusesInvalidFile();
    void httpTokenFromDesktopSettings();
    void httpTokenFile();
    void httpSharedTokenByDefault();
    void httpTokenInAGitWorkTreeIsWarnedAbout();
    void otherName();
    void uninstallWithoutEntry();
    void usageErrors_data();
    void usageErrors();
    void projectScope();
    void listShowsInstalledAndWired();

private:
    Result run(const QStringList& arguments);
    QString configPath(const QString& client) const;
    QStringList backups(const QString& path) const;

    std::unique_ptr<QTemporaryDir> m_home;
    QString m_xdg;
    QString m_dataDir;
};

void tst_ClientCommand::init()
{
    m_home = std::make_unique<QTemporaryDir>();
    QVERIFY(m_home->isValid());
    // XDG_CONFIG_HOME elsewhere than ~/.config: Claude and VS Code must follow it.
    m_xdg = m_home->filePath(QStringLiteral("xdg-config"));
    m_dataDir = m_home->filePath(QStringLiteral("data"));
}

Result tst_ClientCommand::run(const QStringList& arguments)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), m_home->path());
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_xdg);
    // Never the desktop settings of the user running the tests.
    environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), m_dataDir);
    return servercli::run(arguments, {}, environment);
}

QString tst_ClientCommand::configPath(const QString& client) const
{
    if (client == QLatin1String("claude"))
        return m_xdg + QStringLiteral("/Claude/claude_desktop_config.json");
    if (client == QLatin1String("gemini"))
        return m_home->filePath(QStringLiteral(".gemini/settings.json"));
    if (client == QLatin1String("vscode"))
        return m_xdg + QStringLiteral("/Code/User/mcp.json");
    if (client == QLatin1String("claude-code"))
        return m_home->filePath(QStringLiteral(".claude.json"));
    if (client == QLatin1String("codex"))
        return m_home->filePath(QStringLiteral(".codex/config.toml"));
    if (client == QLatin1String("opencode"))
        return m_xdg + QStringLiteral("/opencode/opencode.json");
    if (client == QLatin1String("qwen"))
        return m_home->filePath(QStringLiteral(".qwen/settings.json"));
    if (client == QLatin1String("windsurf"))
        return m_home->filePath(QStringLiteral(".codeium/windsurf/mcp_config.json"));
    if (client == QLatin1String("zed"))
        return m_xdg + QStringLiteral("/zed/settings.json");
    if (client == QLatin1String("lmstudio"))
        return m_home->filePath(QStringLiteral(".lmstudio/mcp.json"));
    if (client == QLatin1String("goose"))
        return m_xdg + QStringLiteral("/goose/config.yaml");
    return m_home->filePath(QStringLiteral(".cursor/mcp.json"));
}

QStringList tst_ClientCommand::backups(const QString& path) const
{
    const QFileInfo info(path);
    QStringList paths;
    const QStringList names =
        info.dir().entryList({info.fileName() + QStringLiteral(".bak-*")},
                             QDir::Files | QDir::Hidden, QDir::Name); // ~/.claude.json's too
    for (const QString& name : names)
        paths << info.dir().filePath(name);
    return paths;
}

void tst_ClientCommand::installKeepsEverythingElse_data()
{
    QTest::addColumn<QString>("client");
    QTest::addColumn<QByteArray>("original");
    QTest::addColumn<bool>("plainJson"); // QJsonDocument reads it (no comment, no trailing comma)

    QTest::newRow("claude") << QStringLiteral("claude")
                            << QByteArray("{\n  \"mcpServers\": {\n    \"filesystem\": {\n"
                                          "      \"command\": \"npx\",\n      \"args\": [\"-y\", "
                                          "\"@modelcontextprotocol/server-filesystem\", "
                                          "\"/tmp\"]\n    }\n  },\n  \"globalShortcut\": "
                                          "\"Ctrl+Space\"\n}\n")
                            << true;
    QTest::newRow("gemini, comments and 4 spaces")
        << QStringLiteral("gemini")
        << QByteArray("{\n    // chosen in the UI\n    \"theme\": \"GitHub\",\n    "
                      "\"mcpServers\": {\n        \"git\": {\"command\": \"uvx\", \"args\": "
                      "[\"mcp-server-git\"]} // keep\n    }\n}\n")
        << false;
    QTest::newRow("vscode, CRLF, tabs, trailing comma")
        << QStringLiteral("vscode")
        << QByteArray("{\r\n\t\"servers\": {\r\n\t\t\"github\": {\r\n\t\t\t\"type\": \"http\",\r\n"
                      "\t\t\t\"url\": \"https://api.githubcopilot.com/mcp/\",\r\n\t\t},\r\n\t},"
                      "\r\n\t\"inputs\": []\r\n}")
        << false;
    QTest::newRow("cursor, one line") << QStringLiteral("cursor")
                                      << QByteArray("{\"mcpServers\":{\"remote\":{\"url\":"
                                                    "\"http://example.test/mcp\"}},\"x\":true}")
                                      << true;
    QTest::newRow("claude-code") << QStringLiteral("claude-code")
                                 << QByteArray(
                                        "{\n  \"mcpServers\": {},\n  \"numStartups\": 3\n}\n")
                                 << true;
    QTest::newRow("codex, TOML with comments")
        << QStringLiteral("codex")
        << QByteArray("# my Codex\nmodel = \"o3\" # fast\n\n[mcp_servers.docs]\ncommand = "
                      "\"npx\"\nargs = [\"-y\", \"docs\"]\n")
        << false;
    QTest::newRow("opencode, JSONC")
        << QStringLiteral("opencode")
        << QByteArray("{\n  // theme\n  \"theme\": \"tokyonight\",\n}\n") << false;
    QTest::newRow("qwen") << QStringLiteral("qwen") << QByteArray("{}\n") << false;
    QTest::newRow("windsurf") << QStringLiteral("windsurf")
                              << QByteArray("{\"mcpServers\": {\"gh\": {\"serverUrl\": "
                                            "\"https://x.test/mcp\"}}}")
                              << true;
    QTest::newRow("zed, JSONC") << QStringLiteral("zed")
                                << QByteArray("// Zed\n{\n  \"vim_mode\": true, // yes\n}\n")
                                << false;
    QTest::newRow("lmstudio") << QStringLiteral("lmstudio")
                              << QByteArray("{\n  \"mcpServers\": {\n    \"hf\": {\"url\": "
                                            "\"https://huggingface.co/mcp\"}\n  }\n}\n")
                              << true;
    QTest::newRow("goose, YAML with comments")
        << QStringLiteral("goose")
        << QByteArray("# goose\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n"
                      "    enabled: true # on\n    name: developer\n    type: builtin\n")
        << false;
}

void tst_ClientCommand::installKeepsEverythingElse()
{
    QFETCH(QString, client);
    QFETCH(QByteArray, original);
    QFETCH(bool, plainJson);
    const QString path = configPath(client);
    writeFile(path, original);

    const Result installed = run({QStringLiteral("install-client"), client});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    QVERIFY2(installed.out.contains("Added the server \"code-sandbox\""),
             installed.out.constData());
    QVERIFY(installed.out.contains(QFile::encodeName(path)));

    // The old text with one insertion: the new member, and nothing else touched.
    const QByteArray written = readFile(path);
    QByteArray inserted;
    QVERIFY2(isInsertion(original, written, &inserted), written.constData());
    QVERIFY2(inserted.contains("code-sandbox"), inserted.constData());
    QVERIFY2(inserted.contains(CSM_SERVER_BINARY), inserted.constData());
    if (plainJson) {
        const QJsonObject before = QJsonDocument::fromJson(original).object();
        QJsonObject after = QJsonDocument::fromJson(written).object();
        QJsonObject servers = after.value(QStringLiteral("mcpServers")).toObject();
        QCOMPARE(servers.value(QStringLiteral("code-sandbox"))
                     .toObject()
                     .value(QStringLiteral("command"))
                     .toString(),
                 QStringLiteral(CSM_SERVER_BINARY));
        servers.remove(QStringLiteral("code-sandbox"));
        after.insert(QStringLiteral("mcpServers"), servers);
        QCOMPARE(after, before);
    }

    // The backup is the old file, and the command says where it is.
    const QStringList saved = backups(path);
    QCOMPARE(saved.size(), 1);
    QCOMPARE(readFile(saved.constFirst()), original);
    QVERIFY(installed.out.contains(QFile::encodeName(saved.constFirst())));

    // Again: nothing to do, nothing written.
    const Result again = run({QStringLiteral("install-client"), client});
    QCOMPARE(again.exitCode, 0);
    QVERIFY2(again.out.contains("unchanged"), again.out.constData());
    QCOMPARE(readFile(path), written);
    QCOMPARE(backups(path).size(), 1);

    // Uninstalling gives the original bytes back, with the installed file as a backup.
    const Result removed = run({QStringLiteral("uninstall-client"), client});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QVERIFY2(removed.out.contains("Removed the server \"code-sandbox\""), removed.out.constData());
    QCOMPARE(readFile(path), original);
    const QStringList afterRemoval = backups(path);
    QCOMPARE(afterRemoval.size(), 2);
    QCOMPARE(readFile(afterRemoval.constLast()), written);
}

void tst_ClientCommand::dryRunWritesNothing_data()
{
    installKeepsEverythingElse_data();
}

void tst_ClientCommand::dryRunWritesNothing()
{
    QFETCH(QString, client);
    QFETCH(QByteArray, original);
    const QString path = configPath(client);
    writeFile(path, original);

    const Result preview =
        run({QStringLiteral("install-client"), client, QStringLiteral("--dry-run")});
    QVERIFY2(preview.exitCode == 0, preview.err.constData());
    QCOMPARE(readFile(path), original);
    QVERIFY(backups(path).isEmpty());
    QVERIFY2(preview.err.contains("Would add"), preview.err.constData());

    // What it printed is what the real run writes.
    QCOMPARE(run({QStringLiteral("install-client"), client}).exitCode, 0);
    QCOMPARE(preview.out, readFile(path));

    const QByteArray installed = readFile(path);
    const Result removal =
        run({QStringLiteral("uninstall-client"), client, QStringLiteral("--dry-run")});
    QCOMPARE(removal.exitCode, 0);
    QCOMPARE(removal.out, original);
    QCOMPARE(readFile(path), installed);
    QCOMPARE(backups(path).size(), 1);
}

void tst_ClientCommand::createsMissingFile()
{
    for (const QString& client : {QStringLiteral("claude"), QStringLiteral("gemini"),
                                  QStringLiteral("vscode"), QStringLiteral("cursor")}) {
        const QString path = configPath(client);
        QVERIFY(!QFileInfo::exists(path));
        const Result created = run({QStringLiteral("install-client"), client});
        QVERIFY2(created.exitCode == 0, created.err.constData());
        QVERIFY2(created.out.contains("Created"), created.out.constData());
        const QJsonObject root = QJsonDocument::fromJson(readFile(path)).object();
        const QString key = client == QLatin1String("vscode") ? QStringLiteral("servers")
                                                              : QStringLiteral("mcpServers");
        const QJsonObject entry =
            root.value(key).toObject().value(QStringLiteral("code-sandbox")).toObject();
        QCOMPARE(entry.value(QStringLiteral("command")).toString(),
                 QStringLiteral(CSM_SERVER_BINARY));
        QVERIFY(backups(path).isEmpty());
    }
}

void tst_ClientCommand::refusesInvalidFile_data()
{
    QTest::addColumn<QString>("client");
    QTest::addColumn<QByteArray>("original");
    QTest::newRow("truncated") << QStringLiteral("cursor") << QByteArray("{\"mcpServers\": {");
    QTest::newRow("comment in Claude's plain JSON")
        << QStringLiteral("claude") << QByteArray("{\n  // no\n  \"mcpServers\": {}\n}\n");
    QTest::newRow("duplicate key")
        << QStringLiteral("gemini") << QByteArray("{\"mcpServers\": {}, \"mcpServers\": {}}");
    QTest::newRow("array root") << QStringLiteral("vscode") << QByteArray("[]\n");
}

void tst_ClientCommand::refusesInvalidFile()
{
    QFETCH(QString, client);
    QFETCH(QByteArray, original);
    const QString path = configPath(client);
    writeFile(path, original);
    const Result refused = run({QStringLiteral("install-client"), client});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(QFile::encodeName(path)), refused.err.constData());
    QCOMPARE(readFile(path), original);
    QVERIFY(backups(path).isEmpty());
    QCOMPARE(run({QStringLiteral("uninstall-client"), client}).exitCode, 1);
    QCOMPARE(readFile(path), original);
}

void tst_ClientCommand::httpTokenFromDesktopSettings()
{
    const QByteArray token = "tok-3f9a2c-never-printed";
    csm::SettingsFile desktop(m_dataDir, QStringLiteral("desktop"));
    desktop.setValue(QStringLiteral("http-host"), QStringLiteral("0.0.0.0"));
    desktop.setValue(QStringLiteral("http-port"), QStringLiteral("9911"));
    desktop.setValue(QStringLiteral("http-token"), QString::fromLatin1(token));
    const csm::Expected<void> saved = desktop.save();
    QVERIFY2(saved, qPrintable(saved.error()));

    const QString path = configPath(QStringLiteral("cursor"));
    const Result preview = run({QStringLiteral("install-client"), QStringLiteral("cursor"),
                                QStringLiteral("--http"), QStringLiteral("--dry-run")});
    QCOMPARE(preview.exitCode, 0);
    QVERIFY(!preview.out.contains(token) && !preview.err.contains(token));
    QVERIFY2(preview.out.contains("http://127.0.0.1:9911/mcp"), preview.out.constData());
    QVERIFY(!QFileInfo::exists(path));

    const Result installed =
        run({QStringLiteral("install-client"), QStringLiteral("cursor"), QStringLiteral("--http")});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    QVERIFY(!installed.out.contains(token) && !installed.err.contains(token));
    QVERIFY2(installed.out.contains("desktop app's settings"), installed.out.constData());
    const QJsonObject entry = serverEntry(path);
    QCOMPARE(entry.value(QStringLiteral("url")).toString(),
             QStringLiteral("http://127.0.0.1:9911/mcp"));
    QCOMPARE(authorizationOf(entry), QStringLiteral("Bearer ") + QString::fromLatin1(token));
    // A created file holding a token is its owner's only.
    QCOMPARE(QFile::permissions(path) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
}

void tst_ClientCommand::httpTokenFile()
{
    const QString tokenPath = m_home->filePath(QStringLiteral("token"));
    writeFile(tokenPath, "from-a-file-7b1\n");
    const QString path = configPath(QStringLiteral("vscode"));
    const Result installed =
        run({QStringLiteral("install-client"), QStringLiteral("vscode"), QStringLiteral("--http"),
             QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:7000/mcp"),
             QStringLiteral("--token-file"), tokenPath});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    QVERIFY(!installed.out.contains("from-a-file-7b1"));
    const QJsonObject entry = serverEntry(path, QStringLiteral("servers"));
    QCOMPARE(entry.value(QStringLiteral("type")).toString(), QStringLiteral("http"));
    QCOMPARE(entry.value(QStringLiteral("url")).toString(),
             QStringLiteral("http://127.0.0.1:7000/mcp"));
    QCOMPARE(authorizationOf(entry), QStringLiteral("Bearer from-a-file-7b1"));

    // --token works, with a warning that `ps` shows it.
    const Result onArgv =
        run({QStringLiteral("install-client"), QStringLiteral("cursor"), QStringLiteral("--http"),
             QStringLiteral("--token"), QStringLiteral("argv-token"), QStringLiteral("--dry-run")});
    QCOMPARE(onArgv.exitCode, 0);
    QVERIFY2(onArgv.err.contains("'ps'"), onArgv.err.constData());
    QVERIFY(!onArgv.out.contains("argv-token"));
}

void tst_ClientCommand::httpSharedTokenByDefault()
{
    const QString path = configPath(QStringLiteral("cursor"));
    const csm::http::HttpTokenFile tokenFile = csm::http::HttpTokenFile::inDataDir(m_dataDir);
    // --dry-run makes nothing, not even the token file.
    const Result preview = run({QStringLiteral("install-client"), QStringLiteral("cursor"),
                                QStringLiteral("--http"), QStringLiteral("--dry-run")});
    QVERIFY2(preview.exitCode == 0, preview.err.constData());
    QVERIFY2(preview.out.contains("Bearer <token hidden>"), preview.out.constData());
    QVERIFY(!QFileInfo::exists(tokenFile.path()));

    // An existing file, readable by all: it will hold the token.
    writeFile(path, "{\n  \"mcpServers\": {}\n}\n");
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    const Result installed =
        run({QStringLiteral("install-client"), QStringLiteral("cursor"), QStringLiteral("--http"),
             QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9123/mcp")});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    // The token every server of this user will check, made now.
    const auto read = tokenFile.read();
    QVERIFY2(read && *read, qPrintable(read.error()));
    const std::optional<QString> token = *read;
    QVERIFY(!installed.out.contains(token->toLatin1()) &&
            !installed.err.contains(token->toLatin1()));
    QVERIFY2(installed.out.contains(QFile::encodeName(tokenFile.path())),
             installed.out.constData());
    const QJsonObject entry = serverEntry(path);
    QCOMPARE(entry.value(QStringLiteral("url")).toString(),
             QStringLiteral("http://127.0.0.1:9123/mcp"));
    QCOMPARE(authorizationOf(entry), QStringLiteral("Bearer ") + *token);
    QFileInfo info(path);
    QCOMPARE(info.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther |
                                   QFileDevice::WriteGroup | QFileDevice::WriteOther),
             QFileDevice::Permissions());
    const QStringList copies = backups(path);
    QCOMPARE(copies.size(), 1);
    QCOMPARE(QFileInfo(copies.constFirst()).permissions() &
                 (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
    QVERIFY2(!installed.err.contains("Warning"), installed.err.constData());

    // A second client gets the same token.
    QCOMPARE(
        run({QStringLiteral("install-client"), QStringLiteral("vscode"), QStringLiteral("--http")})
            .exitCode,
        0);
    QVERIFY(readFile(configPath(QStringLiteral("vscode"))).contains(token->toLatin1()));
}

void tst_ClientCommand::httpTokenInAGitWorkTreeIsWarnedAbout()
{
    // A home folder kept in git (dotfiles): a push would publish the token.
    QVERIFY(QDir().mkpath(m_home->filePath(QStringLiteral(".git"))));
    const Result installed =
        run({QStringLiteral("install-client"), QStringLiteral("cursor"), QStringLiteral("--http")});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    QVERIFY2(installed.err.contains("Warning: ") && installed.err.contains("git work tree"),
             installed.err.constData());
    // stdio entries hold no token: nothing to warn about.
    const Result stdio = run({QStringLiteral("install-client"), QStringLiteral("gemini")});
    QVERIFY2(!stdio.err.contains("Warning"), stdio.err.constData());
}

void tst_ClientCommand::otherName()
{
    const QString path = configPath(QStringLiteral("gemini"));
    const QByteArray original = "{\n  \"mcpServers\": {\n    \"code-sandbox\": {\"command\": "
                                "\"/opt/other\"}\n  }\n}\n";
    writeFile(path, original);
    QCOMPARE(run({QStringLiteral("install-client"), QStringLiteral("gemini"),
                  QStringLiteral("--name"), QStringLiteral("sandbox-2")})
                 .exitCode,
             0);
    const QJsonObject servers = QJsonDocument::fromJson(readFile(path))
                                    .object()
                                    .value(QStringLiteral("mcpServers"))
                                    .toObject();
    QCOMPARE(
        servers.value(QStringLiteral("code-sandbox")).toObject().value(QStringLiteral("command")),
        QJsonValue(QStringLiteral("/opt/other")));
    QVERIFY(servers.contains(QStringLiteral("sandbox-2")));
    QCOMPARE(run({QStringLiteral("uninstall-client"), QStringLiteral("gemini"),
                  QStringLiteral("--name"), QStringLiteral("sandbox-2")})
                 .exitCode,
             0);
    QCOMPARE(readFile(path), original);
}

void tst_ClientCommand::uninstallWithoutEntry()
{
    const QString path = configPath(QStringLiteral("cursor"));
    const Result noFile = run({QStringLiteral("uninstall-client"), QStringLiteral("cursor")});
    QCOMPARE(noFile.exitCode, 0);
    QVERIFY2(noFile.out.contains("not found"), noFile.out.constData());
    QVERIFY(!QFileInfo::exists(path));

    const QByteArray original = "{\"mcpServers\": {\"a\": {\"command\": \"/bin/a\"}}}";
    writeFile(path, original);
    const Result noEntry = run({QStringLiteral("uninstall-client"), QStringLiteral("cursor")});
    QCOMPARE(noEntry.exitCode, 0);
    QVERIFY2(noEntry.out.contains("nothing to remove"), noEntry.out.constData());
    QCOMPARE(readFile(path), original);
    QVERIFY(backups(path).isEmpty());
}

void tst_ClientCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("no client") << QStringList{QStringLiteral("install-client")}
                               << QByteArray("which client?");
    QTest::newRow("unknown client")
        << QStringList{QStringLiteral("install-client"), QStringLiteral("emacs")}
        << QByteArray("unknown client \"emacs\"");
    QTest::newRow("--url without --http")
        << QStringList{QStringLiteral("install-client"), QStringLiteral("cursor"),
                       QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:1/mcp")}
        << QByteArray("add --http");
    QTest::newRow("two tokens") << QStringList{QStringLiteral("install-client"),
                                               QStringLiteral("cursor"),
                                               QStringLiteral("--http"),
                                               QStringLiteral("--token"),
                                               QStringLiteral("a"),
                                               QStringLiteral("--token-file"),
                                               QStringLiteral("/dev/null")}
                                << QByteArray("exclude each other");
    QTest::newRow("--list with a client")
        << QStringList{QStringLiteral("install-client"), QStringLiteral("codex"),
                       QStringLiteral("--list")}
        << QByteArray("--list takes no client");
    QTest::newRow("--list with --http")
        << QStringList{QStringLiteral("install-client"), QStringLiteral("--list"),
                       QStringLiteral("--http")}
        << QByteArray("--list does not go with --http");
    QTest::newRow("uninstall: unknown option")
        << QStringList{QStringLiteral("uninstall-client"), QStringLiteral("cursor"),
                       QStringLiteral("--http")}
        << QByteArray("Unknown option");
}

void tst_ClientCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, message);
    const Result result = run(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains(message), result.err.constData());
    QVERIFY(QDir(m_home->path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
}

void tst_ClientCommand::projectScope()
{
    const QString project = m_home->filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(project));
    const QString path = project + QStringLiteral("/.mcp.json");
    const QByteArray original =
        "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"db-mcp\"}\n  }\n}\n";
    writeFile(path, original);

    const Result installed = run({QStringLiteral("install-client"), QStringLiteral("claude-code"),
                                  QStringLiteral("--project"), project});
    QVERIFY2(installed.exitCode == 0, installed.err.constData());
    QVERIFY2(installed.out.contains(QFile::encodeName(path)), installed.out.constData());
    QCOMPARE(serverEntry(path).value(QStringLiteral("type")).toString(), QStringLiteral("stdio"));
    QCOMPARE(serverEntry(path).value(QStringLiteral("command")).toString(),
             QStringLiteral(CSM_SERVER_BINARY));
    // The user's own file is not touched.
    QVERIFY(!QFileInfo::exists(m_home->filePath(QStringLiteral(".claude.json"))));

    const Result removed = run({QStringLiteral("uninstall-client"), QStringLiteral("claude-code"),
                                QStringLiteral("--project"), project});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(readFile(path), original);

    // A folder that is not there, a client without a project file.
    const Result missing = run({QStringLiteral("install-client"), QStringLiteral("claude-code"),
                                QStringLiteral("--project"), project + QStringLiteral("/nope")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("does not exist"), missing.err.constData());
    const Result notForCodex = run({QStringLiteral("install-client"), QStringLiteral("codex"),
                                    QStringLiteral("--project"), project});
    QCOMPARE(notForCodex.exitCode, 2);
    QVERIFY2(notForCodex.err.contains("--project is for claude-code"), notForCodex.err.constData());
}

void tst_ClientCommand::listShowsInstalledAndWired()
{
    // Codex is installed (its folder) and wired; Goose wired over HTTP; Zed's file is broken.
    QVERIFY(run({QStringLiteral("install-client"), QStringLiteral("codex")}).exitCode == 0);
    QVERIFY(run({QStringLiteral("install-client"), QStringLiteral("goose"),
                 QStringLiteral("--http"), QStringLiteral("--token"), QStringLiteral("t0k")})
                .exitCode == 0);
    writeFile(configPath(QStringLiteral("zed")), "{ nope");
    // A Claude Code entry left behind by a code-sandbox-mcp that has since moved.
    writeFile(configPath(QStringLiteral("claude-code")),
              "{\"mcpServers\": {\"code-sandbox\": {\"command\": \"/moved/code-sandbox-mcp\"}}}");

    const Result listed = run({QStringLiteral("install-client"), QStringLiteral("--list")});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    const QList<QByteArray> lines = listed.out.split('\n');
    QVERIFY2(lines.constFirst().startsWith("CLIENT"), listed.out.constData());
    const auto rowOf = [&lines](const QByteArray& id) {
        for (const QByteArray& line : lines) {
            if (line.startsWith(QByteArray(id + ' ')))
                return line.simplified();
        }
        return QByteArray();
    };
    QCOMPARE(rowOf("codex"), QByteArray("codex yes stdio: " CSM_SERVER_BINARY " ") +
                                 QFile::encodeName(configPath(QStringLiteral("codex"))));
    QVERIFY2(rowOf("goose").startsWith("goose yes HTTP: http://127.0.0.1:8765/mcp "),
             listed.out.constData());
    QVERIFY2(rowOf("zed").startsWith("zed yes unreadable "), listed.out.constData());
    QVERIFY2(rowOf("cursor").startsWith("cursor no no "), listed.out.constData());
    QVERIFY2(listed.out.contains(
                 QByteArray("zed: " + QFile::encodeName(configPath(QStringLiteral("zed"))))),
             listed.out.constData());
    QVERIFY2(listed.out.contains("claude-code: code-sandbox: /moved/code-sandbox-mcp no longer "
                                 "exists"),
             listed.out.constData());
    // --list changes nothing.
    QVERIFY(backups(configPath(QStringLiteral("codex"))).isEmpty());
}

QTEST_GUILESS_MAIN(tst_ClientCommand)
#include "tst_ClientCommand.moc"
