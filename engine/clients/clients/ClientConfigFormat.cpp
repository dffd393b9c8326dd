#include "clients/ClientConfigFormat.h"

#include "clients/JsonConfigFormat.h"
#include "clients/TomlConfigFormat.h"
#include "clients/YamlConfigFormat.h"

namespace csm {

ClientConfigFormat::~ClientConfigFormat() = default;

std::unique_ptr<ClientConfigFormat> ClientConfigFormat::forClient(McpClient client)
{
    const QString serversKey = McpClientTraits::serversKey(client);
    switch (McpClientTraits::format(client)) {
    case McpClientTraits::Format::Json:
        return std::make_unique<JsonConfigFormat>(
            serversKey,
            JsonTextScanner::Dialect{McpClientTraits::allowsComments(client),
                                     McpClientTraits::allowsTrailingCommas(client)},
            McpClientTraits::displayName(client));
    case McpClientTraits::Format::Toml:
        return std::make_unique<TomlConfigFormat>(serversKey);
    case McpClientTraits::Format::Yaml:
        return std::make_unique<YamlConfigFormat>(serversKey);
    }
    Q_UNREACHABLE();
}

QString ClientConfigFormat::internalError()
{
    return QStringLiteral("the edited text did not check out (a bug in Code Sandbox); nothing "
                          "was written");
}

ClientConfigChange ClientConfigFormat::notFound(const QByteArray& text)
{
    ClientConfigChange change;
    change.action = ClientConfigChange::Action::NotFound;
    change.text = text;
    return change;
}

ClientConfigChange ClientConfigFormat::failure(const QByteArray& text, const QString& error)
{
    ClientConfigChange change;
    change.action = ClientConfigChange::Action::Failed;
    change.text = text;
    change.error = error;
    return change;
}

ClientConfigChange ClientConfigFormat::outcome(const QByteArray& text,
                                               ClientConfigChange::Action action,
                                               const QByteArray& document, bool checksOut)
{
    if (!checksOut)
        return failure(text, internalError());
    ClientConfigChange change;
    change.action = action;
    change.text = document;
    return change;
}

} // namespace csm
