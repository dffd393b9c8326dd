#include "clients/ClientConfigExposure.h"
#include "clients/ClientConfigFormat.h"
#include "clients/ClientConfigLocation.h"
#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"
#include "clients/ClientServerEntry.h"
#include "clients/ClientSurvey.h"
#include "clients/JsonTextScanner.h"
#include "clients/McpClient.h"
#include "transport/http/HttpServerConfig.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using csm::ClientConfigChange;
using csm::ClientConfigExposure;
using csm::ClientConfigLocation;
using csm::ClientConfigMerger;
using csm::ClientConfigSnippet;
using csm::ClientServerEntry;
using csm::JsonTextScanner;
using csm::McpClient;
using csm::McpClientTraits;
using Action = ClientConfigChange::Action;

Q_DECLARE_METATYPE(McpClient)
Q_DECLARE_METATYPE(ClientServerEntry)
Q_DECLARE_METATYPE(ClientConfigChange::Action)

namespace {

const QString kCommand = QStringLiteral("/opt/csm/bin/code-sandbox-mcp");
const QString kToken = QStringLiteral("s3cr\"et");

ClientServerEntry stdioEntry()
{
    return ClientServerEntry::stdio(kCommand);
}

ClientServerEntry httpEntry(const QString& token = {})
{
    return ClientServerEntry::http(QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), token);
}

QJsonObject object(const QByteArray& json)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << error.errorString() << json;
    return document.object();
}

// The text `after` adds to `before` when it is `before` with one piece of text inserted in one
// place (everything else byte for byte the same); a null array when it is not.
QByteArray insertionOf(const QByteArray& before, const QByteArray& after)
{
    if (after.size() < before.size())
        return {};
    qsizetype prefix = 0;
    while (prefix < before.size() && before.at(prefix) == after.at(prefix))
        ++prefix;
    const qsizetype inserted = after.size() - before.size();
    if (before.mid(prefix) != after.mid(prefix + inserted))
        return {};
    return after.mid(prefix, inserted).isNull() ? QByteArray("") : after.mid(prefix, inserted);
}

int modeOf(const QString& path)
{
    struct stat status
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &status) == 0
               ? static_cast<int>(status.st_mode & 07777)
               : -1;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(data) == data.size();
}

QStringList backupsOf(const QString& path)
{
    const QFileInfo info(path);
    return QDir(info.absolutePath())
        .entryList({info.fileName() + QStringLiteral(".bak-*")}, QDir::Files, QDir::Name);
}

// A Claude Desktop file as people have them: another server and a setting of the app.
const QByteArray kClaudeWithOtherServer = "{\n"
                                          "  \"mcpServers\": {\n"
                                          "    \"filesystem\": {\n"
                                          "      \"command\": \"npx\",\n"
                                          "      \"args\": [\"-y\", \"server-fs\", \"/home/me\"]\n"
                                          "    }\n"
                                          "  },\n"
                                          "  \"globalShortcut\": \"Ctrl+Space\"\n"
                                          "}\n";

// The text the stdio entry is written as one level below a two-space servers object.
const QByteArray kEntryAt4 = "\"code-sandbox\": {\n"
                             "      \"command\": \"/opt/csm/bin/code-sandbox-mcp\"\n"
                             "    }";

} // namespace

class tst_ClientConfig final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clientIds();
    void locations_data();
    void locations();
    void entryUrls_data();
    void entryUrls();
    void entryProblems();

    void snippetShape_data();
    void snippetShape();
    void snippetText();

    void scanner_data();
    void scanner();

    void merge_data();
    void merge();
    void mergeKeepsEverythingElse_data();
    void mergeKeepsEverythingElse();
    void mergeReplacesAndKeepsEqual();
    void mergeRefuses_data();
    void mergeRefuses();
    void removeRefusesAndNotFound();

    void installCreatesFileAndFolder();
    void installIntoExistingFileKeepsABackup();
    void installRefusesInvalidFileUntouched();
    void installUnchangedWritesNothing();
    void previewWritesNothing();
    void uninstallRestoresTheFile_data();
    void uninstallRestoresTheFile();
    void uninstallMissingFile();
    void installFollowsSymlink();
    void backupNamesAreUnique();
    void tokenMakesAnExistingFilePrivate();
    void tokenInASharedPlaceIsWarnedAbout();

    // Codex's TOML, Goose's YAML and the other JSON clients' dialects.
    void tomlAndYamlSnippets();
    void otherFormatsKeepEverythingElse_data();
    void otherFormatsKeepEverythingElse();
    void otherFormatsReplace_data();
    void otherFormatsReplace();
    void otherFormatsRefuse_data();
    void otherFormatsRefuse();
    void tomlKeysAndStrings();
    void missingAndUnreadableFiles_data();
    void missingAndUnreadableFiles();
    void projectScope();
    void surveyFindsInstalledWiredAndMissing();

private:
    QTemporaryDir m_dir;
};

void tst_ClientConfig::clientIds()
{
    QCOMPARE(McpClientTraits::all().size(), 12);
    for (const McpClient client : McpClientTraits::all()) {
        QCOMPARE(McpClientTraits::fromId(McpClientTraits::id(client)), client);
        QVERIFY(!McpClientTraits::displayName(client).isEmpty());
    }
    QCOMPARE(McpClientTraits::fromId(QStringLiteral(" Claude ")), McpClient::ClaudeDesktop);
    QCOMPARE(McpClientTraits::fromId(QStringLiteral("windsurf")), McpClient::Windsurf);
    QCOMPARE(McpClientTraits::fromId(QStringLiteral("codex")), McpClient::Codex);
    QCOMPARE(McpClientTraits::fromId(QStringLiteral("claude-code")), McpClient::ClaudeCode);
    QCOMPARE(McpClientTraits::fromId(QStringLiteral("nope")), std::nullopt);
    QCOMPARE(McpClientTraits::serversKey(McpClient::VsCode), QStringLiteral("servers"));
    QCOMPARE(McpClientTraits::serversKey(McpClient::Cursor), QStringLiteral("mcpServers"));
    QCOMPARE(McpClientTraits::serversKey(McpClient::OpenCode), QStringLiteral("mcp"));
    QCOMPARE(McpClientTraits::serversKey(McpClient::Zed), QStringLiteral("context_servers"));
    QCOMPARE(McpClientTraits::serversKey(McpClient::Codex), QStringLiteral("mcp_servers"));
    QCOMPARE(McpClientTraits::serversKey(McpClient::Goose), QStringLiteral("extensions"));
    QCOMPARE(McpClientTraits::format(McpClient::Codex), McpClientTraits::Format::Toml);
    QCOMPARE(McpClientTraits::format(McpClient::Goose), McpClientTraits::Format::Yaml);
    QCOMPARE(McpClientTraits::format(McpClient::Zed), McpClientTraits::Format::Json);
}

void tst_ClientConfig::locations_data()
{
    QTest::addColumn<QString>("xdgConfigHome");
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QString>("expected");

    QTest::newRow("claude") << QString() << McpClient::ClaudeDesktop
                            << QStringLiteral("/home/u/.config/Claude/claude_desktop_config.json");
    QTest::newRow("claude, XDG_CONFIG_HOME")
        << QStringLiteral("/xdg/") << McpClient::ClaudeDesktop
        << QStringLiteral("/xdg/Claude/claude_desktop_config.json");
    QTest::newRow("relative XDG_CONFIG_HOME is ignored")
        << QStringLiteral("rel") << McpClient::ClaudeDesktop
        << QStringLiteral("/home/u/.config/Claude/claude_desktop_config.json");
    QTest::newRow("gemini") << QStringLiteral("/xdg") << McpClient::GeminiCli
                            << QStringLiteral("/home/u/.gemini/settings.json");
    QTest::newRow("vscode") << QString() << McpClient::VsCode
                            << QStringLiteral("/home/u/.config/Code/User/mcp.json");
    QTest::newRow("cursor") << QString() << McpClient::Cursor
                            << QStringLiteral("/home/u/.cursor/mcp.json");
    QTest::newRow("claude-code") << QString() << McpClient::ClaudeCode
                                 << QStringLiteral("/home/u/.claude.json");
    QTest::newRow("codex") << QString() << McpClient::Codex
                           << QStringLiteral("/home/u/.codex/config.toml");
    QTest::newRow("opencode") << QString() << McpClient::OpenCode
                              << QStringLiteral("/home/u/.config/opencode/opencode.json");
    QTest::newRow("opencode, XDG_CONFIG_HOME") << QStringLiteral("/xdg") << McpClient::OpenCode
                                               << QStringLiteral("/xdg/opencode/opencode.json");
    QTest::newRow("qwen") << QString() << McpClient::QwenCode
                          << QStringLiteral("/home/u/.qwen/settings.json");
    QTest::newRow("windsurf") << QString() << McpClient::Windsurf
                              << QStringLiteral("/home/u/.codeium/windsurf/mcp_config.json");
    QTest::newRow("zed") << QString() << McpClient::Zed
                         << QStringLiteral("/home/u/.config/zed/settings.json");
    QTest::newRow("lmstudio") << QString() << McpClient::LmStudio
                              << QStringLiteral("/home/u/.lmstudio/mcp.json");
    QTest::newRow("goose") << QStringLiteral("/xdg") << McpClient::Goose
                           << QStringLiteral("/xdg/goose/config.yaml");
}

void tst_ClientConfig::locations()
{
#if defined(Q_OS_WIN) || defined(Q_OS_MACOS)
    QSKIP("the expected paths are the Linux ones");
#endif
    QFETCH(QString, xdgConfigHome);
    QFETCH(McpClient, client);
    QFETCH(QString, expected);
    QProcessEnvironment environment;
    if (!xdgConfigHome.isNull())
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), xdgConfigHome);
    const ClientConfigLocation location =
        ClientConfigLocation::forEnvironment(QStringLiteral("/home/u"), environment);
    QCOMPARE(location.configPath(client), expected);
}

