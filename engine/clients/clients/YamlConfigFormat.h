#pragma once

#include "clients/ClientConfigFormat.h"

namespace csm {

// A YAML file with the servers in a top-level mapping of block style, as Goose keeps its
// extensions in ~/.config/goose/config.yaml (block.github.io/goose/docs/guides/config-files).
// yaml-cpp reads the file (what it refuses is refused) and checks every edit; the edit itself is
// made in the file's text, by lines, so comments and layout stay:
// - a new server goes after the last line of the servers mapping, at its entries' indentation
//   (a missing mapping is appended at the end of the file; an empty "{}" one becomes a block);
// - an existing one (its key's line and the lines indented deeper) is replaced or removed;
//   comments and blank lines after it belong to what follows;
// - a servers mapping in flow style with entries ({a: ...}), a key written twice, several
//   documents in one file: refused, since an edit by lines cannot be sure of them.
// Values are written as YAML reads JSON: "quoted strings", [flow, sequences], nested mappings
// as blocks. Removing the last server removes the mapping again when it is the file's last
// key (where an install appends it), else leaves it as "{}".
// After each edit the new text is read again and must hold the server as meant (or no longer)
// and everything else as before, or the edit fails.
class YamlConfigFormat final : public ClientConfigFormat
{
public:
    explicit YamlConfigFormat(QString serversKey);

    ClientConfigChange merge(const QByteArray& text, const QString& name,
                             const JsonMembers& value) const override;
    ClientConfigChange remove(const QByteArray& text, const QString& name) const override;
    Expected<QMap<QString, QJsonObject>> servers(const QByteArray& text) const override;

private:
    QString m_serversKey;
};

} // namespace csm
