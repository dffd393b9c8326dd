#pragma once

#include "clients/ClientConfigChange.h"
#include "clients/JsonTextWriter.h"
#include "clients/McpClient.h"
#include "core/Expected.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include <memory>
#include <optional>

namespace csm {

// How one kind of configuration file (JSON, TOML, YAML) gets a server added or taken out as
// text: the edit touches the server's own entry and nothing else, so every other byte of the
// file (other servers, settings, comments, layout) stays as it was. Each edit is checked with a
// parser before it is returned: the result must read as the client reads it, hold the server as
// meant (or not at all) and everything else unchanged; otherwise it fails and the text stays.
// ClientConfigMerger does the file's side (reading, backup, atomic write).
class ClientConfigFormat
{
public:
    virtual ~ClientConfigFormat();

    // `text` with the server `name` set to `value`: added (Added), its value replaced
    // (Replaced), or left alone when it is already so (Unchanged). An empty or blank `text`
    // stands for a missing file and gets a new document.
    virtual ClientConfigChange merge(const QByteArray& text, const QString& name,
                                     const JsonMembers& value) const = 0;
    // `text` without the server `name` (Removed), or NotFound. Removing what merge() added to a
    // file gives back its bytes.
    virtual ClientConfigChange remove(const QByteArray& text, const QString& name) const = 0;
    // The servers the file lists, by name, their values as JSON (YAML's scalars as strings), or
    // why the client could not read the file. A blank text has none.
    virtual Expected<QMap<QString, QJsonObject>> servers(const QByteArray& text) const = 0;

    // The format of `client`'s file.
    static std::unique_ptr<ClientConfigFormat> forClient(McpClient client);

protected:
    ClientConfigFormat() = default;
    // "the edited text did not check out (a bug in Code Sandbox)...".
    static QString internalError();
    // Nothing to remove from `text`.
    static ClientConfigChange notFound(const QByteArray& text);
    // Refused, `text` left as it is.
    static ClientConfigChange failure(const QByteArray& text, const QString& error);
    // `document` as the new text, done by `action`, when the parser's check of it passed
    // (`checksOut`); else a failure, since a mistake here must never reach a file.
    static ClientConfigChange outcome(const QByteArray& text, ClientConfigChange::Action action,
                                      const QByteArray& document, bool checksOut);
};

} // namespace csm