void tst_ClientConfig::entryUrls_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("url");

    QTest::newRow("loopback") << QStringLiteral("127.0.0.1")
                              << QStringLiteral("http://127.0.0.1:8765/mcp");
    QTest::newRow("any IPv4") << QStringLiteral("0.0.0.0")
                              << QStringLiteral("http://127.0.0.1:8765/mcp");
    QTest::newRow("any IPv6") << QStringLiteral("::") << QStringLiteral("http://[::1]:8765/mcp");
    QTest::newRow("IPv6") << QStringLiteral("::1") << QStringLiteral("http://[::1]:8765/mcp");
    QTest::newRow("bracketed IPv6")
        << QStringLiteral("[fd00::5]") << QStringLiteral("http://[fd00::5]:8765/mcp");
    QTest::newRow("name") << QStringLiteral("box.lan") << QStringLiteral("http://box.lan:8765/mcp");
}

void tst_ClientConfig::entryUrls()
{
    QFETCH(QString, host);
    QFETCH(QString, url);
    csm::http::HttpServerConfig config;
    config.host = host;
    config.authToken = kToken;
    const ClientServerEntry entry = ClientServerEntry::http(config.clientUrl(), config.authToken);
    QCOMPARE(entry.url.toString(), url);
    QCOMPARE(entry.token, kToken);
    QCOMPARE(entry.problem(), QString());
}

void tst_ClientConfig::entryProblems()
{
    QVERIFY(stdioEntry().problem().isEmpty());
    QVERIFY(ClientServerEntry::stdio(QStringLiteral("code-sandbox-mcp"))
                .problem()
                .contains(QLatin1String("absolute")));
    QVERIFY(!ClientServerEntry::stdio(QString()).problem().isEmpty());
    QVERIFY(!ClientServerEntry::http(QUrl(QStringLiteral("ftp://x/mcp"))).problem().isEmpty());
    QVERIFY(!ClientServerEntry::http(QUrl(QStringLiteral("http://127.0.0.1:0/mcp")))
                 .problem()
                 .isEmpty());
    ClientServerEntry unnamed = stdioEntry();
    unnamed.name = QStringLiteral(" ");
    QVERIFY(!unnamed.problem().isEmpty());
    // A refused entry is refused before any file is looked at.
    const ClientConfigChange change =
        ClientConfigMerger(McpClient::Cursor).merge("{}", ClientServerEntry::stdio(QString()));
    QCOMPARE(change.action, Action::Failed);
    QCOMPARE(change.text, QByteArray("{}"));
}

void tst_ClientConfig::snippetShape_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<ClientServerEntry>("entry");
    QTest::addColumn<QByteArray>("expected"); // the server's value

    const ClientServerEntry withEnv =
        ClientServerEntry::stdio(kCommand, {QStringLiteral("--verbose")},
                                 {{QStringLiteral("CODE_SANDBOX_DATA_DIR"), QStringLiteral("/d")}});
    const ClientServerEntry remote =
        ClientServerEntry::http(QUrl(QStringLiteral("http://192.168.1.5:8765/mcp")), kToken);

    QTest::newRow("claude stdio")
        << McpClient::ClaudeDesktop << withEnv
        << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp", "args": ["--verbose"],
                          "env": {"CODE_SANDBOX_DATA_DIR": "/d"}})");
    QTest::newRow("claude stdio, no arguments")
        << McpClient::ClaudeDesktop << stdioEntry()
        << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("claude http") << McpClient::ClaudeDesktop << httpEntry()
                                 << QByteArray(R"({"command": "npx", "args": ["-y", "mcp-remote",
                                                   "http://127.0.0.1:8765/mcp"]})");
    QTest::newRow("claude http, token")
        << McpClient::ClaudeDesktop << httpEntry(kToken)
        << QByteArray(R"({"command": "npx", "args": ["-y", "mcp-remote",
                          "http://127.0.0.1:8765/mcp", "--header", "Authorization:${AUTH_HEADER}"],
                          "env": {"AUTH_HEADER": "Bearer s3cr\"et"}})");
    QTest::newRow("claude http, not loopback")
        << McpClient::ClaudeDesktop << remote
        << QByteArray(R"({"command": "npx", "args": ["-y", "mcp-remote",
                          "http://192.168.1.5:8765/mcp", "--allow-http", "--header",
                          "Authorization:${AUTH_HEADER}"],
                          "env": {"AUTH_HEADER": "Bearer s3cr\"et"}})");
    QTest::newRow("gemini stdio") << McpClient::GeminiCli << withEnv
                                  << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp",
                                                    "args": ["--verbose"],
                                                    "env": {"CODE_SANDBOX_DATA_DIR": "/d"}})");
    QTest::newRow("gemini http") << McpClient::GeminiCli << httpEntry()
                                 << QByteArray(R"({"httpUrl": "http://127.0.0.1:8765/mcp"})");
    QTest::newRow("gemini http, token") << McpClient::GeminiCli << httpEntry(kToken)
                                        << QByteArray(R"({"httpUrl": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("vscode stdio")
        << McpClient::VsCode << withEnv
        << QByteArray(R"({"type": "stdio", "command": "/opt/csm/bin/code-sandbox-mcp",
                          "args": ["--verbose"], "env": {"CODE_SANDBOX_DATA_DIR": "/d"}})");
    QTest::newRow("vscode http") << McpClient::VsCode << httpEntry()
                                 << QByteArray(R"({"type": "http",
                                                   "url": "http://127.0.0.1:8765/mcp"})");
    QTest::newRow("vscode http, token")
        << McpClient::VsCode << httpEntry(kToken)
        << QByteArray(R"({"type": "http", "url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("cursor stdio") << McpClient::Cursor << stdioEntry()
                                  << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("cursor http, token") << McpClient::Cursor << httpEntry(kToken)
                                        << QByteArray(R"({"url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("claude-code stdio")
        << McpClient::ClaudeCode << stdioEntry()
        << QByteArray(R"({"type": "stdio", "command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("claude-code http, token")
        << McpClient::ClaudeCode << httpEntry(kToken)
        << QByteArray(R"({"type": "http", "url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("opencode stdio")
        << McpClient::OpenCode << withEnv << QByteArray(R"({"type": "local",
                          "command": ["/opt/csm/bin/code-sandbox-mcp", "--verbose"],
                          "environment": {"CODE_SANDBOX_DATA_DIR": "/d"}})");
    QTest::newRow("opencode http, token")
        << McpClient::OpenCode << httpEntry(kToken)
        << QByteArray(R"({"type": "remote", "url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("qwen stdio") << McpClient::QwenCode << stdioEntry()
                                << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("qwen http, token") << McpClient::QwenCode << httpEntry(kToken)
                                      << QByteArray(R"({"httpUrl": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("windsurf stdio")
        << McpClient::Windsurf << stdioEntry()
        << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("windsurf http, token")
        << McpClient::Windsurf << httpEntry(kToken)
        << QByteArray(R"({"serverUrl": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("zed stdio")
        << McpClient::Zed << stdioEntry()
        << QByteArray(R"({"source": "custom", "command": "/opt/csm/bin/code-sandbox-mcp",
                          "args": []})");
    QTest::newRow("zed http, token")
        << McpClient::Zed << httpEntry(kToken) << QByteArray(R"({"url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
    QTest::newRow("lmstudio stdio")
        << McpClient::LmStudio << stdioEntry()
        << QByteArray(R"({"command": "/opt/csm/bin/code-sandbox-mcp"})");
    QTest::newRow("lmstudio http, token") << McpClient::LmStudio << httpEntry(kToken)
                                          << QByteArray(R"({"url": "http://127.0.0.1:8765/mcp",
                          "headers": {"Authorization": "Bearer s3cr\"et"}})");
}

void tst_ClientConfig::snippetShape()
{
    QFETCH(McpClient, client);
    QFETCH(ClientServerEntry, entry);
    QFETCH(QByteArray, expected);

    const QByteArray text = ClientConfigSnippet::text(client, entry).toUtf8();
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = document.object();
    QCOMPARE(root.keys(), QStringList{McpClientTraits::serversKey(client)});
    const QJsonObject servers = root.value(McpClientTraits::serversKey(client)).toObject();
    QCOMPARE(servers.keys(), QStringList{QStringLiteral("code-sandbox")});
    QCOMPARE(servers.value(QStringLiteral("code-sandbox")).toObject(), object(expected));
    QVERIFY(text.endsWith("}\n"));
    QVERIFY(!ClientConfigSnippet::notes(client, entry.transport).isEmpty());
    // The members come in the documented order ("type" first in VS Code), not sorted.
    if (client == McpClient::VsCode)
        QVERIFY(text.indexOf("\"type\"") <
                text.indexOf(entry.command.isEmpty() ? "\"url\"" : "\"command\""));
    if (entry.transport == ClientServerEntry::Transport::Stdio)
        QVERIFY(text.indexOf("\"command\"") < text.indexOf("\"args\"") ||
                !text.contains("\"args\""));
}

void tst_ClientConfig::snippetText()
{
    // The exact text, so its layout (two-space indent, one value per line) is pinned down.
    QCOMPARE(ClientConfigSnippet::text(McpClient::VsCode, httpEntry(QStringLiteral("tok"))),
             QStringLiteral("{\n"
                            "  \"servers\": {\n"
                            "    \"code-sandbox\": {\n"
                            "      \"type\": \"http\",\n"
                            "      \"url\": \"http://127.0.0.1:8765/mcp\",\n"
                            "      \"headers\": {\n"
                            "        \"Authorization\": \"Bearer tok\"\n"
                            "      }\n"
                            "    }\n"
                            "  }\n"
                            "}\n"));
    QCOMPARE(ClientConfigSnippet::text(
                 McpClient::ClaudeDesktop,
                 ClientServerEntry::stdio(QStringLiteral("/usr/bin/code-sandbox-desktop"),
                                          {QStringLiteral("--stdio")})),
             QStringLiteral("{\n"
                            "  \"mcpServers\": {\n"
                            "    \"code-sandbox\": {\n"
                            "      \"command\": \"/usr/bin/code-sandbox-desktop\",\n"
                            "      \"args\": [\n"
                            "        \"--stdio\"\n"
                            "      ]\n"
                            "    }\n"
                            "  }\n"
                            "}\n"));
}

void tst_ClientConfig::scanner_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("comments");
    QTest::addColumn<bool>("trailingCommas");
    QTest::addColumn<QString>("error"); // empty: valid; else "line:column"

    QTest::newRow("object") << QByteArray(R"({"a": [1, -2.5e+3, true, null, "x"]})") << false
                            << false << QString();
    QTest::newRow("braces in strings")
        << QByteArray(R"({"}{": "]\"[", "b": "\\", "c": "\u00e9"})") << false << false << QString();
    QTest::newRow("comment-like strings")
        << QByteArray(R"({"a": "// x", "b": "/* y */"})") << false << false << QString();
    QTest::newRow("BOM") << QByteArray("\xEF\xBB\xBF{}") << false << false << QString();
    QTest::newRow("line comment refused")
        << QByteArray("{\n  // x\n}") << false << false << QStringLiteral("2:3");
    QTest::newRow("line comment") << QByteArray("{\n  // x\n}") << true << false << QString();
    QTest::newRow("block comment")
        << QByteArray("{/* a } */\"a\": 1}") << true << false << QString();
    QTest::newRow("unclosed comment")
        << QByteArray("{/* a }") << true << true << QStringLiteral("1:2");
    QTest::newRow("trailing comma refused")
        << QByteArray("{\"a\": 1,\n}") << true << false << QStringLiteral("1:8");
    QTest::newRow("trailing comma") << QByteArray("{\"a\": [1,],}") << true << true << QString();
    QTest::newRow("lone comma") << QByteArray("{,}") << true << true << QStringLiteral("1:2");
    QTest::newRow("unclosed object")
        << QByteArray("{\"a\": 1") << false << false << QStringLiteral("1:8");
    QTest::newRow("single quotes")
        << QByteArray("{'a': 1}") << false << false << QStringLiteral("1:2");
    QTest::newRow("line break in string")
        << QByteArray("{\"a\": \"x\ny\"}") << false << false << QStringLiteral("1:9");
    QTest::newRow("bad escape") << QByteArray(R"({"a": "\x"})") << false << false
                                << QStringLiteral("1:8");
    QTest::newRow("leading zero") << QByteArray("[01]") << false << false << QStringLiteral("1:3");
    QTest::newRow("text after") << QByteArray("{} {}") << false << false << QStringLiteral("1:4");
    QTest::newRow("empty") << QByteArray(" \n") << false << false << QStringLiteral("2:1");
    QTest::newRow("deep") << QByteArray(300, '[') + QByteArray(300, ']') << false << false
                          << QStringLiteral("1:257");
}

void tst_ClientConfig::scanner()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, comments);
    QFETCH(bool, trailingCommas);
    QFETCH(QString, error);

    JsonTextScanner::Error problem;
    const auto root = JsonTextScanner::parse(text, {comments, trailingCommas}, &problem);
    QCOMPARE(root.has_value(), error.isEmpty());
    if (root)
        QVERIFY(root->end <= text.size());
    else
        QCOMPARE(QStringLiteral("%1:%2").arg(problem.line).arg(problem.column), error);
}

