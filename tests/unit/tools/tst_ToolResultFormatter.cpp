#include "mcp/ToolResult.h"
#include "sandbox/ExecutionResult.h"
#include "tools/ToolResultFormatter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>
#include <QTest>

using csm::ExecutionResult;
using csm::ToolResultFormatter;
using Outcome = csm::ExecutionResult::Outcome;

Q_DECLARE_METATYPE(csm::ExecutionResult)
Q_DECLARE_METATYPE(csm::ExecutionResult::Outcome)

namespace {

ExecutionResult makeResult(const QByteArray& out, const QByteArray& err, int exitCode,
                           Outcome outcome = Outcome::Exited, qint64 durationMs = 120)
{
    ExecutionResult result;
    result.outcome = outcome;
    result.exitCode = exitCode;
    result.durationMs = durationMs;
    result.stdoutBytes = out;
    result.stderrBytes = err;
    return result;
}

QString textOf(const QJsonObject& callResult)
{
    const QJsonArray content = callResult.value(QLatin1String("content")).toArray();
    if (content.size() != 1)
        return QStringLiteral("<%1 content items>").arg(content.size());
    const QJsonObject item = content.first().toObject();
    if (item.value(QLatin1String("type")).toString() != QLatin1String("text"))
        return QStringLiteral("<not a text item>");
    return item.value(QLatin1String("text")).toString();
}

bool hasUnpairedSurrogate(const QString& text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate()) {
            if (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate())
                return true;
            ++i;
        } else if (c.isLowSurrogate()) {
            return true;
        }
    }
    return false;
}

// The whole path to the client: compact JSON must be valid UTF-8 and give back the same text.
void verifyJsonRoundTrip(const QJsonObject& object)
{
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString decoded = decoder(json);
    QVERIFY2(!decoder.hasError(), json.constData());
    QJsonParseError error{};
    const QJsonDocument back = QJsonDocument::fromJson(json, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(back.object(), object);
    // One line: stdio framing breaks on a raw newline.
    QVERIFY(!json.contains('\n'));
}

QStringList linesOf(const QString& text)
{
    return text.split(QLatin1Char('\n'));
}

bool anyLineContainsAll(const QString& text, const QStringList& words)
{
    for (const QString& line : linesOf(text)) {
        bool all = true;
        for (const QString& word : words)
            all = all && line.contains(word, Qt::CaseInsensitive);
        if (all)
            return true;
    }
    return false;
}

} // namespace

class tst_ToolResultFormatter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodeOutput_data();
    void decodeOutput();
    void truncatedOutputDropsASplitCharacter_data();
    void truncatedOutputDropsASplitCharacter();
    void contentText_data();
    void contentText();
    void emptyOutputSucceeds();
    void isError_data();
    void isError();
    void flagsAndNotices_data();
    void flagsAndNotices();
    void timeoutNoticeGivesDuration();
    void aRunStoppedFromTheAppSaysSo();
    void refusedConnectionsAreExplainedOncePerHost();
    void allowedConnectionsAddNothing();
    void connectionsNotListedAreMentioned();
    void unenforcedLimitsAndEngineWarningsAreSaid();
    void structuredContent_data();
    void structuredContent();
    void outputSchemaIsWellFormed();
    void errorResult_data();
    void errorResult();
};

void tst_ToolResultFormatter::truncatedOutputDropsASplitCharacter_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray euro("\xe2\x82\xac");
    QTest::newRow("whole characters") << euro + euro << QStringLiteral("\u20ac\u20ac");
    QTest::newRow("cut after 1 of 3 bytes") << euro + euro.left(1) << QStringLiteral("\u20ac");
    QTest::newRow("cut after 2 of 3 bytes") << euro + euro.left(2) << QStringLiteral("\u20ac");
    QTest::newRow("cut inside a 4-byte emoji")
        << QByteArray("ok\xf0\x9f\x98") << QStringLiteral("ok");
    QTest::newRow("cut inside a 2-byte letter") << QByteArray("caf\xc3") << QStringLiteral("caf");
    QTest::newRow("ascii") << QByteArray("abc") << QStringLiteral("abc");
    QTest::newRow("a stray continuation byte stays visible")
        << QByteArray("ab\x80") << QStringLiteral("ab\ufffd");
}

