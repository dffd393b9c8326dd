// RunQueue: the cap on sandboxes running at once, and the order and bound of the calls waiting.
#include "platform/MachineResources.h"
#include "sandbox/RunQueue.h"

#include <QTest>
#include <QThread>

#include <limits>
#include <memory>

using namespace csm;

class tst_RunQueue final : public QObject
{
    Q_OBJECT

private:
    // A stand-in for a run: records when it was admitted.
    struct Run
    {
        QObject context;
        bool admitted = false;
        RunQueue::Ticket ticket = 0;
    };

    static void request(RunQueue& queue, Run& run)
    {
        run.ticket = queue.request(&run.context, [&run] { run.admitted = true; });
    }

private Q_SLOTS:
    void admitsUpToTheCapFromTheEventLoop()
    {
        RunQueue queue({2, 10});
        Run a, b, c;
        request(queue, a);
        request(queue, b);
        request(queue, c);
        // Never from inside request(): the caller is still setting itself up.
        QVERIFY(!a.admitted && !b.admitted);
        QCoreApplication::processEvents();
        QVERIFY(a.admitted && b.admitted);
        QVERIFY(!c.admitted);
        QCOMPARE(queue.runningCount(), 2);
        QCOMPARE(queue.waitingCount(), 1);
        QCOMPARE(queue.waitingAhead(c.ticket), 0);
        QCOMPARE(queue.waitingAhead(a.ticket), -1);
    }

    void releasingASlotAdmitsTheFirstWaiting()
    {
        RunQueue queue({1, 10});
        Run a, b, c;
        request(queue, a);
        request(queue, b);
        request(queue, c);
        QCOMPARE(queue.waitingAhead(b.ticket), 0);
        QCOMPARE(queue.waitingAhead(c.ticket), 1);
        queue.release(a.ticket);
        QCoreApplication::processEvents();
        QVERIFY(b.admitted);
        QVERIFY(!c.admitted);
        QCOMPARE(queue.waitingAhead(c.ticket), 0);
        QCOMPARE(queue.runningCount(), 1);
    }

    void aWaitingRunThatGivesUpLeavesTheQueue()
    {
        RunQueue queue({1, 10});
        Run a, b, c;
        request(queue, a);
        request(queue, b);
        request(queue, c);
        queue.release(b.ticket); // cancelled while waiting
        QCOMPARE(queue.waitingCount(), 1);
        QCOMPARE(queue.waitingAhead(c.ticket), 0);
        queue.release(a.ticket);
        QCoreApplication::processEvents();
        QVERIFY(!b.admitted);
        QVERIFY(c.admitted);
    }

    void fullOnlyWhenEverySlotAndPlaceIsTaken()
    {
        RunQueue queue({2, 1});
        Run a, b, c;
        QVERIFY(!queue.isFull());
        request(queue, a);
        request(queue, b);
        QVERIFY(!queue.isFull());
        request(queue, c);
        QVERIFY(queue.isFull());
        queue.release(a.ticket);
        QVERIFY(!queue.isFull());
    }

    void noQueueMeansFullAsSoonAsTheSlotsAre()
    {
        RunQueue queue({1, 0});
        Run a;
        request(queue, a);
        QVERIFY(queue.isFull());
    }

    void aHigherCapAdmitsWaitingRunsAtOnce()
    {
        RunQueue queue({1, 10});
        Run a, b, c;
        request(queue, a);
        request(queue, b);
        request(queue, c);
        queue.setLimits({3, 10});
        QCoreApplication::processEvents();
        QVERIFY(a.admitted && b.admitted && c.admitted);
        QCOMPARE(queue.waitingCount(), 0);
    }

    void aDestroyedRunIsNeverCalledButItsSlotIsReleased()
    {
        RunQueue queue({1, 10});
        Run a;
        auto b = std::make_unique<Run>();
        request(queue, a);
        request(queue, *b);
        const RunQueue::Ticket ticket = b->ticket;
        queue.release(a.ticket);
        b.reset(); // gone before the event loop runs its admission
        QCoreApplication::processEvents();
        QCOMPARE(queue.runningCount(), 1);
        queue.release(ticket);
        QCOMPARE(queue.runningCount(), 0);
    }

    void defaultCapFitsTheMachine()
    {
        // Never 0, never more than twice the CPUs, and smaller for memory limits the machine
        // could not give to that many sandboxes.
        const int cpus = QThread::idealThreadCount();
        QCOMPARE(RunQueue::defaultMaxRunning(1), std::max(1, 2 * cpus));
        QCOMPARE(RunQueue::defaultMaxRunning(std::numeric_limits<qint64>::max()), 1);
        const int forHalfTheMemory = RunQueue::defaultMaxRunning(
            std::max<qint64>(1, MachineResources::physicalMemoryBytes() / 2));
        QCOMPARE(forHalfTheMemory, std::min(2, std::max(1, 2 * cpus)));
    }
};

QTEST_GUILESS_MAIN(tst_RunQueue)
#include "tst_RunQueue.moc"