void tst_ClientConfig::merge_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<Action>("action");

    QTest::newRow("blank file") << McpClient::Cursor << QByteArray(" \n")
                                << QByteArray("{\n  \"mcpServers\": {\n    " + kEntryAt4 +
                                              "\n  }\n}\n")
                                << Action::Added;
    QTest::newRow("empty object") << McpClient::ClaudeDesktop << QByteArray("{}")
                                  << QByteArray("{\n  \"mcpServers\": {\n    " + kEntryAt4 +
                                                "\n  }\n}")
                                  << Action::Added;
    QTest::newRow("empty object over lines")
        << McpClient::ClaudeDesktop << QByteArray("{\n}\n")
        << QByteArray("{\n  \"mcpServers\": {\n    " + kEntryAt4 + "\n  }\n}\n") << Action::Added;
    QTest::newRow("empty servers")
        << McpClient::ClaudeDesktop << QByteArray("{\n  \"mcpServers\": {}\n}\n")
        << QByteArray("{\n  \"mcpServers\": {\n    " + kEntryAt4 + "\n  }\n}\n") << Action::Added;
    QTest::newRow("one line stays one line")
        << McpClient::ClaudeDesktop << QByteArray(R"({"mcpServers":{"a":{"command":"x"}}})")
        << QByteArray(R"({"mcpServers":{"a":{"command":"x"},"code-sandbox":{"command":)"
                      R"("/opt/csm/bin/code-sandbox-mcp"}}})")
        << Action::Added;
    QTest::newRow("other servers") << McpClient::ClaudeDesktop << kClaudeWithOtherServer
                                   << QByteArray("{\n"
                                                 "  \"mcpServers\": {\n"
                                                 "    \"filesystem\": {\n"
                                                 "      \"command\": \"npx\",\n"
                                                 "      \"args\": [\"-y\", \"server-fs\", "
                                                 "\"/home/me\"]\n"
                                                 "    },\n    " +
                                                 kEntryAt4 +
                                                 "\n"
                                                 "  },\n"
                                                 "  \"globalShortcut\": \"Ctrl+Space\"\n"
                                                 "}\n")
                                   << Action::Added;
    QTest::newRow("no servers yet")
        << McpClient::GeminiCli << QByteArray("{\n  \"theme\": \"Dracula\"\n}\n")
        << QByteArray("{\n  \"theme\": \"Dracula\",\n  \"mcpServers\": {\n    " + kEntryAt4 +
                      "\n  }\n}\n")
        << Action::Added;
    QTest::newRow("CRLF")
        << McpClient::Cursor << QByteArray("{\r\n  \"mcpServers\": {\r\n  }\r\n}\r\n")
        << QByteArray("{\r\n  \"mcpServers\": {\r\n    \"code-sandbox\": {\r\n      \"command\": "
                      "\"/opt/csm/bin/code-sandbox-mcp\"\r\n    }\r\n  }\r\n}\r\n")
        << Action::Added;
    QTest::newRow("tabs") << McpClient::VsCode
                          << QByteArray("{\n\t\"servers\": {\n\t\t\"a\": {\n\t\t\t\"type\": "
                                        "\"stdio\",\n\t\t\t\"command\": \"x\"\n\t\t}\n\t}\n}")
                          << QByteArray("{\n\t\"servers\": {\n\t\t\"a\": {\n\t\t\t\"type\": "
                                        "\"stdio\",\n\t\t\t\"command\": \"x\"\n\t\t},\n"
                                        "\t\t\"code-sandbox\": {\n\t\t\t\"type\": \"stdio\",\n"
                                        "\t\t\t\"command\": \"/opt/csm/bin/code-sandbox-mcp\"\n"
                                        "\t\t}\n\t}\n}")
                          << Action::Added;
    QTest::newRow("four spaces, no space after colon")
        << McpClient::Cursor << QByteArray("{\n    \"mcpServers\":{\n    }\n}")
        << QByteArray("{\n    \"mcpServers\":{\n        \"code-sandbox\":{\n            "
                      "\"command\":\"/opt/csm/bin/code-sandbox-mcp\"\n        }\n    }\n}")
        << Action::Added;
    QTest::newRow("JSONC comments and trailing commas")
        << McpClient::VsCode
        << QByteArray("{\n"
                      "  // my servers\n"
                      "  \"servers\": {\n"
                      "    \"a\": {\"type\": \"stdio\", \"command\": \"x\"}, // inline\n"
                      "  },\n"
                      "  /* inputs */ \"inputs\": [],\n"
                      "}\n")
        << QByteArray("{\n"
                      "  // my servers\n"
                      "  \"servers\": {\n"
                      "    \"a\": {\"type\": \"stdio\", \"command\": \"x\"},\n"
                      "    \"code-sandbox\": {\n"
                      "      \"type\": \"stdio\",\n"
                      "      \"command\": \"/opt/csm/bin/code-sandbox-mcp\"\n"
                      "    }, // inline\n"
                      "  },\n"
                      "  /* inputs */ \"inputs\": [],\n"
                      "}\n")
        << Action::Added;
    QTest::newRow("comment in empty servers")
        << McpClient::GeminiCli << QByteArray("{\"mcpServers\": { // none yet\n}}")
        << QByteArray("{\"mcpServers\": { // none yet\n  " +
                      QByteArray(kEntryAt4).replace("\n  ", "\n") + "\n}}")
        << Action::Added;
}

void tst_ClientConfig::merge()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(Action, action);

    const ClientConfigChange change = ClientConfigMerger(client).merge(before, stdioEntry());
    QCOMPARE(change.error, QString());
    QCOMPARE(change.action, action);
    QCOMPARE(change.text, after);
}

void tst_ClientConfig::mergeKeepsEverythingElse_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");

    QTest::newRow("claude, other server") << McpClient::ClaudeDesktop << kClaudeWithOtherServer;
    QTest::newRow("escaped strings") << McpClient::ClaudeDesktop << QByteArray(R"({
  "mcpServers": {
    "we\"ird}{": {
      "command": "/bin/sh",
      "args": ["-c", "echo '{\"a\": [1,2]}' } ] \\", "/* no comment */", "// nor this"],
      "env": {"X": "\u007b\u007d"}
    },
    "code-sandboxed": {"command": "y"}
  },
  "preferences": {"mcpServers": {"code-sandbox": "not this one"}}
})");
    QTest::newRow("gemini settings")
        << McpClient::GeminiCli
        << QByteArray("{\n  \"theme\": \"GitHub\",\n  \"selectedAuthType\": \"oauth-personal\",\n"
                      "  // servers\n  \"mcpServers\": {\n    \"git\": {\"command\": \"uvx\", "
                      "\"args\": [\"mcp-server-git\"]}\n  }\n}\n");
    QTest::newRow("vscode with inputs")
        << McpClient::VsCode
        << QByteArray("{\n\t\"servers\": {\n\t\t\"memory\": {\n\t\t\t\"command\": \"npx\",\n"
                      "\t\t\t\"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]\n\t\t}"
                      "\n\t},\n\t\"inputs\": [\n\t\t{\"type\": \"promptString\", \"id\": \"k\","
                      " \"password\": true}\n\t]\n}");
    QTest::newRow("cursor, servers last, CRLF")
        << McpClient::Cursor
        << QByteArray("{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"url\": "
                      "\"https://x/mcp\"\r\n    },\r\n    \"b\": {\"command\": \"c\"}\r\n  }\r\n}");
    QTest::newRow("BOM, no final line end")
        << McpClient::Cursor << QByteArray("\xEF\xBB\xBF{\"other\": 1}");
}

