#include "tools/EndInterpreterSessionTool.h"

#include "mcp/ImmediateToolCall.h"
#include "mcp/ToolResult.h"
#include "sandbox/InterpreterSessions.h"
#include "tools/CallerInterpreterOwner.h"

#include <QJsonArray>

namespace csm {

EndInterpreterSessionTool::EndInterpreterSessionTool(InterpreterSessions& sessions)
    : m_sessions(sessions)
{}

QString EndInterpreterSessionTool::name() const
{
    return QStringLiteral("end_session");
}

QJsonObject EndInterpreterSessionTool::definition() const
{
    return QJsonObject{
        {QStringLiteral("name"), name()},
        {QStringLiteral("title"), QStringLiteral("End a session")},
        {QStringLiteral("description"),
         QStringLiteral("Ends one of your interpreter sessions: its variables, imports and files "
                        "are gone, and its sandbox is removed.")},
        {QStringLiteral("inputSchema"),
         QJsonObject{
             {QStringLiteral("type"), QStringLiteral("object")},
             {QStringLiteral("properties"),
              QJsonObject{
                  {QStringLiteral("session"),
                   QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                               {QStringLiteral("description"),
                                QStringLiteral("The session's name, as given in \"session\"")}}}}},
             {QStringLiteral("required"), QJsonArray{QStringLiteral("session")}}}},
        {QStringLiteral("annotations"), QJsonObject{{QStringLiteral("destructiveHint"), true},
                                                    {QStringLiteral("openWorldHint"), false}}},
    };
}

ToolCall* EndInterpreterSessionTool::start(const QJsonObject& arguments, const CallContext& context,
                                           QObject* parent)
{
    const QString session = arguments.value(QLatin1String("session")).toString();
    const Expected<InterpreterOwner> owner = CallerInterpreterOwner::of(context);
    if (!owner || !m_sessions.end(owner->key, session)) {
        return new ImmediateToolCall(
            ToolResult::error(
                QStringLiteral("You have no live session named \"%1\".").arg(session)),
            parent);
    }
    return new ImmediateToolCall(
        QJsonObject{
            {QStringLiteral("content"), QJsonArray{ToolResult::textContent(
                                            QStringLiteral("Session \"%1\" ended.").arg(session))}},
            {QStringLiteral("isError"), false}},
        parent);
}

} // namespace csm