void tst_ToolResultFormatter::truncatedOutputDropsASplitCharacter()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString decoded = ToolResultFormatter::decodeTruncatedOutput(bytes);
    QCOMPARE(decoded, expected);
    // Valid output is never longer than the bytes the cap kept (an invalid byte still becomes
    // a visible U+FFFD, three bytes long).
    if (!expected.contains(QChar::ReplacementCharacter))
        QVERIFY(decoded.toUtf8().size() <= bytes.size());

    // And format() uses it for a truncated stream.
    ExecutionResult result;
    result.stdoutBytes = bytes;
    result.stdoutTruncated = true;
    const QJsonObject formatted = ToolResultFormatter::format(result);
    QCOMPARE(formatted.value(QLatin1String("structuredContent"))
                 .toObject()
                 .value(QLatin1String("stdout"))
                 .toString(),
             expected);
}

void tst_ToolResultFormatter::decodeOutput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("validPrefix");
    QTest::addColumn<bool>("valid"); // valid UTF-8: decoded unchanged, no replacement

    QTest::newRow("empty") << QByteArray() << QString() << true;
    QTest::newRow("ascii") << QByteArray("hello\n") << QStringLiteral("hello\n") << true;
    QTest::newRow("multibyte") << QByteArray("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80")
                               << QStringLiteral("h\u00e9llo \u20ac ") << true;
    QTest::newRow("NUL bytes") << QByteArray("a\0b\0", 4) << QStringLiteral("a") << true;
    QTest::newRow("invalid ff fe") << QByteArray("\xff\xfe") << QString() << false;
    QTest::newRow("euro cut in half")
        << QByteArray("price: \xe2\x82") << QStringLiteral("price: ") << false;
    QTest::newRow("emoji cut") << QByteArray("ok \xf0\x9f\x98") << QStringLiteral("ok ") << false;
    QTest::newRow("lone continuation byte") << QByteArray("x\x80y") << QStringLiteral("x") << false;
    QTest::newRow("overlong NUL") << QByteArray("\xc0\x80") << QString() << false;
    QTest::newRow("encoded surrogate")
        << QByteArray("s\xed\xa0\x80") << QStringLiteral("s") << false;
    QTest::newRow("invalid between valid")
        << QByteArray("caf\xc3\xa9 \xff done") << QStringLiteral("caf\u00e9 ") << false;
    QTest::newRow("NUL and invalid") << QByteArray("\0\xff\0", 3) << QString(QChar(u'\0')) << false;
}

void tst_ToolResultFormatter::decodeOutput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, validPrefix);
    QFETCH(bool, valid);

    const QString decoded = ToolResultFormatter::decodeOutput(bytes);
    QVERIFY(decoded.startsWith(validPrefix));
    QCOMPARE(decoded.contains(QChar::ReplacementCharacter), !valid);
    if (valid)
        QCOMPARE(decoded.toUtf8(), bytes); // nothing lost, NUL bytes included
    else
        QVERIFY(decoded.toUtf8() != bytes); // the invalid bytes did not go through as they were
    QVERIFY(!hasUnpairedSurrogate(decoded));
    // Decoding what we would send gives the same text back.
    QCOMPARE(QString::fromUtf8(decoded.toUtf8()), decoded);

    verifyJsonRoundTrip(QJsonObject{{QStringLiteral("text"), decoded}});

    // format() uses the same decoding for both streams.
    const QJsonObject callResult = ToolResultFormatter::format(makeResult(bytes, bytes, 1));
    verifyJsonRoundTrip(callResult);
    const QJsonObject structured = callResult.value(QLatin1String("structuredContent")).toObject();
    QCOMPARE(structured.value(QLatin1String("stdout")).toString(), decoded);
    QCOMPARE(structured.value(QLatin1String("stderr")).toString(), decoded);
}

void tst_ToolResultFormatter::contentText_data()
{
    QTest::addColumn<QByteArray>("out");
    QTest::addColumn<QByteArray>("err");
    QTest::addColumn<int>("exitCode");

    QTest::newRow("stdout only") << QByteArray("hello\n") << QByteArray() << 0;
    QTest::newRow("stdout without newline") << QByteArray("hello") << QByteArray() << 0;
    QTest::newRow("stdout and stderr") << QByteArray("out\n") << QByteArray("warning\n") << 0;
    QTest::newRow("stdout without newline and stderr")
        << QByteArray("out") << QByteArray("warning") << 0;
    QTest::newRow("stderr only") << QByteArray() << QByteArray("warning\n") << 0;
    QTest::newRow("exit 1 with traceback")
        << QByteArray("partial\n")
        << QByteArray("Traceback (most recent call last):\nZeroDivisionError: division by zero\n")
        << 1;
    QTest::newRow("exit 2 stderr only") << QByteArray() << QByteArray("usage\n") << 2;
    QTest::newRow("exit 3 no output") << QByteArray() << QByteArray() << 3;
    QTest::newRow("exit 137 stdout only") << QByteArray("x") << QByteArray() << 137;
}

