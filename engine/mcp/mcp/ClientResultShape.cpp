#include "mcp/ClientResultShape.h"

namespace csm {

ClientResultShape::ClientResultShape(const QString& clientName, const QString& protocolVersion)
    // Codex CLI names itself "codex-mcp-client". Its releases before 0.171 dropped images beside
    // structuredContent; 0.171.0 forwards both (tests/assistants). Leaving structuredContent
    // out costs it nothing: the text says the same.
    : m_withoutStructuredContent(clientName.startsWith(QLatin1String("codex"), Qt::CaseInsensitive))
    // Protocol versions are dates: they compare as strings.
    , m_withoutResourceLinks(!protocolVersion.isEmpty() &&
                             protocolVersion < QLatin1String("2025-06-18"))
{}

QJsonArray ClientResultShape::toolDefinitions(QJsonArray definitions) const
{
    if (!m_withoutStructuredContent)
        return definitions;
    for (qsizetype i = 0; i < definitions.size(); ++i) {
        QJsonObject definition = definitions.at(i).toObject();
        definition.remove(QStringLiteral("outputSchema"));
        definitions.replace(i, definition);
    }
    return definitions;
}

QJsonObject ClientResultShape::callResult(QJsonObject result) const
{
    if (m_withoutStructuredContent)
        result.remove(QStringLiteral("structuredContent"));
    if (m_withoutResourceLinks) {
        QJsonArray content;
        for (const QJsonValue& block : result.value(QLatin1String("content")).toArray()) {
            if (block.toObject().value(QLatin1String("type")).toString() !=
                QLatin1String("resource_link"))
                content.append(block);
        }
        result.insert(QStringLiteral("content"), content);
    }
    return result;
}

} // namespace csm
