#pragma once

#include "clients/ClientConfigFormat.h"

namespace csm {

// A TOML file with each server in a table of its own, [<servers>.<name>], as Codex CLI keeps
// them in ~/.codex/config.toml (developers.openai.com/codex/mcp). toml++ reads the file (what it
// refuses is refused), finds the servers and checks every edit; the edit itself is made in the
// file's text, since toml++ writes a document back without its comments and layout:
// - a new server is a table appended at the end of the file, after a blank line, in the file's
//   line ending; its values are written inline (strings, ["arrays"], { inline = "tables" });
// - an existing one ([<servers>.<name>] and its [<servers>.<name>.*] sub-tables, which must
//   follow each other) has its lines replaced, or removed together with the blank line an
//   install put before it. Comments and blank lines between it and the next table stay;
// - a server written otherwise (an inline table, dotted keys) is refused: change it by hand.
// After each edit the new text is parsed again and must hold the server as meant (or no
// longer) and everything else exactly as before, or the edit fails.
class TomlConfigFormat final : public ClientConfigFormat
{
public:
    explicit TomlConfigFormat(QString serversKey);

    ClientConfigChange merge(const QByteArray& text, const QString& name,
                             const JsonMembers& value) const override;
    ClientConfigChange remove(const QByteArray& text, const QString& name) const override;
    Expected<QMap<QString, QJsonObject>> servers(const QByteArray& text) const override;

    // `name` as a TOML key: bare when it can be, else a quoted string.
    static QByteArray key(const QString& name);
    // A TOML value for a JSON one: a basic string, a number, a boolean, an inline array or an
    // inline table.
    static QByteArray value(const QJsonValue& value);

private:
    QString m_serversKey;
};

} // namespace csm