void tst_ToolResultFormatter::contentText()
{
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    QFETCH(int, exitCode);

    const QString text = textOf(ToolResultFormatter::format(makeResult(out, err, exitCode)));
    const QString outText = QString::fromUtf8(out);
    const QString errText = QString::fromUtf8(err);
    QVERIFY2(!text.isEmpty(), "the text content is never empty");

    // stdout first, unchanged.
    QVERIFY2(text.startsWith(outText), qPrintable(text));
    qsizetype position = outText.size();

    // Then stderr, in a section of its own starting on a new line.
    const QString stderrHeader = QStringLiteral("[stderr]\n");
    if (!errText.isEmpty()) {
        const qsizetype header = text.indexOf(stderrHeader, position);
        QVERIFY2(header >= position, qPrintable(text));
        QVERIFY2(header == 0 || text.at(header - 1) == QLatin1Char('\n'), qPrintable(text));
        QCOMPARE(text.mid(header + stderrHeader.size(), errText.size()), errText);
        position = header + stderrHeader.size() + errText.size();
    } else {
        QVERIFY2(!text.contains(QLatin1String("[stderr]")), qPrintable(text));
    }

    // Then, for a failure, the exit code on the last line.
    const QString lastLine = linesOf(text).constLast();
    if (exitCode != 0) {
        QVERIFY2(text.indexOf(lastLine, position) >= position, qPrintable(text));
        QVERIFY2(lastLine.contains(QLatin1String("exit code"), Qt::CaseInsensitive),
                 qPrintable(text));
        QVERIFY2(lastLine.contains(QString::number(exitCode)), qPrintable(text));
        QVERIFY2(lastLine.startsWith(QLatin1Char('[')) || position == 0, qPrintable(text));
    } else {
        QVERIFY2(!anyLineContainsAll(text, {QStringLiteral("exit code")}), qPrintable(text));
        QCOMPARE(text.size(), position); // nothing after the output for a success
    }
}

void tst_ToolResultFormatter::emptyOutputSucceeds()
{
    const QJsonObject callResult = ToolResultFormatter::format(makeResult({}, {}, 0));
    QVERIFY(callResult.value(QLatin1String("isError")).isBool());
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), false);
    // Some clients drop an empty text item, or show nothing: say that there was no output.
    const QString text = textOf(callResult);
    QVERIFY(!text.isEmpty());
    QVERIFY(!text.startsWith(QLatin1Char('<')));
    const QJsonObject structured = callResult.value(QLatin1String("structuredContent")).toObject();
    QCOMPARE(structured.value(QLatin1String("stdout")).toString(), QString());
    QCOMPARE(structured.value(QLatin1String("exit_code")).toInteger(), 0);
}

void tst_ToolResultFormatter::isError_data()
{
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("isError");

    QTest::newRow("exit 0") << Outcome::Exited << 0 << false;
    QTest::newRow("exit 1") << Outcome::Exited << 1 << true;
    QTest::newRow("exit 125 (the program's own)") << Outcome::Exited << 125 << true;
    QTest::newRow("exit 137") << Outcome::Exited << 137 << true;
    QTest::newRow("crashed, no exit code") << Outcome::Exited << -1 << true;
    QTest::newRow("timed out") << Outcome::TimedOut << -1 << true;
    QTest::newRow("timed out while exit code 0") << Outcome::TimedOut << 0 << true;
}

void tst_ToolResultFormatter::isError()
{
    QFETCH(Outcome, outcome);
    QFETCH(int, exitCode);
    QFETCH(bool, isError);
    const QJsonObject callResult =
        ToolResultFormatter::format(makeResult("out\n", {}, exitCode, outcome));
    QVERIFY(callResult.value(QLatin1String("isError")).isBool());
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), isError);
}

