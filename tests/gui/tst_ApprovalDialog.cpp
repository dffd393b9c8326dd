// The approval dialog under the offscreen platform: "Trojan Source" code and a client name with
// hidden characters are shown with those characters visible, and long lines wrap instead of
// hiding their end beyond the right edge.
#include "FindNamed.h"
#include "ShownText.h"
#include "ui/dialogs/ApprovalDialog.h"
#include "ui/widgets/CodeView.h"

#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

using csm::ApprovalDialog;
using csm::ApprovalRequest;

namespace {

ApprovalRequest request(const QString& code, const QString& clientName)
{
    ApprovalRequest request;
    request.id = 7;
    request.tool = QStringLiteral("run_python_code");
    request.code = code;
    request.clientName = clientName;
    request.transport = QStringLiteral("http");
    request.askedAt = QDateTime::currentDateTimeUtc();
    request.timeoutMs = 60'000;
    return request;
}

bool hasBidiControl(const QString& text)
{
    for (const QChar c : text) {
        switch (c.direction()) {
        case QChar::DirLRE:
        case QChar::DirLRO:
        case QChar::DirRLE:
        case QChar::DirRLO:
        case QChar::DirPDF:
        case QChar::DirLRI:
        case QChar::DirRLI:
        case QChar::DirFSI:
        case QChar::DirPDI:
            return true;
        default:
            break;
        }
        if (c == QChar(0x200E) || c == QChar(0x200F) || c == QChar(0x061C))
            return true;
    }
    return false;
}

} // namespace

class tst_ApprovalDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void trojanSourceIsShownAsItIs()
    {
        // Shown without the markers, this reads as a comment after an if that is never true;
        // Python runs the print.
        const QString code = QStringLiteral("access_level = \"user\"\n"
                                            "if access_level != \"user\u202E \u2066# Check if "
                                            "admin\u2069 \u2066\":\n"
                                            "    print(\"You are an admin\u200B.\")\n");
        auto* dialog =
            new ApprovalDialog(request(code, QStringLiteral("Claude\u202E<b>gnp.exe</b>")));
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));

        const QString shown = findNamed<csm::CodeView>(*dialog, "codeView").toPlainText();
        QVERIFY(!hasBidiControl(shown));
        QVERIFY(!shown.contains(QChar(0x200B)));
        QVERIFY2(shown.contains(
                     QStringLiteral("\"user⟦U+202E⟧ ⟦U+2066⟧# Check if admin⟦U+2069⟧ ⟦U+2066⟧\":")),
                 qPrintable(shown));
        QVERIFY(shown.contains(QStringLiteral("admin⟦U+200B⟧.")));
        // Each marker is highlighted.
        const QList<QTextEdit::ExtraSelection> marked =
            findNamed<csm::CodeView>(*dialog, "codeView").extraSelections();
        QCOMPARE(marked.size(), 5);
        for (const QTextEdit::ExtraSelection& selection : marked) {
            QVERIFY(selection.cursor.selectedText().startsWith(QStringLiteral("⟦U+")));
            QVERIFY(selection.format.background().style() != Qt::NoBrush);
        }

        // The client's name: its markup as text, its control as a marker.
        const QString who = shownText(findNamed<QLabel>(*dialog, "requesterLabel"));
        QVERIFY2(who.startsWith(QStringLiteral("Claude⟦U+202E⟧<b>gnp.exe</b> asks to run")),
                 qPrintable(who));
        QVERIFY(!hasBidiControl(who));

        QVERIFY(findNamed<QLabel>(*dialog, "hiddenCharactersWarning").isVisible());
        QVERIFY2(findNamed<QLabel>(*dialog, "hiddenCharactersWarning")
                     .text()
                     .contains(QLatin1String("6 invisible")),
                 qPrintable(findNamed<QLabel>(*dialog, "hiddenCharactersWarning").text()));
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "denyButton"), Qt::LeftButton);
    }

    void plainCodeHasNoWarning()
    {
        auto* dialog = new ApprovalDialog(
            request(QStringLiteral("print('hi')\r\nprint(2)\n"), QStringLiteral("claude-code")));
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(findNamed<csm::CodeView>(*dialog, "codeView").toPlainText(),
                 QStringLiteral("print('hi')\nprint(2)\n"));
        QVERIFY(findNamed<csm::CodeView>(*dialog, "codeView").extraSelections().isEmpty());
        QVERIFY(!findNamed<QLabel>(*dialog, "hiddenCharactersWarning").isVisible());
        QVERIFY(!findNamed<QLabel>(*dialog, "filesLabel").isVisible()); // it sends none
        QCOMPARE(shownText(findNamed<QLabel>(*dialog, "requesterLabel")),
                 QStringLiteral("claude-code asks to run this code with run_python_code (over "
                                "http):"));
        QSignalSpy decided(dialog, &ApprovalDialog::decided);
        QTest::mouseClick(&findNamed<QPushButton>(*dialog, "approveButton"), Qt::LeftButton);
        QCOMPARE(decided.size(), 1);
        QCOMPARE(decided.constFirst().at(1).toBool(), true);
    }

    void filesTheCallSendsAreNamedWithTheirSizes()
    {
        // A file name can hide characters as code can: they are shown, and counted.
        ApprovalRequest asked = request(QStringLiteral("print(open('data.csv').read())\n"),
                                        QStringLiteral("claude-code"));
        asked.files = {{QStringLiteral("data.csv"), 2048},
                       {QStringLiteral("notes\u202Etxt.exe"), 10}};
        auto* dialog = new ApprovalDialog(asked);
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        const QLabel& files = findNamed<QLabel>(*dialog, "filesLabel");
        QVERIFY(files.isVisible());
        const QString shown = shownText(files);
        QVERIFY2(shown.startsWith(QLatin1String("With 2 files")), qPrintable(shown));
        QVERIFY2(shown.contains(QLatin1String("data.csv (2.00 KiB)")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("⟦U+202E⟧")), qPrintable(shown));
        QVERIFY(!hasBidiControl(shown));
        QVERIFY(findNamed<QLabel>(*dialog, "hiddenCharactersWarning").isVisible());
        dialog->close();
    }

    // What hides at the end of a long line (after many spaces, say) is on screen.
    void longLinesWrap()
    {
        const QString code = QStringLiteral("print('looks harmless')") + QString(400, u' ') +
                             QStringLiteral("; import os; os.system('rm -rf ~')\n");
        auto* dialog = new ApprovalDialog(request(code, QStringLiteral("claude-code")));
        dialog->resize(600, 400);
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        csm::CodeView& view = findNamed<csm::CodeView>(*dialog, "codeView");
        QTRY_COMPARE(view.horizontalScrollBar()->maximum(), 0);
        const QTextBlock first = view.document()->firstBlock();
        QVERIFY2(first.layout()->lineCount() > 1,
                 qPrintable(QString::number(first.layout()->lineCount())));
        // Every line of the layout fits in the view's width.
        for (int i = 0; i < first.layout()->lineCount(); ++i)
            QVERIFY(first.layout()->lineAt(i).naturalTextWidth() <= view.viewport()->width());
        dialog->dismiss();
    }
};

QTEST_MAIN(tst_ApprovalDialog)
#include "tst_ApprovalDialog.moc"
