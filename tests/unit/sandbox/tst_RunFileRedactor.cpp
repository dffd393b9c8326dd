// RunFileRedactor on files in a temporary folder: what a run made is kept without a secret's
// value, text rewritten with the marker, binary files dropped with the reason, a value split
// across the chunks it is read in found all the same, and files without one left untouched.
#include "sandbox/RunFileRedactor.h"
#include "secrets/SecretRedactor.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace csm;

namespace {

const QByteArray kValue = "sk-live-0123456789abcdef";

OutputFile writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content,
                     const QString& mimeType)
{
    OutputFile file;
    file.path = name;
    file.sizeBytes = content.size();
    file.mimeType = mimeType;
    file.storedPath = dir.filePath(name);
    QFile out(file.storedPath);
    if (!out.open(QIODevice::WriteOnly) || out.write(content) != content.size())
        qFatal("cannot write %s", qPrintable(file.storedPath));
    return file;
}

QByteArray contentOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(missing)");
}

SecretRedactor redactor()
{
    return SecretRedactor({{QStringLiteral("API_TOKEN"), kValue}});
}

} // namespace

class tst_RunFileRedactor final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void textFileIsRewrittenWithTheMarker()
    {
        QTemporaryDir dir;
        QList<OutputFile> files{writeFile(dir, QStringLiteral("token.txt"),
                                          "token=" + kValue + "\n", QStringLiteral("text/plain"))};
        RunFileRedactor::redact(files, redactor());

        const QByteArray expected = "token=[secret:API_TOKEN]\n";
        QCOMPARE(contentOf(files.at(0).storedPath), expected);
        QCOMPARE(files.at(0).sizeBytes, expected.size());
        QVERIFY(files.at(0).isReturned());
    }

    void binaryFileWithAValueIsNotKept()
    {
        QTemporaryDir dir;
        const QByteArray png = QByteArray("\x89PNG\r\n\x1a\n", 8) + kValue + QByteArray(64, '\0');
        QList<OutputFile> files{
            writeFile(dir, QStringLiteral("chart.png"), png, QStringLiteral("image/png"))};
        const QString stored = files.at(0).storedPath;
        RunFileRedactor::redact(files, redactor());

        QVERIFY(!QFile::exists(stored));
        QVERIFY(files.at(0).storedPath.isEmpty());
        QVERIFY(!files.at(0).isReturned());
        QVERIFY2(files.at(0).skipReason.contains(QLatin1String("secret")),
                 qPrintable(files.at(0).skipReason));
    }

    void valueAcrossTheChunksIsFound()
    {
        // The value straddles the first chunk's end.
        QTemporaryDir dir;
        QByteArray content(RunFileRedactor::kChunkBytes - 5, 'a');
        content += kValue + QByteArray(100, 'b');
        QList<OutputFile> files{
            writeFile(dir, QStringLiteral("big.csv"), content, QStringLiteral("text/csv"))};
        RunFileRedactor::redact(files, redactor());

        const QByteArray kept = contentOf(files.at(0).storedPath);
        QVERIFY(!kept.contains(kValue));
        QVERIFY(kept.contains("[secret:API_TOKEN]"));
        QCOMPARE(files.at(0).sizeBytes, kept.size());
    }

    void filesWithoutAValueAreUntouched()
    {
        QTemporaryDir dir;
        QList<OutputFile> files{writeFile(dir, QStringLiteral("clean.txt"), "nothing to hide\n",
                                          QStringLiteral("text/plain")),
                                writeFile(dir, QStringLiteral("clean.bin"),
                                          QByteArray(3000, '\x01'),
                                          QStringLiteral("application/octet-stream"))};
        const QDateTime before = QFileInfo(files.at(0).storedPath).lastModified();
        RunFileRedactor::redact(files, redactor());

        QCOMPARE(contentOf(files.at(0).storedPath), QByteArray("nothing to hide\n"));
        QCOMPARE(QFileInfo(files.at(0).storedPath).lastModified(), before);
        QCOMPARE(contentOf(files.at(1).storedPath), QByteArray(3000, '\x01'));
        QVERIFY(files.at(0).isReturned() && files.at(1).isReturned());
    }

    void aFolderOfInputCopiesIsRedactedByContent()
    {
        // The copies of a call's input files: types come from the bytes, not from names.
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("nested")));
        writeFile(dir, QStringLiteral("nested/key.txt"), "key=" + kValue, QString());
        writeFile(dir, QStringLiteral("data.bin"), QByteArray("\x00\x01\x02", 3) + kValue,
                  QString());
        writeFile(dir, QStringLiteral("clean.csv"), "a,b\n1,2\n", QString());
        RunFileRedactor::redactFolder(dir.path(), redactor());

        QCOMPARE(contentOf(dir.filePath(QStringLiteral("nested/key.txt"))),
                 QByteArray("key=[secret:API_TOKEN]"));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("data.bin"))));
        QCOMPARE(contentOf(dir.filePath(QStringLiteral("clean.csv"))), QByteArray("a,b\n1,2\n"));
    }

    void withoutSecretsNothingIsRead()
    {
        QTemporaryDir dir;
        QList<OutputFile> files{writeFile(dir, QStringLiteral("token.txt"), "token=" + kValue,
                                          QStringLiteral("text/plain"))};
        RunFileRedactor::redact(files, SecretRedactor());
        QCOMPARE(contentOf(files.at(0).storedPath), "token=" + kValue);
    }
};

QTEST_GUILESS_MAIN(tst_RunFileRedactor)
#include "tst_RunFileRedactor.moc"
