// Ask mode's questions: one per host and port however many connections wait for it, every
// waiter gets the answer, and nobody answering is a no at the timeout.
#include "egress/EgressQuestions.h"

#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace csm;

class tst_EgressQuestions final : public QObject
{
    Q_OBJECT

private:
    static EgressQuestion about(const QString& host, quint16 port, quint64 run = 1)
    {
        EgressQuestion question;
        question.run = run;
        question.runLabel = QStringLiteral("Python run %1").arg(run);
        question.host = host;
        question.port = port;
        return question;
    }

private Q_SLOTS:
    void connectionsToOneHostShareOneQuestion()
    {
        EgressQuestions questions;
        QSignalSpy asked(&questions, &EgressQuestions::asked);
        QSignalSpy settled(&questions, &EgressQuestions::settled);
        std::optional<bool> first, second, other;
        const EgressProxy::Asker ask = questions.asker();
        ask(about(QStringLiteral("PyPI.org"), 443), [&](bool allow) { first = allow; });
        ask(about(QStringLiteral("pypi.org"), 443), [&](bool allow) { second = allow; });
        ask(about(QStringLiteral("pypi.org"), 80), [&](bool allow) { other = allow; });
        QCOMPARE(asked.size(), 2);
        const auto question = asked.at(0).at(0).value<EgressQuestion>();
        QCOMPARE(question.host, QStringLiteral("PyPI.org"));
        QCOMPARE(question.port, quint16(443));
        QCOMPARE(question.runLabel, QStringLiteral("Python run 1"));
        QCOMPARE(question.timeoutMs, EgressQuestions::kDefaultTimeoutMs);
        QCOMPARE(questions.pendingCount(), 2);

        questions.answer(question.id, true);
        QCOMPARE(first, std::optional<bool>(true));
        QCOMPARE(second, std::optional<bool>(true));
        QVERIFY(!other);
        QCOMPARE(settled.size(), 1);
        // An answer that comes twice (two dialogs, a late click) changes nothing.
        questions.answer(question.id, false);
        QCOMPARE(first, std::optional<bool>(true));
        QCOMPARE(settled.size(), 1);

        questions.answer(asked.at(1).at(0).value<EgressQuestion>().id, false);
        QCOMPARE(other, std::optional<bool>(false));
        QCOMPARE(questions.pendingCount(), 0);
    }

    // "Allow for this run" is that run's: another run that wants the same host is asked apart.
    void runsAreAskedApart()
    {
        EgressQuestions questions;
        QSignalSpy asked(&questions, &EgressQuestions::asked);
        std::optional<bool> first, second;
        questions.ask(about(QStringLiteral("pypi.org"), 443, 1),
                      [&](bool allow) { first = allow; });
        questions.ask(about(QStringLiteral("pypi.org"), 443, 2),
                      [&](bool allow) { second = allow; });
        QCOMPARE(asked.size(), 2);
        QCOMPARE(asked.at(1).at(0).value<EgressQuestion>().run, quint64(2));
        questions.answer(asked.at(0).at(0).value<EgressQuestion>().id, true);
        QCOMPARE(first, std::optional<bool>(true));
        QVERIFY(!second);
        questions.answer(asked.at(1).at(0).value<EgressQuestion>().id, false);
        QCOMPARE(second, std::optional<bool>(false));
    }

    void noAnswerIsANo()
    {
        EgressQuestions questions;
        questions.setTimeoutMs(100);
        QSignalSpy settled(&questions, &EgressQuestions::settled);
        std::optional<bool> answer;
        questions.ask(about(QStringLiteral("example.com"), 443),
                      [&](bool allow) { answer = allow; });
        QVERIFY(!answer);
        QTRY_COMPARE(answer, std::optional<bool>(false));
        QCOMPARE(settled.size(), 1);
    }

    void aFloodOfHostsOpensABoundedNumberOfQuestions()
    {
        // One run inventing names gets a few questions, and leaves room for the others.
        EgressQuestions questions;
        QSignalSpy asked(&questions, &EgressQuestions::asked);
        int denied = 0;
        const auto count = [&](bool allow) {
            if (!allow)
                ++denied;
        };
        for (int i = 0; i < 100; ++i)
            questions.ask(about(QStringLiteral("h%1.attacker.example").arg(i), 443, 1), count);
        QCOMPARE(asked.size(), EgressQuestions::kMaxPendingPerRun);
        QCOMPARE(denied, 100 - EgressQuestions::kMaxPendingPerRun);
        // Another run's question is asked.
        questions.ask(about(QStringLiteral("pypi.org"), 443, 2), count);
        QCOMPARE(asked.size(), EgressQuestions::kMaxPendingPerRun + 1);
        // Many runs at once: no more than the server's cap on the person's screen.
        for (quint64 run = 3; run < 40; ++run)
            questions.ask(about(QStringLiteral("h.example"), 443, run), count);
        QCOMPARE(asked.size(), EgressQuestions::kMaxPending);
    }

    void anAskerOutlivesItsQuestions()
    {
        EgressProxy::Asker ask;
        {
            EgressQuestions questions;
            ask = questions.asker();
        }
        std::optional<bool> answer;
        ask(about(QStringLiteral("example.com"), 443), [&](bool allow) { answer = allow; });
        QCOMPARE(answer, std::optional<bool>(false));
    }
};

QTEST_GUILESS_MAIN(tst_EgressQuestions)
#include "tst_EgressQuestions.moc"
