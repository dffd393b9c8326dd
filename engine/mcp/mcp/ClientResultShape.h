#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace csm {

// Tool definitions and results in the shape a client forwards whole to its model. Clients differ
// (see docs/architecture.md, "What clients forward"): Codex CLI sends only structuredContent
// when a result has it and drops every image block, so for it the tools have no outputSchema
// and results no structuredContent, and the text and images reach the model. A client that
// negotiated a protocol older than 2025-06-18 does not know resource_link blocks: they are left
// out (the text lists the same URIs).
class ClientResultShape final
{
public:
    ClientResultShape(const QString& clientName, const QString& protocolVersion);

    bool dropsImagesBesideStructuredContent() const { return m_withoutStructuredContent; }

    QJsonArray toolDefinitions(QJsonArray definitions) const;
    QJsonObject callResult(QJsonObject result) const;

private:
    bool m_withoutStructuredContent = false;
    bool m_withoutResourceLinks = false;
};

} // namespace csm
