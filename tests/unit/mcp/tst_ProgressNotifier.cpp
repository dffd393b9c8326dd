#include "mcp/ProgressNotifier.h"
#include "mcp/ToolCall.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using csm::ProgressNotifier;
using csm::ToolCall;

namespace {

// A call whose progress message the test sets.
class ScriptedCall final : public ToolCall
{
public:
    using ToolCall::ToolCall;
    void cancel() override { Q_EMIT cancelled(); }
    QString progressMessage() const override { return message; }
    void finish() { Q_EMIT finished({}); }

    QString message;
};

QJsonObject paramsAt(const QSignalSpy& spy, qsizetype index)
{
    return spy.at(index).at(0).toJsonObject().value(QLatin1String("params")).toObject();
}

constexpr ProgressNotifier::Timing kFast{20, 200};

} // namespace

class tst_ProgressNotifier final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void heartbeatWithoutOutput();
    void newLinesAreSentPromptly();
    void progressOnlyGrowsAndEchoesTheToken_data();
    void progressOnlyGrowsAndEchoesTheToken();
    void nothingAfterTheCallEnds_data();
    void nothingAfterTheCallEnds();
};

void tst_ProgressNotifier::heartbeatWithoutOutput()
{
    ScriptedCall call;
    ProgressNotifier notifier(call, QStringLiteral("t"), kFast);
    QSignalSpy spy(&notifier, &ProgressNotifier::notification);
    QTRY_VERIFY_WITH_TIMEOUT(spy.size() >= 2, 2000);
    const QJsonObject message = spy.at(0).at(0).toJsonObject();
    QCOMPARE(message.value(QLatin1String("method")).toString(),
             QStringLiteral("notifications/progress"));
    QVERIFY(!message.contains(QLatin1String("id")));
    QVERIFY(paramsAt(spy, 0)
                .value(QLatin1String("message"))
                .toString()
                .startsWith(QStringLiteral("Running for")));
}

void tst_ProgressNotifier::newLinesAreSentPromptly()
{
    ScriptedCall call;
    // A long heartbeat: only news can cause a notification within this test.
    ProgressNotifier notifier(call, 7, ProgressNotifier::Timing{20, 60'000});
    QSignalSpy spy(&notifier, &ProgressNotifier::notification);
    call.message = QStringLiteral("epoch 1");
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, 1000);
    QCOMPARE(paramsAt(spy, 0).value(QLatin1String("message")).toString(),
             QStringLiteral("epoch 1"));
    // The same line again is no news.
    QTest::qWait(100);
    QCOMPARE(spy.size(), 1);
    call.message = QStringLiteral("epoch 2");
    QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 2, 1000);
    QCOMPARE(paramsAt(spy, 1).value(QLatin1String("message")).toString(),
             QStringLiteral("epoch 2"));
}

void tst_ProgressNotifier::progressOnlyGrowsAndEchoesTheToken_data()
{
    QTest::addColumn<QJsonValue>("token");
    QTest::newRow("string") << QJsonValue(QStringLiteral("abc"));
    QTest::newRow("integer") << QJsonValue(42);
}

void tst_ProgressNotifier::progressOnlyGrowsAndEchoesTheToken()
{
    QFETCH(QJsonValue, token);
    ScriptedCall call;
    ProgressNotifier notifier(call, token, ProgressNotifier::Timing{1, 60'000});
    QSignalSpy spy(&notifier, &ProgressNotifier::notification);
    // A new line at every check: notifications as fast as the timer goes, even within one ms.
    for (int i = 0; i < 20; ++i) {
        call.message = QString::number(i);
        QTRY_COMPARE_WITH_TIMEOUT(spy.size(), i + 1, 1000);
    }
    double previous = -1;
    for (qsizetype i = 0; i < spy.size(); ++i) {
        const QJsonObject params = paramsAt(spy, i);
        QCOMPARE(params.value(QLatin1String("progressToken")), token);
        const double progress = params.value(QLatin1String("progress")).toDouble();
        QVERIFY2(progress > previous,
                 qPrintable(QStringLiteral("%1 after %2").arg(progress).arg(previous)));
        previous = progress;
    }
}

void tst_ProgressNotifier::nothingAfterTheCallEnds_data()
{
    QTest::addColumn<bool>("cancel");
    QTest::newRow("finished") << false;
    QTest::newRow("cancelled") << true;
}

void tst_ProgressNotifier::nothingAfterTheCallEnds()
{
    QFETCH(bool, cancel);
    ScriptedCall call;
    ProgressNotifier notifier(call, QStringLiteral("t"), kFast);
    QSignalSpy spy(&notifier, &ProgressNotifier::notification);
    if (cancel)
        call.cancel();
    else
        call.finish();
    call.message = QStringLiteral("late output");
    QTest::qWait(500);
    QCOMPARE(spy.size(), 0);
}

QTEST_GUILESS_MAIN(tst_ProgressNotifier)
#include "tst_ProgressNotifier.moc"