void tst_ClientConfig::mergeKeepsEverythingElse()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);

    for (const ClientServerEntry& entry : {stdioEntry(), httpEntry(kToken)}) {
        const ClientConfigMerger merger(client);
        const ClientConfigChange change = merger.merge(before, entry);
        QCOMPARE(change.error, QString());
        QCOMPARE(change.action, Action::Added);
        // One piece of text inserted, the rest byte for byte as it was...
        const QByteArray inserted = insertionOf(before, change.text);
        QVERIFY2(!inserted.isNull(), change.text.constData());
        QVERIFY(inserted.contains("\"code-sandbox\""));
        // ...and what the client reads is the old configuration plus the entry.
        const QByteArray plain = client == McpClient::ClaudeDesktop ? change.text : QByteArray();
        if (!plain.isEmpty()) {
            QJsonObject expected = object(before);
            QJsonObject servers = expected.value(QStringLiteral("mcpServers")).toObject();
            servers.insert(
                QStringLiteral("code-sandbox"),
                csm::JsonTextWriter::toObject(ClientConfigSnippet::serverValue(client, entry)));
            expected.insert(QStringLiteral("mcpServers"), servers);
            QCOMPARE(object(plain), expected);
        }
        // Added twice is the same as once.
        const ClientConfigChange again = merger.merge(change.text, entry);
        QCOMPARE(again.action, Action::Unchanged);
        QCOMPARE(again.text, change.text);
        // Taking it out gives the file back.
        const ClientConfigChange removed = merger.remove(change.text, entry.name);
        QCOMPARE(removed.action, Action::Removed);
        QCOMPARE(removed.text, before);
    }
}

void tst_ClientConfig::mergeReplacesAndKeepsEqual()
{
    const QByteArray before = "{\n"
                              "  \"mcpServers\": {\n"
                              "    \"code-sandbox\": {\"command\": \"/old/path\"},\n"
                              "    \"z\": {\"command\": \"z\"}\n"
                              "  }\n"
                              "}\n";
    const ClientConfigMerger merger(McpClient::ClaudeDesktop);
    const ClientConfigChange change = merger.merge(before, stdioEntry());
    QCOMPARE(change.action, Action::Replaced);
    QCOMPARE(change.text, QByteArray("{\n"
                                     "  \"mcpServers\": {\n"
                                     "    \"code-sandbox\": {\n"
                                     "      \"command\": \"/opt/csm/bin/code-sandbox-mcp\"\n"
                                     "    },\n"
                                     "    \"z\": {\"command\": \"z\"}\n"
                                     "  }\n"
                                     "}\n"));
    // An equal entry written differently by hand is left as it is.
    const QByteArray handWritten = "{\"mcpServers\": {\"code-sandbox\": {  \"command\" : "
                                   "\"/opt/csm/bin/code-sandbox-mcp\" }}}";
    const ClientConfigChange same = merger.merge(handWritten, stdioEntry());
    QCOMPARE(same.action, Action::Unchanged);
    QCOMPARE(same.text, handWritten);
    // From stdio to HTTP: replaced in place.
    const ClientConfigChange toHttp = merger.merge(change.text, httpEntry());
    QCOMPARE(toHttp.action, Action::Replaced);
    QCOMPARE(object(toHttp.text)
                 .value(QStringLiteral("mcpServers"))
                 .toObject()
                 .value(QStringLiteral("code-sandbox"))
                 .toObject()
                 .value(QStringLiteral("command")),
             QJsonValue(QStringLiteral("npx")));
    QVERIFY(toHttp.text.endsWith("    \"z\": {\"command\": \"z\"}\n  }\n}\n"));
}

void tst_ClientConfig::mergeRefuses_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QString>("error"); // a part of the message

    QTest::newRow("unclosed") << McpClient::ClaudeDesktop << QByteArray("{\"mcpServers\": {}\n")
                              << QStringLiteral("line 2, column 1");
    QTest::newRow("comment for Claude")
        << McpClient::ClaudeDesktop << QByteArray("{\n  // mine\n  \"mcpServers\": {}\n}")
        << QStringLiteral("line 2, column 3: a comment");
    QTest::newRow("comment for Cursor")
        << McpClient::Cursor << QByteArray("{/**/}") << QStringLiteral("a comment");
    QTest::newRow("trailing comma for Gemini")
        << McpClient::GeminiCli << QByteArray("{\"theme\": \"x\",}")
        << QStringLiteral("a comma after the last member");
    QTest::newRow("array") << McpClient::Cursor << QByteArray("[]")
                           << QStringLiteral("not an object");
    QTest::newRow("servers not an object") << McpClient::VsCode << QByteArray("{\"servers\": []}")
                                           << QStringLiteral("\"servers\" is not an object");
    QTest::newRow("servers twice")
        << McpClient::Cursor << QByteArray("{\"mcpServers\": {}, \"mcpServers\": {}}")
        << QStringLiteral("more than once");
    QTest::newRow("entry twice")
        << McpClient::Cursor
        << QByteArray(R"({"mcpServers": {"code-sandbox": {}, "code-\u0073andbox": {}}})")
        << QStringLiteral("\"code-sandbox\" appears more than once in \"mcpServers\"");
}

void tst_ClientConfig::mergeRefuses()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);
    QFETCH(QString, error);

    const ClientConfigChange change = ClientConfigMerger(client).merge(before, stdioEntry());
    QCOMPARE(change.action, Action::Failed);
    QVERIFY2(change.error.contains(error), qPrintable(change.error));
    QCOMPARE(change.text, before);
}

void tst_ClientConfig::removeRefusesAndNotFound()
{
    const ClientConfigMerger merger(McpClient::ClaudeDesktop);
    const QString name = ClientServerEntry::defaultName();
    QCOMPARE(merger.remove({}, name).action, Action::NotFound);
    QCOMPARE(merger.remove(kClaudeWithOtherServer, name).action, Action::NotFound);
    QCOMPARE(merger.remove("{\"x\": 1}", name).action, Action::NotFound);
    QCOMPARE(merger.remove("{\"mcpServers\": {\"code-sandbox\": {}}", name).action, Action::Failed);
    const ClientConfigChange refused = merger.remove("{//\n}", name);
    QCOMPARE(refused.action, Action::Failed);
    QVERIFY(refused.error.contains(QLatin1String("comment")));
    // An emptied servers object that is the file's last member goes, as if an install had
    // put it there.
    QCOMPARE(merger.remove(R"({"x": 1, "mcpServers": {"code-sandbox": {}}})", name).text,
             QByteArray(R"({"x": 1})"));
    QCOMPARE(merger.remove(R"({"mcpServers": {"code-sandbox": {}}})", name).text, QByteArray("{}"));
    // Only the entry goes when the servers object holds more, or a comment.
    QCOMPARE(merger.remove(R"({"mcpServers": {"a": 1, "code-sandbox": {}, "b": 2}})", name).text,
             QByteArray(R"({"mcpServers": {"a": 1, "b": 2}})"));
    QCOMPARE(ClientConfigMerger(McpClient::VsCode)
                 .remove("{\"servers\": {\n  // keep\n  \"code-sandbox\": {}\n}}", name)
                 .text,
             QByteArray("{\"servers\": {\n  // keep\n}}"));
}

void tst_ClientConfig::installCreatesFileAndFolder()
{
    const ClientConfigLocation location{m_dir.filePath(QStringLiteral("create/home")),
                                        m_dir.filePath(QStringLiteral("create/home/.config"))};
    for (const McpClient client : McpClientTraits::all()) {
        const QString path = location.configPath(client);
        QVERIFY(!QFileInfo::exists(path));
        const ClientConfigChange change =
            ClientConfigMerger(client).install(path, httpEntry(kToken));
        QCOMPARE(change.error, QString());
        QCOMPARE(change.action, Action::Created);
        QCOMPARE(change.path, path);
        QCOMPARE(change.backupPath, QString());
        QCOMPARE(readAll(path), ClientConfigSnippet::text(client, httpEntry(kToken)).toUtf8());
        // It holds the token: for its owner only.
        QCOMPARE(modeOf(path), 0600);
        QVERIFY(backupsOf(path).isEmpty());
    }
}

void tst_ClientConfig::installIntoExistingFileKeepsABackup()
{
    const QString path = m_dir.filePath(QStringLiteral("existing/claude_desktop_config.json"));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QVERIFY(writeAll(path, kClaudeWithOtherServer));
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ReadGroup));

    const ClientConfigMerger merger(McpClient::ClaudeDesktop);
    const ClientConfigChange change = merger.install(path, stdioEntry());
    QCOMPARE(change.error, QString());
    QCOMPARE(change.action, Action::Added);
    QCOMPARE(readAll(path), merger.merge(kClaudeWithOtherServer, stdioEntry()).text);
    QCOMPARE(modeOf(path), 0640);
    // The backup is the old file, next to it.
    QVERIFY(!change.backupPath.isEmpty());
    QCOMPARE(QFileInfo(change.backupPath).absolutePath(), QFileInfo(path).absolutePath());
    QVERIFY(QFileInfo(change.backupPath)
                .fileName()
                .startsWith(QStringLiteral("claude_desktop_config.json.bak-")));
    QCOMPARE(readAll(change.backupPath), kClaudeWithOtherServer);
    QCOMPARE(modeOf(change.backupPath), 0640);
    QCOMPARE(backupsOf(path), QStringList{QFileInfo(change.backupPath).fileName()});
    // No temporary file is left behind.
    QCOMPARE(QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files).size(), 2);
}