void tst_ToolResultFormatter::flagsAndNotices_data()
{
    QTest::addColumn<bool>("timedOut");
    QTest::addColumn<bool>("stdoutTruncated");
    QTest::addColumn<bool>("stderrTruncated");

    QTest::newRow("none") << false << false << false;
    QTest::newRow("timed out") << true << false << false;
    QTest::newRow("stdout truncated") << false << true << false;
    QTest::newRow("stderr truncated") << false << false << true;
    QTest::newRow("both truncated") << false << true << true;
    QTest::newRow("timed out and truncated") << true << true << false;
}

void tst_ToolResultFormatter::flagsAndNotices()
{
    QFETCH(bool, timedOut);
    QFETCH(bool, stdoutTruncated);
    QFETCH(bool, stderrTruncated);

    ExecutionResult result = makeResult("data\n", "more data\n", timedOut ? -1 : 0,
                                        timedOut ? Outcome::TimedOut : Outcome::Exited, 5000);
    result.stdoutTruncated = stdoutTruncated;
    result.stderrTruncated = stderrTruncated;
    const QJsonObject callResult = ToolResultFormatter::format(result);
    const QJsonObject structured = callResult.value(QLatin1String("structuredContent")).toObject();
    QCOMPARE(structured.value(QLatin1String("timed_out")).toBool(), timedOut);
    QCOMPARE(structured.value(QLatin1String("truncated")).toBool(),
             stdoutTruncated || stderrTruncated);
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), timedOut);

    const QString text = textOf(callResult);
    // The output that was captured is still shown in full.
    QVERIFY(text.startsWith(QLatin1String("data\n")));
    QVERIFY(text.contains(QLatin1String("more data\n")));
    QCOMPARE(anyLineContainsAll(text, {QStringLiteral("timed out")}), timedOut);
    QCOMPARE(anyLineContainsAll(text, {QStringLiteral("stdout"), QStringLiteral("truncated")}),
             stdoutTruncated);
    QCOMPARE(anyLineContainsAll(text, {QStringLiteral("stderr"), QStringLiteral("truncated")}),
             stderrTruncated);
}

void tst_ToolResultFormatter::unenforcedLimitsAndEngineWarningsAreSaid()
{
    ExecutionResult result = makeResult("data\n", {}, 0, Outcome::Exited);
    result.unenforcedLimits = {QStringLiteral("memory"), QStringLiteral("pids")};
    result.engineWarnings = {QStringLiteral("Resource limits are not supported")};
    const QJsonObject callResult = ToolResultFormatter::format(result);
    const QString text = textOf(callResult);
    QVERIFY(text.startsWith(QLatin1String("data\n")));
    QVERIFY2(anyLineContainsAll(text, {QStringLiteral("no memory, pids limit"),
                                       QStringLiteral("--allow-unlimited")}),
             qPrintable(text));
    QVERIFY(anyLineContainsAll(text, {QStringLiteral("[engine warning: Resource limits are not "
                                                     "supported]")}));
    // A note, not a failure: the program ran and exited with 0.
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), false);
}

void tst_ToolResultFormatter::timeoutNoticeGivesDuration()
{
    const QString text =
        textOf(ToolResultFormatter::format(makeResult({}, {}, -1, Outcome::TimedOut, 2500)));
    QVERIFY2(anyLineContainsAll(text, {QStringLiteral("timed out"), QStringLiteral("2.5")}),
             qPrintable(text));
}

// The model hears that a person stopped the run, with what it printed: an error, not a retry.
void tst_ToolResultFormatter::aRunStoppedFromTheAppSaysSo()
{
    ExecutionResult result = makeResult("step 1\n", {}, -1, Outcome::Cancelled, 4200);
    result.stoppedByUser = true;
    const QJsonObject callResult = ToolResultFormatter::format(result);
    const QString text = textOf(callResult);
    QVERIFY2(text.startsWith(QLatin1String("step 1\n")), qPrintable(text));
    QVERIFY2(anyLineContainsAll(text, {QStringLiteral("stopped after 4.2 s by the user"),
                                       QStringLiteral("Code Sandbox app")}),
             qPrintable(text));
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), true);
}

namespace {
csm::EgressConnection connection(const QString& host, quint16 port, bool allowed,
                                 const QString& reason)
{
    csm::EgressConnection made;
    made.host = host;
    made.port = port;
    made.allowed = allowed;
    made.reason = reason;
    return made;
}
} // namespace

