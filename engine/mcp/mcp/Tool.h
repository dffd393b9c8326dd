#pragma once

#include "mcp/CallContext.h"
#include "mcp/ReviewedFile.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace csm {

class ToolCall;

// An MCP tool: its definition for tools/list and a factory for running calls.
class Tool
{
public:
    virtual ~Tool() = default;

    virtual QString name() const = 0;
    // Other names a client may call it by; never listed.
    virtual QStringList aliases() const { return {}; }
    // The tools/list entry: name, title, description, inputSchema, outputSchema, annotations.
    virtual QJsonObject definition() const = 0;
    // What a person asked to approve a call reads: by default the arguments as JSON.
    virtual QString reviewText(const QJsonObject& arguments) const;
    // The files the call sends along, named in the same review (by default none).
    virtual QList<ReviewedFile> reviewFiles(const QJsonObject& arguments) const;
    // Starts a call. Invalid arguments still give a ToolCall, whose result has `isError`, so the
    // model can read what was wrong and correct itself. `context` says who called, for records.
    virtual ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                            QObject* parent) = 0;
};

} // namespace csm