void tst_ClientConfig::installRefusesInvalidFileUntouched()
{
    const QString path = m_dir.filePath(QStringLiteral("invalid/mcp.json"));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    const QByteArray broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n";
    QVERIFY(writeAll(path, broken));
    const QDateTime modified = QFileInfo(path).lastModified();

    for (const ClientConfigMerger::Mode mode :
         {ClientConfigMerger::Mode::Write, ClientConfigMerger::Mode::Preview}) {
        const ClientConfigChange change =
            ClientConfigMerger(McpClient::Cursor).install(path, stdioEntry(), mode);
        QCOMPARE(change.action, Action::Failed);
        QVERIFY2(change.error.startsWith(path), qPrintable(change.error));
        QVERIFY2(change.error.contains(QLatin1String("line 3, column 25")),
                 qPrintable(change.error));
        QVERIFY(change.error.contains(QLatin1String("left as it is")));
    }
    const ClientConfigChange removal = ClientConfigMerger(McpClient::Cursor).uninstall(path);
    QCOMPARE(removal.action, Action::Failed);
    QCOMPARE(readAll(path), broken);
    QCOMPARE(QFileInfo(path).lastModified(), modified);
    QVERIFY(backupsOf(path).isEmpty());
    // A folder where the file should be is refused as well.
    const QString folder = m_dir.filePath(QStringLiteral("invalid/folder.json"));
    QVERIFY(QDir().mkpath(folder));
    QCOMPARE(ClientConfigMerger(McpClient::Cursor).install(folder, stdioEntry()).action,
             Action::Failed);
}

void tst_ClientConfig::installUnchangedWritesNothing()
{
    const QString path = m_dir.filePath(QStringLiteral("unchanged/settings.json"));
    const ClientConfigMerger merger(McpClient::GeminiCli);
    QCOMPARE(merger.install(path, stdioEntry()).action, Action::Created);
    const QByteArray written = readAll(path);
    const ClientConfigChange again = merger.install(path, stdioEntry());
    QCOMPARE(again.action, Action::Unchanged);
    QCOMPARE(again.backupPath, QString());
    QCOMPARE(readAll(path), written);
    QVERIFY(backupsOf(path).isEmpty());
    // Without a token the created file has the permissions any new file gets.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    QCOMPARE(modeOf(path), int(0666 & ~mask));
}

void tst_ClientConfig::previewWritesNothing()
{
    const QString path = m_dir.filePath(QStringLiteral("preview/mcp.json"));
    const ClientConfigMerger merger(McpClient::VsCode);
    const ClientConfigChange created =
        merger.install(path, stdioEntry(), ClientConfigMerger::Mode::Preview);
    QCOMPARE(created.action, Action::Created);
    QCOMPARE(created.text, ClientConfigSnippet::text(McpClient::VsCode, stdioEntry()).toUtf8());
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(!QFileInfo::exists(QFileInfo(path).absolutePath()));

    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QVERIFY(writeAll(path, created.text));
    const ClientConfigChange removal =
        merger.uninstall(path, ClientServerEntry::defaultName(), ClientConfigMerger::Mode::Preview);
    QCOMPARE(removal.action, Action::Removed);
    QCOMPARE(removal.text, QByteArray("{}\n"));
    QCOMPARE(readAll(path), created.text);
    QVERIFY(backupsOf(path).isEmpty());
}

void tst_ClientConfig::uninstallRestoresTheFile_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");

    QTest::newRow("claude, other server") << McpClient::ClaudeDesktop << kClaudeWithOtherServer;
    QTest::newRow("gemini, no servers yet")
        << McpClient::GeminiCli << QByteArray("{\n  \"theme\": \"Dracula\"\n}\n");
    QTest::newRow("vscode, trailing commas")
        << McpClient::VsCode
        << QByteArray("{\n\t\"servers\": {\n\t\t\"a\": {\"command\": \"x\"},\n\t},\n}\n");
    QTest::newRow("cursor, empty object") << McpClient::Cursor << QByteArray("{}");
    QTest::newRow("cursor, empty servers first")
        << McpClient::Cursor << QByteArray("{\"mcpServers\": {}, \"x\": 1}");
    QTest::newRow("vscode, empty servers before inputs")
        << McpClient::VsCode << QByteArray("{\n\t\"servers\": {},\n\t\"inputs\": []\n}");
}

void tst_ClientConfig::uninstallRestoresTheFile()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);

    const QString path = m_dir.filePath(
        QStringLiteral("restore/%1/config.json").arg(QString::fromLatin1(QTest::currentDataTag())));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QVERIFY(writeAll(path, before));
    const ClientConfigMerger merger(client);
    const ClientConfigChange installed = merger.install(path, httpEntry(kToken));
    QCOMPARE(installed.error, QString());
    QCOMPARE(installed.action, Action::Added);
    QVERIFY(readAll(path) != before);

    const ClientConfigChange removed = merger.uninstall(path);
    QCOMPARE(removed.error, QString());
    QCOMPARE(removed.action, Action::Removed);
    QCOMPARE(readAll(path), before);
    QCOMPARE(readAll(removed.backupPath), installed.text);
    QCOMPARE(backupsOf(path).size(), 2);
    QCOMPARE(merger.uninstall(path).action, Action::NotFound);
    QCOMPARE(backupsOf(path).size(), 2);
}

void tst_ClientConfig::uninstallMissingFile()
{
    const QString path = m_dir.filePath(QStringLiteral("missing/mcp.json"));
    const ClientConfigChange change = ClientConfigMerger(McpClient::Cursor).uninstall(path);
    QCOMPARE(change.action, Action::NotFound);
    QVERIFY(change.succeeded());
    QVERIFY(!QFileInfo::exists(QFileInfo(path).absolutePath()));
}

void tst_ClientConfig::installFollowsSymlink()
{
    // Configuration files kept in a dotfiles repository are often symlinks: the link stays.
    const QString target = m_dir.filePath(QStringLiteral("dotfiles/mcp.json"));
    const QString link = m_dir.filePath(QStringLiteral("linked/mcp.json"));
    QVERIFY(QDir().mkpath(QFileInfo(target).absolutePath()));
    QVERIFY(QDir().mkpath(QFileInfo(link).absolutePath()));
    QVERIFY(writeAll(target, "{}"));
    QVERIFY(QFile::link(target, link));

    const ClientConfigChange change =
        ClientConfigMerger(McpClient::Cursor).install(link, stdioEntry());
    QCOMPARE(change.action, Action::Added);
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(readAll(target), change.text);
    QCOMPARE(readAll(change.backupPath), QByteArray("{}"));
}

void tst_ClientConfig::backupNamesAreUnique()
{
    const QString path = m_dir.filePath(QStringLiteral("backup/x.json"));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    const QDateTime time(QDate(2025, 3, 4), QTime(5, 6, 7));
    const QString first = ClientConfigMerger::backupPathFor(path, time);
    QCOMPARE(first, path + QStringLiteral(".bak-20250304-050607"));
    QVERIFY(writeAll(first, "a"));
    const QString second = ClientConfigMerger::backupPathFor(path, time);
    QCOMPARE(second, first + QStringLiteral("-2"));
    QVERIFY(writeAll(second, "b"));
    QCOMPARE(ClientConfigMerger::backupPathFor(path, time), first + QStringLiteral("-3"));
}

void tst_ClientConfig::tokenMakesAnExistingFilePrivate()
{
    const QString path = m_dir.filePath(QStringLiteral("private/mcp.json"));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QVERIFY(writeAll(path, kClaudeWithOtherServer));
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    const ClientConfigMerger merger(McpClient::Cursor);

    // Without a token the file keeps its mode.
    QCOMPARE(merger.install(path, stdioEntry()).action, Action::Added);
    QCOMPARE(modeOf(path), 0644);
    // With one, the file and the copy of what it was become its owner's only.
    const ClientConfigChange withToken = merger.install(path, httpEntry(kToken));
    QCOMPARE(withToken.error, QString());
    QCOMPARE(withToken.action, Action::Replaced);
    QCOMPARE(modeOf(path), 0600);
    QCOMPARE(modeOf(withToken.backupPath), 0600);
    QCOMPARE(withToken.warnings, QStringList());
    // An entry already there, in a file someone opened up again: nothing to write, but private.
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0664) == 0);
    const QByteArray before = readAll(path);
    QCOMPARE(merger.install(path, httpEntry(kToken)).action, Action::Unchanged);
    QCOMPARE(modeOf(path), 0600);
    QCOMPARE(readAll(path), before);
    // A preview changes nothing, mode included.
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    merger.install(path, httpEntry(kToken + QLatin1Char('2')), ClientConfigMerger::Mode::Preview);
    QCOMPARE(modeOf(path), 0644);
}

