// How the warm pool sizes itself and chooses for a call that finds no ready container: the
// pure parts (PoolDemand, StartTimeEstimate, StartingContainerChoice), on the test's own clock.
// tst_WarmPool (integration) drives the pool itself on the real engines.
#include "sandbox/PoolDemand.h"
#include "sandbox/StartingContainerChoice.h"
#include "sandbox/StartTimeEstimate.h"

#include <QTest>

using namespace csm;

using Candidate = StartingContainerChoice::Candidate;

class tst_PoolSizing final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demandStartsAtTheConfiguredSize()
    {
        const PoolDemand demand(2);
        QCOMPARE(demand.target(), 2);
        QCOMPARE(demand.baseSize(), 2);
    }

    void eachMissAddsOneUpToTheCeiling()
    {
        PoolDemand demand(2);
        demand.recordMiss(1'000, 4);
        QCOMPARE(demand.target(), 3);
        demand.recordMiss(1'100, 4);
        demand.recordMiss(1'200, 4);
        demand.recordMiss(1'300, 4);
        QCOMPARE(demand.target(), 4); // no more than could run at once
    }

    void aCeilingBelowTheConfiguredSizeNeverShrinksIt()
    {
        PoolDemand demand(3);
        demand.recordMiss(1'000, 1);
        QCOMPARE(demand.target(), 3);
    }

    void quietSpellsGiveContainersBackOneAtATime()
    {
        PoolDemand demand(1);
        demand.recordMiss(0, 4);
        demand.recordMiss(10, 4);
        QCOMPARE(demand.target(), 3);
        QVERIFY(!demand.shrinkIfQuiet(10 + PoolDemand::kQuietMs - 1));
        QVERIFY(demand.shrinkIfQuiet(10 + PoolDemand::kQuietMs));
        QCOMPARE(demand.target(), 2);
        // The next step waits a whole quiet spell again.
        QVERIFY(!demand.shrinkIfQuiet(10 + PoolDemand::kQuietMs + 1));
        QVERIFY(demand.shrinkIfQuiet(10 + 2 * PoolDemand::kQuietMs));
        QCOMPARE(demand.target(), 1);
        QVERIFY(!demand.shrinkIfQuiet(10 + 10 * PoolDemand::kQuietMs)); // never below the size
        QCOMPARE(demand.target(), 1);
    }

    void aMissRestartsTheQuietSpell()
    {
        PoolDemand demand(1);
        demand.recordMiss(0, 4);
        demand.recordMiss(PoolDemand::kQuietMs - 5, 4); // at the ceiling or not, still busy
        QVERIFY(!demand.shrinkIfQuiet(PoolDemand::kQuietMs));
        QVERIFY(demand.shrinkIfQuiet(2 * PoolDemand::kQuietMs));
    }

    void estimateFollowsRecentStarts()
    {
        StartTimeEstimate estimate;
        QVERIFY(!estimate.value());
        estimate.add(400);
        QCOMPARE(*estimate.value(), 400);
        estimate.add(-1); // not a duration
        QCOMPARE(*estimate.value(), 400);
        for (int i = 0; i < 20; ++i)
            estimate.add(200);
        QVERIFY2(*estimate.value() < 205, qPrintable(QString::number(*estimate.value())));
    }

    void nothingStartingMeansCold() { QVERIFY(!StartingContainerChoice::pick({}, 300, 250)); }

    void aContainerUpIsTakenAtOnce()
    {
        // Its interpreter still imports, and stops when the program arrives.
        QCOMPARE(StartingContainerChoice::pick({{true, 10}}, 300, 50), 0);
    }

    void withoutFiguresTheStartUnderWayWins()
    {
        QCOMPARE(StartingContainerChoice::pick({{false, 0}}, std::nullopt, std::nullopt), 0);
    }

    void aStartFarFromDoneLosesToAQuickerColdStart()
    {
        // Pooled containers take 900 ms to come up, cold ones 250 ms to start their program.
        QVERIFY(!StartingContainerChoice::pick({{false, 100}}, 900, 250));
        QCOMPARE(StartingContainerChoice::pick({{false, 700}}, 900, 250), 0);
    }

    void withoutAColdFigureThePooledOneStandsIn()
    {
        // Both are the engine starting a container: one under way is ahead.
        QCOMPARE(StartingContainerChoice::pick({{false, 1}}, 300, std::nullopt), 0);
    }

    void theSoonestOfSeveralIsTaken()
    {
        const QList<Candidate> starting{{false, 100}, {false, 250}, {false, 50}};
        QCOMPARE(StartingContainerChoice::pick(starting, 300, 1'000), 1);
        QCOMPARE(StartingContainerChoice::pick({{false, 250}, {true, 5}}, 300, 1'000), 1);
    }
};

QTEST_GUILESS_MAIN(tst_PoolSizing)
#include "tst_PoolSizing.moc"
