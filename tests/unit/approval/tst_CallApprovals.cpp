// Approval mode's bookkeeping: each request is decided exactly once (answer, timeout, or
// approval turned off), a withdrawn one never, and a gated tool only runs what was approved.
#include "approval/ApprovalGatedTool.h"
#include "approval/CallApprovals.h"
#include "mcp/ToolCall.h"

#include <QSignalSpy>
#include <QTest>

using csm::ApprovalGatedTool;
using csm::ApprovalRequest;
using csm::CallApprovals;

namespace {

// A tool whose calls finish at once with {"ran": true}, counting how many were started.
class CountingTool final : public csm::Tool
{
public:
    class Call final : public csm::ToolCall
    {
    public:
        using ToolCall::ToolCall;
        void cancel() override { Q_EMIT cancelled(); }
    };

    QString name() const override { return QStringLiteral("run_python_code"); }
    QJsonObject definition() const override { return {}; }
    csm::ToolCall* start(const QJsonObject&, const csm::CallContext&, QObject* parent) override
    {
        ++started;
        auto* call = new Call(parent);
        QMetaObject::invokeMethod(
            call,
            [call] {
                Q_EMIT call->finished({{QStringLiteral("ran"), true}});
            },
            Qt::QueuedConnection);
        return call;
    }

    int started = 0;
};

struct Decision
{
    int count = 0;
    bool approved = false;
    QString reason;
};

} // namespace

class tst_CallApprovals final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void answerDecidesOnce()
    {
        CallApprovals approvals;
        QSignalSpy requested(&approvals, &CallApprovals::requested);
        QSignalSpy settled(&approvals, &CallApprovals::settled);
        Decision decision;
        ApprovalRequest request;
        request.tool = QStringLiteral("run_python_code");
        request.code = QStringLiteral("print(1)");
        const quint64 id = approvals.ask(request, [&](bool approved, const QString& reason) {
            ++decision.count;
            decision.approved = approved;
            decision.reason = reason;
        });
        QCOMPARE(requested.size(), 1);
        const auto shown = requested.at(0).at(0).value<ApprovalRequest>();
        QCOMPARE(shown.id, id);
        QCOMPARE(shown.code, QStringLiteral("print(1)"));
        QCOMPARE(shown.timeoutMs, CallApprovals::kDefaultTimeoutMs);
        QCOMPARE(decision.count, 0); // never from inside ask()
        approvals.answer(id, false);
        approvals.answer(id, true); // too late: already decided
        QCOMPARE(decision.count, 1);
        QCOMPARE(decision.approved, false);
        QVERIFY(decision.reason.contains(QLatin1String("denied")));
        QCOMPARE(settled.size(), 1);
        QCOMPARE(approvals.pendingCount(), 0);
    }

    void silenceDenies()
    {
        CallApprovals approvals;
        approvals.setTimeoutMs(50);
        Decision decision;
        approvals.ask({}, [&](bool approved, const QString& reason) {
            ++decision.count;
            decision.approved = approved;
            decision.reason = reason;
        });
        QTRY_COMPARE(decision.count, 1);
        QCOMPARE(decision.approved, false);
        QVERIFY(decision.reason.contains(QLatin1String("did not approve")));
    }

    void withdrawnIsNeverDecided()
    {
        CallApprovals approvals;
        approvals.setTimeoutMs(50);
        QSignalSpy settled(&approvals, &CallApprovals::settled);
        int decided = 0;
        const quint64 id = approvals.ask({}, [&](bool, const QString&) { ++decided; });
        approvals.withdraw(id);
        QCOMPARE(settled.size(), 1);
        QTest::qWait(150);
        QCOMPARE(decided, 0);
    }

    void turningApprovalOffLetsWaitingCallsRun()
    {
        CallApprovals approvals;
        approvals.setRequired(true);
        bool approved = false;
        approvals.ask({}, [&](bool yes, const QString&) { approved = yes; });
        approvals.setRequired(false);
        QVERIFY(approved);
        QCOMPARE(approvals.pendingCount(), 0);
    }

    void gatedToolRunsOnlyWhatIsApproved()
    {
        CallApprovals approvals;
        auto tool = std::make_unique<CountingTool>();
        CountingTool& inner = *tool;
        ApprovalGatedTool gated(std::move(tool), approvals);
        QSignalSpy requested(&approvals, &CallApprovals::requested);

        // Off: the tool itself, no question asked.
        std::unique_ptr<csm::ToolCall> free(gated.start({}, {}, nullptr));
        QCOMPARE(inner.started, 1);
        QCOMPARE(requested.size(), 0);

        approvals.setRequired(true);
        std::unique_ptr<csm::ToolCall> denied(gated.start({}, {}, nullptr));
        QSignalSpy deniedDone(denied.get(), &csm::ToolCall::finished);
        QCOMPARE(requested.size(), 1);
        QVERIFY(denied->progressMessage().contains(QLatin1String("approve")));
        approvals.answer(requested.at(0).at(0).value<ApprovalRequest>().id, false);
        QCOMPARE(deniedDone.size(), 1);
        QCOMPARE(deniedDone.at(0).at(0).toJsonObject().value(QLatin1String("isError")).toBool(),
                 true);
        QCOMPARE(inner.started, 1);

        std::unique_ptr<csm::ToolCall> approved(gated.start({}, {}, nullptr));
        QSignalSpy approvedDone(approved.get(), &csm::ToolCall::finished);
        approvals.answer(requested.at(1).at(0).value<ApprovalRequest>().id, true);
        QCOMPARE(inner.started, 2);
        QTRY_COMPARE(approvedDone.size(), 1);
        QCOMPARE(approvedDone.at(0).at(0).toJsonObject().value(QLatin1String("ran")).toBool(),
                 true);

        // Cancelled while waiting: the request is withdrawn and the tool never starts.
        std::unique_ptr<csm::ToolCall> cancelled(gated.start({}, {}, nullptr));
        QSignalSpy cancelledDone(cancelled.get(), &csm::ToolCall::cancelled);
        cancelled->cancel();
        QTRY_COMPARE(cancelledDone.size(), 1);
        QCOMPARE(approvals.pendingCount(), 0);
        QCOMPARE(inner.started, 2);
    }
};

QTEST_GUILESS_MAIN(tst_CallApprovals)
#include "tst_CallApprovals.moc"