void tst_ClientConfig::tokenInASharedPlaceIsWarnedAbout()
{
    // A folder others may write to.
    const QString shared = m_dir.filePath(QStringLiteral("shared"));
    QVERIFY(QDir().mkpath(shared));
    QVERIFY(::chmod(QFile::encodeName(shared).constData(), 0777) == 0);
    const QString sharedFile = shared + QStringLiteral("/.cursor/mcp.json"); // folder not made yet
    const ClientConfigChange inShared =
        ClientConfigMerger(McpClient::Cursor).install(sharedFile, httpEntry(kToken));
    QCOMPARE(inShared.action, Action::Created);
    QCOMPARE(inShared.warnings.size(), 1);
    QVERIFY2(inShared.warnings.constFirst().contains(shared) &&
                 inShared.warnings.constFirst().contains(QLatin1String("other users")),
             qPrintable(inShared.warnings.constFirst()));

    // A project's .vscode folder, in a git work tree.
    const QString project = m_dir.filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(project + QStringLiteral("/.git")));
    const QString projectFile = project + QStringLiteral("/.vscode/mcp.json");
    const ClientConfigChange inGit =
        ClientConfigMerger(McpClient::VsCode).install(projectFile, httpEntry(kToken));
    QCOMPARE(inGit.action, Action::Created);
    QCOMPARE(inGit.warnings.size(), 1);
    QVERIFY2(inGit.warnings.constFirst().contains(QLatin1String("git work tree ") + project),
             qPrintable(inGit.warnings.constFirst()));
    QCOMPARE(modeOf(projectFile), 0600);
    // A worktree's .git is a file.
    const QString worktree = m_dir.filePath(QStringLiteral("worktree"));
    QVERIFY(QDir().mkpath(worktree + QStringLiteral("/sub")));
    QVERIFY(writeAll(worktree + QStringLiteral("/.git"), "gitdir: /elsewhere\n"));
    QCOMPARE(ClientConfigExposure::warnings(worktree + QStringLiteral("/sub/mcp.json")).size(), 1);

    // A link into a dotfiles repository (stow, chezmoi): the token is written through it, into
    // the repository's work tree, though the link's own folder is private and in none.
    const QString dotfiles = m_dir.filePath(QStringLiteral("dotfiles"));
    QVERIFY(QDir().mkpath(dotfiles + QStringLiteral("/.git")));
    QVERIFY(QDir().mkpath(dotfiles + QStringLiteral("/cursor")));
    QVERIFY(writeAll(dotfiles + QStringLiteral("/cursor/mcp.json"), "{}\n"));
    const QString home = m_dir.filePath(QStringLiteral("home/.cursor"));
    QVERIFY(QDir().mkpath(home));
    QVERIFY(QFile::link(dotfiles + QStringLiteral("/cursor/mcp.json"),
                        home + QStringLiteral("/mcp.json")));
    const ClientConfigChange throughLink =
        ClientConfigMerger(McpClient::Cursor)
            .install(home + QStringLiteral("/mcp.json"), httpEntry(kToken));
    QVERIFY(QFileInfo(home + QStringLiteral("/mcp.json")).isSymLink());
    QVERIFY(readAll(dotfiles + QStringLiteral("/cursor/mcp.json")).contains("s3cr"));
    QCOMPARE(throughLink.warnings.size(), 1);
    QVERIFY2(throughLink.warnings.constFirst().contains(QLatin1String("git work tree ") +
                                                        QFileInfo(dotfiles).canonicalFilePath()),
             qPrintable(throughLink.warnings.constFirst()));
    // A dangling link: the file it will create is in the work tree too.
    QVERIFY(QFile::link(dotfiles + QStringLiteral("/cursor/new.json"),
                        home + QStringLiteral("/new.json")));
    QCOMPARE(ClientConfigExposure::warnings(home + QStringLiteral("/new.json")).size(), 1);
    // A loop of links ends where it is named.
    QVERIFY(
        QFile::link(home + QStringLiteral("/loop-b.json"), home + QStringLiteral("/loop-a.json")));
    QVERIFY(
        QFile::link(home + QStringLiteral("/loop-a.json"), home + QStringLiteral("/loop-b.json")));
    QCOMPARE(ClientConfigExposure::warnings(home + QStringLiteral("/loop-a.json")), QStringList());

    // Sync folders, by their root's marker or by their name, and through a link into one.
    const QString dropbox = m_dir.filePath(QStringLiteral("Dropbox"));
    QVERIFY(QDir().mkpath(dropbox + QStringLiteral("/dotfiles")));
    QVERIFY(QDir().mkpath(dropbox + QStringLiteral("/.dropbox.cache")));
    // Dropbox's own folder in the home folder does not make the home folder a synced one.
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home/.dropbox"))));
    QCOMPARE(ClientConfigExposure::warnings(home + QStringLiteral("/other.json")), QStringList());
    const QStringList inDropbox =
        ClientConfigExposure::warnings(dropbox + QStringLiteral("/dotfiles/.cursor/mcp.json"));
    QCOMPARE(inDropbox.size(), 1);
    QVERIFY2(inDropbox.constFirst().contains(QLatin1String("inside ") + dropbox +
                                             QLatin1String(", which a sync client")),
             qPrintable(inDropbox.constFirst()));
    const QString syncthing = m_dir.filePath(QStringLiteral("sync"));
    QVERIFY(QDir().mkpath(syncthing + QStringLiteral("/.stfolder")));
    QCOMPARE(ClientConfigExposure::warnings(syncthing + QStringLiteral("/mcp.json")).size(), 1);
    const QString nextcloud = m_dir.filePath(QStringLiteral("cloud"));
    QVERIFY(QDir().mkpath(nextcloud + QStringLiteral("/a")));
    QVERIFY(writeAll(nextcloud + QStringLiteral("/.sync_0123abcd.db"), ""));
    QCOMPARE(ClientConfigExposure::warnings(nextcloud + QStringLiteral("/a/mcp.json")).size(), 1);
    // Folders not yet made, two levels deep, inside one: the warning is for where they will be.
    QCOMPARE(ClientConfigExposure::warnings(syncthing + QStringLiteral("/x/y/mcp.json")).size(), 1);
    // A name that only begins like a sync folder's is not one.
    const QString lookalike = m_dir.filePath(QStringLiteral("GoogleDriveAPI/cfg"));
    QVERIFY(QDir().mkpath(lookalike));
    QCOMPARE(ClientConfigExposure::warnings(lookalike + QStringLiteral("/mcp.json")),
             QStringList());
    const QString oneDrive = m_dir.filePath(QStringLiteral("OneDrive - Example Ltd/cfg"));
    QVERIFY(QDir().mkpath(oneDrive));
    QCOMPARE(ClientConfigExposure::warnings(oneDrive + QStringLiteral("/mcp.json")).size(), 1);
    QVERIFY(QDir().mkpath(syncthing + QStringLiteral("/cursor")));
    QVERIFY(QFile::link(syncthing + QStringLiteral("/cursor/mcp.json"),
                        home + QStringLiteral("/synced.json")));
    const QStringList throughSyncLink =
        ClientConfigExposure::warnings(home + QStringLiteral("/synced.json"));
    QCOMPARE(throughSyncLink.size(), 1);
    QVERIFY2(throughSyncLink.constFirst().contains(QFileInfo(syncthing).canonicalFilePath()),
             qPrintable(throughSyncLink.constFirst()));

    // No token, nothing to warn about; a private folder outside any work tree, neither.
    QCOMPARE(ClientConfigMerger(McpClient::VsCode)
                 .install(project + QStringLiteral("/.vscode/other.json"), stdioEntry())
                 .warnings,
             QStringList());
    const QString own = m_dir.filePath(QStringLiteral("own/.cursor/mcp.json"));
    QCOMPARE(ClientConfigMerger(McpClient::Cursor).install(own, httpEntry(kToken)).warnings,
             QStringList());
}

void tst_ClientConfig::tomlAndYamlSnippets()
{
    QCOMPARE(ClientConfigSnippet::text(McpClient::Codex, httpEntry(QStringLiteral("tok"))),
             QStringLiteral("[mcp_servers.code-sandbox]\n"
                            "url = \"http://127.0.0.1:8765/mcp\"\n"
                            "http_headers = { Authorization = \"Bearer tok\" }\n"));
    QCOMPARE(ClientConfigSnippet::text(
                 McpClient::Codex,
                 ClientServerEntry::stdio(kCommand, {QStringLiteral("--stdio")},
                                          {{QStringLiteral("A B"), QStringLiteral("x\"y")}})),
             QStringLiteral("[mcp_servers.code-sandbox]\n"
                            "command = \"/opt/csm/bin/code-sandbox-mcp\"\n"
                            "args = [\"--stdio\"]\n"
                            "env = { \"A B\" = \"x\\\"y\" }\n"));
    QCOMPARE(ClientConfigSnippet::text(McpClient::Goose, stdioEntry()),
             QStringLiteral("extensions:\n"
                            "  code-sandbox:\n"
                            "    enabled: true\n"
                            "    type: \"stdio\"\n"
                            "    name: \"code-sandbox\"\n"
                            "    cmd: \"/opt/csm/bin/code-sandbox-mcp\"\n"
                            "    args: []\n"
                            "    timeout: 300\n"));
    QCOMPARE(ClientConfigSnippet::text(McpClient::Goose, httpEntry(QStringLiteral("tok"))),
             QStringLiteral("extensions:\n"
                            "  code-sandbox:\n"
                            "    enabled: true\n"
                            "    type: \"streamable_http\"\n"
                            "    name: \"code-sandbox\"\n"
                            "    uri: \"http://127.0.0.1:8765/mcp\"\n"
                            "    headers:\n"
                            "      Authorization: \"Bearer tok\"\n"
                            "    timeout: 300\n"));
    // The programs the entries start, read back from the files' values.
    for (const McpClient client : McpClientTraits::all()) {
        const QString text = ClientConfigSnippet::text(client, stdioEntry());
        const auto servers = csm::ClientConfigFormat::forClient(client)->servers(text.toUtf8());
        QVERIFY2(servers, qPrintable(McpClientTraits::id(client) + servers.error()));
        QCOMPARE(ClientConfigSnippet::programOf(client,
                                                servers->value(ClientServerEntry::defaultName())),
                 kCommand);
    }
}