// The model reads which hosts were refused and why, each once, and that retrying will not help;
// a program that hammered many hosts gets a bounded list.
void tst_ToolResultFormatter::refusedConnectionsAreExplainedOncePerHost()
{
    ExecutionResult result = makeResult("done\n", {}, 0);
    const QString metadata = QStringLiteral("169.254.169.254:80: 169.254.169.254 is link-local");
    result.connections = {connection(QStringLiteral("pypi.org"), 443, true, QStringLiteral("ok")),
                          connection(QStringLiteral("169.254.169.254"), 80, false, metadata),
                          connection(QStringLiteral("169.254.169.254"), 80, false, metadata)};
    for (int i = 0; i < 7; ++i) {
        result.connections.append(
            connection(QStringLiteral("10.0.0.%1").arg(i), 22, false, QStringLiteral("private")));
    }
    const QJsonObject callResult = ToolResultFormatter::format(result);
    const QString text = textOf(callResult);
    QVERIFY2(text.contains(QLatin1String("[network: the sandbox's egress proxy refused 9 "
                                         "connections: 169.254.169.254:80 (")),
             qPrintable(text));
    QCOMPARE(text.count(QLatin1String("169.254.169.254:80 (")), 1);
    QVERIFY2(text.contains(QLatin1String("10.0.0.3:22 (private)")), qPrintable(text));
    QVERIFY2(!text.contains(QLatin1String("10.0.0.4:22")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("; and 3 more")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("retrying or another library will not get through")),
             qPrintable(text));
    QVERIFY2(!text.contains(QLatin1String("pypi.org")), qPrintable(text));
    // The program itself succeeded: a refusal is news, not a failure of the call.
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), false);
}

void tst_ToolResultFormatter::allowedConnectionsAddNothing()
{
    ExecutionResult result = makeResult("done\n", {}, 0);
    result.connections = {connection(QStringLiteral("pypi.org"), 443, true, QStringLiteral("ok"))};
    QCOMPARE(textOf(ToolResultFormatter::format(result)), QStringLiteral("done\n"));
}

// Past the record's cap connections are only counted: the model still hears of them (the proxy
// refuses a run's connections past its limit), even when every listed one went through.
void tst_ToolResultFormatter::connectionsNotListedAreMentioned()
{
    ExecutionResult result = makeResult("done\n", {}, 0);
    result.connections = {connection(QStringLiteral("pypi.org"), 443, true, QStringLiteral("ok"))};
    result.connectionsNotListed = 42;
    const QString text = textOf(ToolResultFormatter::format(result));
    QVERIFY2(text.contains(QLatin1String("[network: 42 more connections of this run, past the "
                                         "first 1, are not listed")),
             qPrintable(text));
    result.connections.append(
        connection(QStringLiteral("10.0.0.1"), 22, false, QStringLiteral("private")));
    const QString both = textOf(ToolResultFormatter::format(result));
    QVERIFY2(both.contains(QLatin1String("refused 1 connection: 10.0.0.1:22 (private)")) &&
                 both.contains(QLatin1String("42 more connections")),
             qPrintable(both));
}

