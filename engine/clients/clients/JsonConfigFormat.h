#pragma once

#include "clients/ClientConfigFormat.h"
#include "clients/JsonTextNode.h"
#include "clients/JsonTextScanner.h"

namespace csm {

// A JSON (or JSONC) file with the servers in one top-level object ("mcpServers", "servers",
// "mcp", "context_servers"): the new member's text is spliced into the file's own text (never a
// re-serialised document, which would reorder keys and reformat), written in the file's line
// ending, indentation and spacing.
//
// - The servers object is created when missing; an entry of the same name is replaced (its
//   value only; left alone when equal).
// - A file the client would not read is refused: invalid JSON, a root that is not an object, a
//   key that appears twice. Comments and trailing commas count as invalid unless the dialect
//   allows them.
// - A blank text becomes {"<servers>": {"<name>": ...}}.
// - Removing the entry leaves an object with nothing else in it (not even a comment) as "{}",
//   and removes the servers object itself when it is the last member of the file (where an
//   install puts a servers object it creates). So removing what an install added gives back
//   the file as it was, byte for byte; what a text alone cannot tell apart is an empty servers
//   object that was the file's last member (it goes) and an empty object written over
//   several lines (it comes back as "{}").
class JsonConfigFormat final : public ClientConfigFormat
{
public:
    // `clientName` names the client in errors ("not valid JSON as Cursor reads it").
    JsonConfigFormat(QString serversKey, JsonTextScanner::Dialect dialect, QString clientName);

    ClientConfigChange merge(const QByteArray& text, const QString& name,
                             const JsonMembers& value) const override;
    ClientConfigChange remove(const QByteArray& text, const QString& name) const override;
    Expected<QMap<QString, QJsonObject>> servers(const QByteArray& text) const override;

private:
    // The document's root object, or nothing with `error` saying why the client would not
    // read it.
    Expected<JsonTextNode> parseRoot(const QByteArray& text) const;
    // Whether `text` is what the edit meant (see the .cpp).
    bool checksOut(const QByteArray& text, const QString& name, const QJsonObject* expected) const;

    QString m_serversKey;
    JsonTextScanner::Dialect m_dialect;
    QString m_clientName;
};

} // namespace csm
