// Results shaped for what each client forwards to its model (see the class comment).
#include "mcp/ClientResultShape.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace csm;

namespace {
QJsonObject resultWithEverything()
{
    return {
        {QStringLiteral("content"),
         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}},
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("image")}},
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("resource_link")}}}},
        {QStringLiteral("structuredContent"), QJsonObject{{QStringLiteral("stdout"), QString()}}},
        {QStringLiteral("isError"), false},
    };
}

QStringList typesOf(const QJsonObject& result)
{
    QStringList types;
    for (const QJsonValue& block : result.value(QLatin1String("content")).toArray())
        types.append(block.toObject().value(QLatin1String("type")).toString());
    return types;
}
} // namespace

class tst_ClientResultShape final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mostClientsGetEverything()
    {
        const ClientResultShape shape(QStringLiteral("claude-code"), QStringLiteral("2025-06-18"));
        const QJsonObject result = shape.callResult(resultWithEverything());
        QCOMPARE(result, resultWithEverything());
        const QJsonArray tools{QJsonObject{{QStringLiteral("outputSchema"), QJsonObject{}}}};
        QCOMPARE(shape.toolDefinitions(tools), tools);
    }

    void codexGetsImagesWithoutStructuredContent()
    {
        const ClientResultShape shape(QStringLiteral("codex-mcp-client"),
                                      QStringLiteral("2025-06-18"));
        QVERIFY(shape.dropsImagesBesideStructuredContent());
        const QJsonObject result = shape.callResult(resultWithEverything());
        QVERIFY(!result.contains(QLatin1String("structuredContent")));
        QCOMPARE(typesOf(result), (QStringList{QStringLiteral("text"), QStringLiteral("image"),
                                               QStringLiteral("resource_link")}));
        // Valid against what it was told: no outputSchema to match.
        const QJsonArray tools = shape.toolDefinitions(
            QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                   {QStringLiteral("outputSchema"), QJsonObject{}}}});
        QVERIFY(!tools.at(0).toObject().contains(QLatin1String("outputSchema")));
        QCOMPARE(tools.at(0).toObject().value(QLatin1String("name")).toString(),
                 QStringLiteral("t"));
    }

    void olderProtocolsGetNoResourceLinks()
    {
        const ClientResultShape shape(QStringLiteral("x"), QStringLiteral("2025-03-26"));
        QCOMPARE(typesOf(shape.callResult(resultWithEverything())),
                 (QStringList{QStringLiteral("text"), QStringLiteral("image")}));
    }
};

QTEST_GUILESS_MAIN(tst_ClientResultShape)
#include "tst_ClientResultShape.moc"