void tst_ToolResultFormatter::structuredContent_data()
{
    QTest::addColumn<ExecutionResult>("result");

    QTest::newRow("success") << makeResult("42\n", {}, 0);
    QTest::newRow("failure") << makeResult("partial\n", "Traceback\n", 1);
    QTest::newRow("timed out") << makeResult("tick\n", {}, -1, Outcome::TimedOut, 30'000);
    ExecutionResult truncated = makeResult(QByteArray(1024, 'x'), {}, 0);
    truncated.stdoutTruncated = true;
    QTest::newRow("truncated") << truncated;
    // Beyond 32 bits: the duration must stay an exact integer.
    QTest::newRow("long duration") << makeResult({}, {}, 0, Outcome::Exited, 5'000'000'000LL);
    QTest::newRow("invalid UTF-8") << makeResult("\xff", "\xe2\x82", 0);
}

void tst_ToolResultFormatter::structuredContent()
{
    QFETCH(ExecutionResult, result);

    const QJsonObject callResult = ToolResultFormatter::format(result);
    QVERIFY(callResult.contains(QLatin1String("structuredContent")));
    const QJsonObject structured = callResult.value(QLatin1String("structuredContent")).toObject();

    QVERIFY(structured.value(QLatin1String("stdout")).isString());
    QVERIFY(structured.value(QLatin1String("stderr")).isString());
    QVERIFY(structured.value(QLatin1String("timed_out")).isBool());
    QVERIFY(structured.value(QLatin1String("truncated")).isBool());
    QVERIFY(structured.value(QLatin1String("exit_code")).isDouble());
    QVERIFY(structured.value(QLatin1String("duration_ms")).isDouble());

    QCOMPARE(structured.value(QLatin1String("stdout")).toString(),
             ToolResultFormatter::decodeOutput(result.stdoutBytes));
    QCOMPARE(structured.value(QLatin1String("stderr")).toString(),
             ToolResultFormatter::decodeOutput(result.stderrBytes));
    QCOMPARE(structured.value(QLatin1String("exit_code")).toInteger(-999), result.exitCode);
    QCOMPARE(structured.value(QLatin1String("duration_ms")).toInteger(-999), result.durationMs);
    QCOMPARE(structured.value(QLatin1String("timed_out")).toBool(), result.timedOut());
    QCOMPARE(structured.value(QLatin1String("truncated")).toBool(), result.truncated());

    // It must conform to the declared outputSchema, or clients reject the whole result.
    const QJsonObject schema = ToolResultFormatter::outputSchema();
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    const QJsonArray required = schema.value(QLatin1String("required")).toArray();
    QVERIFY(!required.isEmpty());
    for (const QJsonValue& name : required) {
        QVERIFY2(structured.contains(name.toString()), qPrintable(name.toString()));
    }
    for (auto it = structured.constBegin(); it != structured.constEnd(); ++it) {
        QVERIFY2(properties.contains(it.key()), qPrintable(it.key())); // declared
        const QString type =
            properties.value(it.key()).toObject().value(QLatin1String("type")).toString();
        const QJsonValue value = it.value();
        if (type == QLatin1String("string")) {
            QVERIFY2(value.isString(), qPrintable(it.key()));
        } else if (type == QLatin1String("boolean")) {
            QVERIFY2(value.isBool(), qPrintable(it.key()));
        } else if (type == QLatin1String("integer")) {
            QVERIFY2(value.isDouble(), qPrintable(it.key()));
            QCOMPARE(double(value.toInteger()), value.toDouble());
        } else {
            QFAIL(
                qPrintable(QStringLiteral("unexpected schema type %1 for %2").arg(type, it.key())));
        }
    }
    verifyJsonRoundTrip(callResult);
}

void tst_ToolResultFormatter::outputSchemaIsWellFormed()
{
    const QJsonObject schema = ToolResultFormatter::outputSchema();
    QCOMPARE(schema.value(QLatin1String("type")).toString(), QStringLiteral("object"));
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    for (const QString& name :
         {QStringLiteral("stdout"), QStringLiteral("stderr"), QStringLiteral("exit_code"),
          QStringLiteral("duration_ms"), QStringLiteral("timed_out"), QStringLiteral("truncated")})
        QVERIFY2(properties.contains(name), qPrintable(name));
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        const QJsonObject property = it.value().toObject();
        QVERIFY2(property.value(QLatin1String("type")).isString(), qPrintable(it.key()));
        QVERIFY2(!property.value(QLatin1String("description")).toString().isEmpty(),
                 qPrintable(it.key()));
    }
    const QJsonArray required = schema.value(QLatin1String("required")).toArray();
    for (const QJsonValue& name : required) {
        QVERIFY(name.isString());
        QVERIFY2(properties.contains(name.toString()), qPrintable(name.toString()));
    }
}

void tst_ToolResultFormatter::errorResult_data()
{
    QTest::addColumn<QString>("message");
    QTest::newRow("plain") << QStringLiteral("The container engine \"podman\" could not be "
                                             "started (execvp: No such file or directory).");
    QTest::newRow("multi-line") << QStringLiteral("first line\nsecond line");
    QTest::newRow("unicode") << QStringLiteral("image \u00ab\u20ac\u00bb missing");
}

void tst_ToolResultFormatter::errorResult()
{
    QFETCH(QString, message);
    const QJsonObject callResult = csm::ToolResult::error(message);
    QVERIFY(callResult.value(QLatin1String("isError")).isBool());
    QCOMPARE(callResult.value(QLatin1String("isError")).toBool(), true);
    QCOMPARE(textOf(callResult), message);
    verifyJsonRoundTrip(callResult);
}

QTEST_GUILESS_MAIN(tst_ToolResultFormatter)
#include "tst_ToolResultFormatter.moc"
