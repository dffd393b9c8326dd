#pragma once

#include "clients/ClientConfigChange.h"
#include "clients/ClientServerEntry.h"
#include "clients/McpClient.h"
#include "core/Expected.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include <memory>
#include <optional>

namespace csm {

class ClientConfigFormat;

// Adds a server to an MCP client's configuration file, or takes it out again, changing nothing
// else: the client's ClientConfigFormat (JSON, Codex's TOML, Goose's YAML) edits the server's
// own entry in the file's text, so other servers, settings, comments and blank lines stay byte
// for byte, and checks the result with a parser before anything is written.
//
// - An entry of the same name is replaced (left alone when equal).
// - A file the client would not read is refused and left as it is (the format says why).
// - A missing or blank file is created (with its folder) holding the server alone.
// - Before a file is changed, a copy is kept next to it (backupPathFor); the new text replaces
//   the file atomically (QSaveFile), keeping its permissions, except that a file given a token
//   (created or not, and its backup) becomes readable by its owner only (0600). Where others
//   could still get at the token (a folder they may write to, a git work tree), the change
//   carries a warning (ClientConfigExposure).
// - Removing what an install added gives back the file as it was, byte for byte (within the
//   limits each format names).
//
// Used by the desktop app's Server page and by `code-sandbox-mcp install-client`.
class ClientConfigMerger final
{
public:
    enum class Mode
    {
        Write,
        Preview, // decide and report, write nothing
    };

    explicit ClientConfigMerger(McpClient client);
    ~ClientConfigMerger();

    McpClient client() const { return m_client; }

    // Puts `entry` into the file at `path` (see the class comment).
    ClientConfigChange install(const QString& path, const ClientServerEntry& entry,
                               Mode mode = Mode::Write) const;
    // Takes the server called `name` out of the file at `path`.
    ClientConfigChange uninstall(const QString& path,
                                 const QString& name = ClientServerEntry::defaultName(),
                                 Mode mode = Mode::Write) const;

    // The same edits on a file's content, touching no file (an empty `text` stands for a
    // missing or blank file). The result's text is the new content; its path is empty.
    ClientConfigChange merge(const QByteArray& text, const ClientServerEntry& entry) const;
    ClientConfigChange remove(const QByteArray& text, const QString& name) const;

    // The servers the file at `path` lists, by name (none when it does not exist), or why it
    // cannot be read as the client reads it.
    Expected<QMap<QString, QJsonObject>> servers(const QString& path) const;

    // "<path>.bak-YYYYMMDD-HHMMSS" for `time`, with "-2", "-3"... added while that name is
    // taken.
    static QString backupPathFor(const QString& path, const QDateTime& time);

private:
    ClientConfigChange write(const QString& path, bool existed, ClientConfigChange change,
                             bool privateFile) const;
    // An unchanged file that holds a token is made 0600 all the same.
    static void makePrivate(const QString& path, ClientConfigChange& change);

    McpClient m_client;
    std::unique_ptr<ClientConfigFormat> m_format;
};

} // namespace csm