void tst_ClientConfig::otherFormatsKeepEverythingElse_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");

    const QByteArray codex = "# Codex settings\n"
                             "model = \"o3\"  # the default model\n"
                             "\n"
                             "[mcp_servers.docs]\n"
                             "command = \"npx\"\n"
                             "args = [\"-y\", \"docs-mcp\"]\n"
                             "# keep this one\n"
                             "[mcp_servers.docs.env]\n"
                             "TOKEN = \"x\"\n"
                             "\n"
                             "[profiles.fast]\n"
                             "model = \"o4-mini\"\n";
    QTest::newRow("codex, other servers and comments") << McpClient::Codex << codex;
    QTest::newRow("codex, CRLF") << McpClient::Codex << QByteArray(codex).replace("\n", "\r\n");
    QTest::newRow("codex, no final line end") << McpClient::Codex << QByteArray("model = \"o3\"");
    QTest::newRow("codex, a header inside a multi-line string")
        << McpClient::Codex
        << QByteArray("instructions = \"\"\"\n[mcp_servers.code-sandbox]\nnot a table\n\"\"\"\n"
                      "notes = '''\n[x]'''\n");
    QTest::newRow("codex, servers table with inline entries")
        << McpClient::Codex << QByteArray("[mcp_servers]\nother = { command = \"x\" }  # inline\n");
    QTest::newRow("codex, array of tables last")
        << McpClient::Codex << QByteArray("[[hooks]]\nrun = \"a\"\n\n[[hooks]]\nrun = \"b\"\n");

    const QByteArray goose = "# goose settings\n"
                             "GOOSE_PROVIDER: openai\n"
                             "extensions:\n"
                             "  developer:\n"
                             "    bundled: true\n"
                             "    enabled: true\n"
                             "    name: developer\n"
                             "    timeout: 300\n"
                             "    type: builtin\n"
                             "  # the last extension above\n"
                             "GOOSE_MODEL: gpt-4o # the model\n";
    QTest::newRow("goose, other extensions and comments") << McpClient::Goose << goose;
    QTest::newRow("goose, CRLF") << McpClient::Goose << QByteArray(goose).replace("\n", "\r\n");
    QTest::newRow("goose, extensions last, no final line end")
        << McpClient::Goose
        << QByteArray("GOOSE_MODEL: gpt-4o\nextensions:\n    memory:\n        enabled: false\n"
                      "        type: builtin\n        name: memory");
    QTest::newRow("goose, no extensions yet")
        << McpClient::Goose << QByteArray("GOOSE_PROVIDER: ollama\n");
    QTest::newRow("goose, empty extensions in the middle")
        << McpClient::Goose << QByteArray("extensions: {}\nGOOSE_MODE: auto\n");
    QTest::newRow("goose, block scalar")
        << McpClient::Goose
        << QByteArray("extensions:\n  notes:\n    description: |\n      line one\n\n      line "
                      "two\n    type: builtin\n    name: notes\n    enabled: true\n");

    QTest::newRow("claude-code, ~/.claude.json")
        << McpClient::ClaudeCode
        << QByteArray("{\n  \"numStartups\": 12,\n  \"projects\": {\n    \"/home/me/p\": {\n"
                      "      \"mcpServers\": {}\n    }\n  },\n  \"mcpServers\": {\n"
                      "    \"fs\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\"\n"
                      "    }\n  }\n}\n");
    QTest::newRow("opencode, JSONC")
        << McpClient::OpenCode
        << QByteArray(
               "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n"
               "  // my servers\n  \"mcp\": {\n    \"docs\": {\n      \"type\": \"remote\",\n"
               "      \"url\": \"https://docs.example/mcp\",\n    },\n  },\n}\n");
    QTest::newRow("zed, settings with comments")
        << McpClient::Zed
        << QByteArray("// Zed settings\n{\n  \"theme\": \"One Dark\", // dark\n"
                      "  /* fonts */ \"buffer_font_size\": 15,\n}\n");
    QTest::newRow("qwen, comment")
        << McpClient::QwenCode << QByteArray("{\n  // theme\n  \"theme\": \"Default\"\n}\n");
    QTest::newRow("windsurf") << McpClient::Windsurf
                              << QByteArray("{\"mcpServers\": {\"gh\": {\"command\": \"npx\"}}}");
    QTest::newRow("lmstudio") << McpClient::LmStudio
                              << QByteArray("{\n\t\"mcpServers\": {\n\t\t\"hf\": {\n\t\t\t\"url\": "
                                            "\"https://huggingface.co/mcp\"\n\t\t}\n\t}\n}\n");
}

void tst_ClientConfig::otherFormatsKeepEverythingElse()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);

    const auto format = csm::ClientConfigFormat::forClient(client);
    const auto serversBefore = format->servers(before);
    QVERIFY2(serversBefore, qPrintable(serversBefore.error()));
    const QString name = ClientServerEntry::defaultName();
    for (const ClientServerEntry& entry : {stdioEntry(), httpEntry(kToken)}) {
        const ClientConfigMerger merger(client);
        const ClientConfigChange change = merger.merge(before, entry);
        QCOMPARE(change.error, QString());
        QCOMPARE(change.action, Action::Added);
        // One piece of text inserted, the rest byte for byte as it was (an empty "{}" mapping
        // becomes a block)...
        if (!before.contains(": {}")) {
            const QByteArray inserted = insertionOf(before, change.text);
            QVERIFY2(!inserted.isNull(), change.text.constData());
            QVERIFY(inserted.contains("code-sandbox"));
        }
        // ...and what the client reads is the old servers plus the entry.
        const auto serversAfter = format->servers(change.text);
        QVERIFY2(serversAfter, qPrintable(serversAfter.error()));
        QMap<QString, QJsonObject> expected = *serversBefore;
        expected.insert(name, serversAfter->value(name));
        QCOMPARE(*serversAfter, expected);
        QCOMPARE(csm::ClientSurvey::reachOf(client, serversAfter->value(name)),
                 entry.transport == ClientServerEntry::Transport::Stdio
                     ? QStringLiteral("stdio: ") + kCommand
                     : QStringLiteral("HTTP: http://127.0.0.1:8765/mcp"));
        // Added twice is the same as once.
        const ClientConfigChange again = merger.merge(change.text, entry);
        QCOMPARE(again.action, Action::Unchanged);
        QCOMPARE(again.text, change.text);
        // Taking it out gives the file back, byte for byte.
        const ClientConfigChange removed = merger.remove(change.text, entry.name);
        QCOMPARE(removed.error, QString());
        QCOMPARE(removed.action, Action::Removed);
        QCOMPARE(removed.text, before);
    }
}

void tst_ClientConfig::otherFormatsReplace_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after"); // with stdioEntry()

    QTest::newRow("codex, between tables, with a sub-table")
        << McpClient::Codex
        << QByteArray("[mcp_servers.code-sandbox]\ncommand = \"/old\"\n[mcp_servers.code-sandbox."
                      "env]\nA = \"1\"\n\n# next\n[mcp_servers.z]\ncommand = \"z\"\n")
        << QByteArray("[mcp_servers.code-sandbox]\ncommand = \"/opt/csm/bin/code-sandbox-mcp\"\n"
                      "\n# next\n[mcp_servers.z]\ncommand = \"z\"\n");
    QTest::newRow("codex, quoted header")
        << McpClient::Codex
        << QByteArray("[ mcp_servers . \"code-sandbox\" ] # mine\nurl = \"x\"\n")
        << QByteArray("[mcp_servers.code-sandbox]\ncommand = \"/opt/csm/bin/code-sandbox-mcp\"\n");
    QTest::newRow("goose, between extensions")
        << McpClient::Goose
        << QByteArray("extensions:\n  code-sandbox:\n    cmd: /old\n    type: stdio\n"
                      "  z:\n    type: builtin\n")
        << QByteArray("extensions:\n  code-sandbox:\n    enabled: true\n    type: \"stdio\"\n"
                      "    name: \"code-sandbox\"\n    cmd: \"/opt/csm/bin/code-sandbox-mcp\"\n"
                      "    args: []\n    timeout: 300\n  z:\n    type: builtin\n");
}

void tst_ClientConfig::otherFormatsReplace()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);

    const ClientConfigMerger merger(client);
    const ClientConfigChange change = merger.merge(before, stdioEntry());
    QCOMPARE(change.error, QString());
    QCOMPARE(change.action, Action::Replaced);
    QCOMPARE(change.text, after);
    QCOMPARE(merger.merge(after, stdioEntry()).action, Action::Unchanged);
    // From stdio to HTTP and back, in place.
    const ClientConfigChange toHttp = merger.merge(after, httpEntry(kToken));
    QCOMPARE(toHttp.action, Action::Replaced);
    QCOMPARE(merger.merge(toHttp.text, stdioEntry()).text, after);
}

void tst_ClientConfig::otherFormatsRefuse_data()
{
    QTest::addColumn<McpClient>("client");
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QString>("error"); // a part of the message
    QTest::addColumn<bool>("readable"); // whether servers() still lists what it can

    QTest::newRow("codex, invalid TOML") << McpClient::Codex << QByteArray("model = \"o3\n")
                                         << QStringLiteral("not valid TOML") << false;
    QTest::newRow("codex, key twice")
        << McpClient::Codex << QByteArray("a = 1\na = 2\n") << QStringLiteral("line 2") << false;
    QTest::newRow("codex, servers not a table")
        << McpClient::Codex << QByteArray("mcp_servers = 3\n") << QStringLiteral("not a table")
        << true;
    QTest::newRow("codex, servers inline")
        << McpClient::Codex << QByteArray("mcp_servers = { a = { command = \"x\" } }\n")
        << QStringLiteral("inline table") << true;
    QTest::newRow("codex, entry inline")
        << McpClient::Codex << QByteArray("[mcp_servers]\ncode-sandbox = { command = \"/old\" }\n")
        << QStringLiteral("written inline") << true;
    QTest::newRow("codex, entry in parts apart")
        << McpClient::Codex
        << QByteArray("[mcp_servers.code-sandbox]\ncommand = \"/old\"\n[x]\n"
                      "[mcp_servers.code-sandbox.env]\nA = \"1\"\n")
        << QStringLiteral("in parts apart") << true;
    QTest::newRow("goose, invalid YAML") << McpClient::Goose << QByteArray("extensions: [\n")
                                         << QStringLiteral("not valid YAML") << false;
    QTest::newRow("goose, not a mapping")
        << McpClient::Goose << QByteArray("- a\n- b\n") << QStringLiteral("not a mapping") << false;
    QTest::newRow("goose, two documents") << McpClient::Goose << QByteArray("a: 1\n---\nb: 2\n")
                                          << QStringLiteral("several") << false;
    QTest::newRow("goose, extensions twice")
        << McpClient::Goose << QByteArray("extensions: {}\nextensions: {}\n")
        << QStringLiteral("more than once") << false;
    QTest::newRow("goose, extensions a list")
        << McpClient::Goose << QByteArray("extensions:\n  - a\n") << QStringLiteral("not a mapping")
        << true;
    QTest::newRow("goose, extensions in flow style")
        << McpClient::Goose << QByteArray("extensions: {a: {type: builtin}}\n")
        << QStringLiteral("flow style") << true;
    QTest::newRow("zed, not JSON")
        << McpClient::Zed << QByteArray("{ theme: x }") << QStringLiteral("Zed") << false;
    QTest::newRow("windsurf, comment")
        << McpClient::Windsurf << QByteArray("{// x\n}") << QStringLiteral("Windsurf") << false;
    QTest::newRow("qwen, trailing comma")
        << McpClient::QwenCode << QByteArray("{\"a\": 1,}") << QStringLiteral("Qwen Code") << false;
}

