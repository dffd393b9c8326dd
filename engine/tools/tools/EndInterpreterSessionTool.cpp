#include "tools/EndInterpreterSessionTool.h"

#include "mcp/ToolResult.h"
#include "sandbox/InterpreterSessions.h"

#include <QJsonArray>

namespace csm {

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

QJsonObject EndInterpreterSessionTool::answer(const QJsonObject& arguments,
                                              const InterpreterOwner* owner)
{
    const QString session = arguments.value(QLatin1String("session")).toString();
    if (!owner || !sessions().end(owner->key, session))
        return ToolResult::error(
            QStringLiteral("You have no live session named \"%1\".").arg(session));
    return QJsonObject{
        {QStringLiteral("content"),
         QJsonArray{ToolResult::textContent(QStringLiteral("Session \"%1\" ended.").arg(session))}},
        {QStringLiteral("isError"), false}};
}

} // namespace csm
