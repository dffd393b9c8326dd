#pragma once

#include "clients/ClientConfigChange.h"
#include "clients/ClientServerEntry.h"
#include "clients/McpClient.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>

namespace csm {

// Adds a server to an MCP client's configuration file, or takes it out again, changing nothing
// else: the new member's text is spliced into the file's own text (never a re-serialised
// document, which would reorder keys and reformat), written in the file's line ending,
// indentation and spacing. Other servers, settings, comments and blank lines stay byte for byte.
//
// - The servers object ("mcpServers", or "servers" for VS Code) is created when missing; an
//   entry of the same name is replaced (its value only; left alone when equal).
// - A file the client would not read is refused and left as it is: invalid JSON, a root that
//   is not an object, a key that appears twice. Comments and trailing commas count as invalid
//   unless the client reads them (McpClientTraits: VS Code reads JSONC, Gemini CLI comments).
// - A missing or blank file is created as {"<servers>": {"<name>": ...}} (with its folder).
// - Before a file is changed, a copy is kept next to it (backupPathFor); the new text replaces
//   the file atomically (QSaveFile), keeping its permissions, except that a file given a token
//   (created or not, and its backup) becomes readable by its owner only (0600). Where others
//   could still get at the token (a folder they may write to, a git work tree), the change
//   carries a warning (ClientConfigExposure).
// - Removing the entry leaves an object with nothing else in it (not even a comment) as "{}",
//   and removes the servers object itself when it is the last member of the file (where an
//   install puts a servers object it creates). So removing what an install added gives back
//   the file as it was, byte for byte; what a text alone cannot tell apart is an empty servers
//   object that was the file's last member (it goes) and an empty object written over
//   several lines (it comes back as "{}").
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

    // "<path>.bak-YYYYMMDD-HHMMSS" for `time`, with "-2", "-3"... added while that name is
    // taken.
    static QString backupPathFor(const QString& path, const QDateTime& time);

private:
    ClientConfigChange write(const QString& path, bool existed, ClientConfigChange change,
                             bool privateFile) const;
    // An unchanged file that holds a token is made 0600 all the same.
    static void makePrivate(const QString& path, ClientConfigChange& change);

    McpClient m_client;
};

} // namespace csm