void tst_ClientConfig::otherFormatsRefuse()
{
    QFETCH(McpClient, client);
    QFETCH(QByteArray, before);
    QFETCH(QString, error);
    QFETCH(bool, readable);

    const ClientConfigMerger merger(client);
    const ClientConfigChange merged = merger.merge(before, stdioEntry());
    QCOMPARE(merged.action, Action::Failed);
    QVERIFY2(merged.error.contains(error), qPrintable(merged.error));
    QCOMPARE(merged.text, before);
    const ClientConfigChange removed = merger.remove(before, ClientServerEntry::defaultName());
    if (removed.action != Action::NotFound) { // nothing to remove is no failure
        QCOMPARE(removed.action, Action::Failed);
        QCOMPARE(removed.text, before);
    }
    QCOMPARE(csm::ClientConfigFormat::forClient(client)->servers(before).hasValue(), readable);
}

void tst_ClientConfig::tomlKeysAndStrings()
{
    ClientServerEntry entry = ClientServerEntry::stdio(
        QStringLiteral("/opt/my tools/code-sandbox-mcp"), {QStringLiteral("tab\there")},
        {{QStringLiteral("PATH_EXTRA"), QStringLiteral("C:\\bin;\u00e9\x01")}});
    entry.name = QStringLiteral("my.sandbox \"2\"");
    const ClientConfigMerger merger(McpClient::Codex);
    const QByteArray before = "model = \"o3\"\n";
    const ClientConfigChange change = merger.merge(before, entry);
    QCOMPARE(change.error, QString());
    QVERIFY2(change.text.contains("[mcp_servers.\"my.sandbox \\\"2\\\"\"]"),
             change.text.constData());
    QVERIFY(change.text.contains("args = [\"tab\\there\"]"));
    QVERIFY(change.text.contains("\\u0001"));
    const auto servers = csm::ClientConfigFormat::forClient(McpClient::Codex)->servers(change.text);
    QVERIFY2(servers, qPrintable(servers.error()));
    QCOMPARE(
        servers->value(entry.name),
        csm::JsonTextWriter::toObject(ClientConfigSnippet::serverValue(McpClient::Codex, entry)));
    QCOMPARE(merger.remove(change.text, entry.name).text, before);
    // The same name in Goose's YAML is a quoted key.
    const ClientConfigMerger goose(McpClient::Goose);
    const ClientConfigChange yaml = goose.merge({}, entry);
    QCOMPARE(yaml.error, QString());
    QVERIFY2(yaml.text.contains("  \"my.sandbox \\\"2\\\"\":"), yaml.text.constData());
    QCOMPARE(goose.remove(yaml.text, entry.name).text, QByteArray());
}

void tst_ClientConfig::missingAndUnreadableFiles_data()
{
    QTest::addColumn<McpClient>("client");
    for (const McpClient client :
         {McpClient::ClaudeCode, McpClient::Codex, McpClient::OpenCode, McpClient::QwenCode,
          McpClient::Windsurf, McpClient::Zed, McpClient::LmStudio, McpClient::Goose})
        QTest::newRow(qPrintable(McpClientTraits::id(client))) << client;
}

void tst_ClientConfig::missingAndUnreadableFiles()
{
    QFETCH(McpClient, client);
    const QString folder =
        m_dir.filePath(QStringLiteral("unreadable/%1").arg(McpClientTraits::id(client)));
    const ClientConfigMerger merger(client);

    // Missing: nothing to remove, nothing listed; an install creates it, an uninstall empties it.
    const QString path = folder + QStringLiteral("/missing/config");
    QCOMPARE(merger.uninstall(path).action, Action::NotFound);
    QCOMPARE(merger.servers(path)->size(), 0);
    QVERIFY(!QFileInfo::exists(QFileInfo(path).absolutePath()));
    QCOMPARE(merger.install(path, stdioEntry()).action, Action::Created);
    QCOMPARE(merger.servers(path)->keys(), QStringList{ClientServerEntry::defaultName()});
    QCOMPARE(merger.uninstall(path).action, Action::Removed);
    QCOMPARE(merger.servers(path)->size(), 0);

    // A folder where the file should be, or bytes that are no such file: refused, untouched.
    const QString asFolder = folder + QStringLiteral("/folder");
    QVERIFY(QDir().mkpath(asFolder));
    QCOMPARE(merger.install(asFolder, stdioEntry()).action, Action::Failed);
    QCOMPARE(merger.uninstall(asFolder).action, Action::Failed);
    QVERIFY(!merger.servers(asFolder));
    const QString garbage = folder + QStringLiteral("/garbage");
    const QByteArray bytes("\x01{[\"\n: = - ]", 12);
    QVERIFY(writeAll(garbage, bytes));
    const ClientConfigChange refused = merger.install(garbage, stdioEntry());
    QCOMPARE(refused.action, Action::Failed);
    QVERIFY2(refused.error.contains(QLatin1String("left as it is")), qPrintable(refused.error));
    QCOMPARE(readAll(garbage), bytes);
    QVERIFY(backupsOf(garbage).isEmpty());

    // A file its owner cannot read (not for root, whom permissions do not stop).
    if (::geteuid() != 0) {
        const QString locked = folder + QStringLiteral("/locked");
        QVERIFY(writeAll(locked, "{}"));
        QVERIFY(::chmod(QFile::encodeName(locked).constData(), 0) == 0);
        const ClientConfigChange change = merger.install(locked, stdioEntry());
        QCOMPARE(change.action, Action::Failed);
        QVERIFY2(change.error.contains(QLatin1String("cannot be read")), qPrintable(change.error));
        QVERIFY(!merger.servers(locked));
    }
}

void tst_ClientConfig::projectScope()
{
    QCOMPARE(ClientConfigLocation::projectConfigPath(McpClient::ClaudeCode, QStringLiteral("/p/q")),
             QStringLiteral("/p/q/.mcp.json"));
    QCOMPARE(ClientConfigLocation::projectConfigPath(McpClient::Codex, QStringLiteral("/p")),
             QString());
    QVERIFY(McpClientTraits::hasProjectScope(McpClient::ClaudeCode));
    QVERIFY(!McpClientTraits::hasProjectScope(McpClient::Cursor));
}

void tst_ClientConfig::surveyFindsInstalledWiredAndMissing()
{
    const QString home = m_dir.filePath(QStringLiteral("survey/home"));
    const ClientConfigLocation location{home, home + QStringLiteral("/.config")};
    const QString bin = m_dir.filePath(QStringLiteral("survey/bin"));
    QVERIFY(QDir().mkpath(bin));
    // Codex: its folder, with our server at a path that is gone and another that is not ours.
    const QString codexFile = location.configPath(McpClient::Codex);
    QVERIFY(
        ClientConfigMerger(McpClient::Codex)
            .install(codexFile, ClientServerEntry::stdio(QStringLiteral("/gone/code-sandbox-mcp")))
            .succeeded());
    ClientServerEntry other = ClientServerEntry::stdio(QStringLiteral("/gone/other-server"));
    other.name = QStringLiteral("other");
    QVERIFY(ClientConfigMerger(McpClient::Codex).install(codexFile, other).succeeded());
    // Goose: wired over HTTP. LM Studio: only its program on PATH.
    QVERIFY(ClientConfigMerger(McpClient::Goose)
                .install(location.configPath(McpClient::Goose), httpEntry(kToken))
                .succeeded());
    const QString lms = bin + QStringLiteral("/lms");
    QVERIFY(writeAll(lms, "#!/bin/sh\n"));
    QVERIFY(::chmod(QFile::encodeName(lms).constData(), 0755) == 0);
    // Zed: a file it cannot read.
    const QString zedFile = location.configPath(McpClient::Zed);
    QVERIFY(QDir().mkpath(QFileInfo(zedFile).absolutePath()));
    QVERIFY(writeAll(zedFile, "{"));

    const QList<csm::ClientSurvey::Client> clients =
        csm::ClientSurvey::survey(location, {bin}, ClientServerEntry::defaultName());
    QCOMPARE(clients.size(), McpClientTraits::all().size());
    for (const csm::ClientSurvey::Client& client : clients) {
        const QString id = McpClientTraits::id(client.client);
        QCOMPARE(client.configPath, location.configPath(client.client));
        switch (client.client) {
        case McpClient::Codex:
            QVERIFY(client.installed);
            QCOMPARE(client.reach, QStringLiteral("stdio: /gone/code-sandbox-mcp"));
            QCOMPARE(client.missingPrograms,
                     QStringList{QStringLiteral("code-sandbox: /gone/code-sandbox-mcp")});
            break;
        case McpClient::Goose:
            QVERIFY(client.installed);
            QCOMPARE(client.reach, QStringLiteral("HTTP: http://127.0.0.1:8765/mcp"));
            QVERIFY(client.missingPrograms.isEmpty());
            break;
        case McpClient::LmStudio:
            QVERIFY(client.installed);
            QVERIFY(!client.entry);
            break;
        case McpClient::Zed:
            QVERIFY(client.installed);
            QVERIFY2(client.error.contains(QLatin1String("not valid")), qPrintable(client.error));
            QVERIFY(!client.entry);
            break;
        default:
            QVERIFY2(!client.installed, qPrintable(id));
            QVERIFY(!client.entry);
            QVERIFY(client.error.isEmpty());
        }
    }
    // Without its program on PATH, LM Studio is not installed.
    QVERIFY(!csm::ClientSurvey::survey(location, {}, ClientServerEntry::defaultName())
                 .at(McpClientTraits::all().indexOf(McpClient::LmStudio))
                 .installed);
}

QTEST_GUILESS_MAIN(tst_ClientConfig)
#include "tst_ClientConfig.moc"
