// SecretsModel over a real SecretStore with the file backend in a temporary folder: rows from
// the index, changes made by another store (as the CLI or a server makes them) merged in without
// a reset, pass-through toggled through the check box and written to secrets.json, a broken
// index reported; every model checked by QAbstractItemModelTester.
#include "secrets/SecretIndex.h"
#include "secrets/SecretStore.h"
#include "ui/models/SecretsModel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace csm;

namespace {

const QByteArray kValueA = "value-of-alpha-4f1c";
const QByteArray kValueB = "value-of-bravo-9e2d";

} // namespace

class tst_SecretsModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void emptyIndex();
    void rowsSortedByNameWithoutValues();
    void ownChangesShowAtOnce();
    void anotherProcessChangesMergeOnRefresh();
    void checkingPassThroughWritesTheIndex();
    void passThroughOfASecretRemovedElsewhereFails();
    void brokenIndexKeepsTheRows();
    void columns();

private:
    std::unique_ptr<SecretStore> openStore();
    QString set(SecretStore& store, const QString& name, const QByteArray& value, bool passThrough);
    QString remove(SecretStore& store, const QString& name);
    std::optional<SecretInfo> indexed(const QString& name) const;
    static QStringList names(const QAbstractItemModel& model);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<SecretStore> m_store; // the model's
    std::unique_ptr<SecretStore> m_other; // another process's, in effect
};

void tst_SecretsModel::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_store = openStore();
    QVERIFY(m_store);
    m_other = openStore();
    QVERIFY(m_other);
}

void tst_SecretsModel::cleanup()
{
    m_other.reset();
    m_store.reset();
    m_dir.reset();
}

std::unique_ptr<SecretStore> tst_SecretsModel::openStore()
{
    auto store = std::make_unique<SecretStore>(m_dir->path(), SecretStore::BackendChoice::File);
    std::optional<QString> result;
    store->open([&](const QString& error) { result = error; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000) || !result->isEmpty()) {
        qWarning("cannot open the store: %s", qPrintable(result.value_or(QStringLiteral("-"))));
        return nullptr;
    }
    return store;
}

QString tst_SecretsModel::set(SecretStore& store, const QString& name, const QByteArray& value,
                              bool passThrough)
{
    std::optional<QString> result;
    store.set(name, value, passThrough, [&](const QString& error) { result = error; });
    static_cast<void>(QTest::qWaitFor([&] { return result.has_value(); }, 5000));
    return result.value_or(QStringLiteral("no answer"));
}

QString tst_SecretsModel::remove(SecretStore& store, const QString& name)
{
    std::optional<QString> result;
    store.remove(name, [&](const QString& error) { result = error; });
    static_cast<void>(QTest::qWaitFor([&] { return result.has_value(); }, 5000));
    return result.value_or(QStringLiteral("no answer"));
}

std::optional<SecretInfo> tst_SecretsModel::indexed(const QString& name) const
{
    SecretIndex index(m_dir->path());
    if (!index.load())
        return std::nullopt;
    return index.find(name);
}

QStringList tst_SecretsModel::names(const QAbstractItemModel& model)
{
    QStringList result;
    for (int row = 0; row < model.rowCount(); ++row)
        result.append(model.index(row, SecretsModel::Name).data().toString());
    return result;
}

void tst_SecretsModel::emptyIndex()
{
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(SecretsModel::ColumnCount));
    QVERIFY(model.listError().isEmpty());
    QCOMPARE(model.rowOf(QStringLiteral("ALPHA")), -1);
    QVERIFY(!model.secret(0));
}

void tst_SecretsModel::rowsSortedByNameWithoutValues()
{
    QCOMPARE(set(*m_other, QStringLiteral("BRAVO"), kValueB, true), QString());
    QCOMPARE(set(*m_other, QStringLiteral("ALPHA"), kValueA, false), QString());
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(names(model), (QStringList{QStringLiteral("ALPHA"), QStringLiteral("BRAVO")}));
    QCOMPARE(model.index(0, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));
    QCOMPARE(model.index(1, SecretsModel::PassThrough).data(Qt::CheckStateRole).toInt(),
             int(Qt::Checked));
    QCOMPARE(model.index(1, SecretsModel::Updated).data(SecretsModel::NameRole).toString(),
             QStringLiteral("BRAVO"));
    const QDateTime updated =
        QDateTime::fromString(model.index(0, SecretsModel::Updated).data().toString(),
                              QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    QVERIFY(updated.isValid());
    QVERIFY(qAbs(updated.secsTo(QDateTime::currentDateTime())) < 120);

    // No role of any cell carries a value.
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int column = 0; column < model.columnCount(); ++column) {
            for (int role :
                 {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::EditRole),
                  int(Qt::StatusTipRole), int(Qt::WhatsThisRole), int(SecretsModel::NameRole)}) {
                const QString text = model.index(row, column).data(role).toString();
                QVERIFY(!text.contains(QString::fromLatin1(kValueA)));
                QVERIFY(!text.contains(QString::fromLatin1(kValueB)));
            }
        }
    }
}

void tst_SecretsModel::ownChangesShowAtOnce()
{
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QCOMPARE(set(*m_store, QStringLiteral("ALPHA"), kValueA, false), QString());
    // Without refresh(): the store said it changed the index.
    QCOMPARE(names(model), QStringList{QStringLiteral("ALPHA")});
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(remove(*m_store, QStringLiteral("ALPHA")), QString());
    QCOMPARE(model.rowCount(), 0);
}

void tst_SecretsModel::anotherProcessChangesMergeOnRefresh()
{
    QCOMPARE(set(*m_other, QStringLiteral("ALPHA"), kValueA, false), QString());
    QCOMPARE(set(*m_other, QStringLiteral("CHARLIE"), kValueA, false), QString());
    QCOMPARE(set(*m_other, QStringLiteral("ECHO"), kValueA, false), QString());
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 3);

    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QCOMPARE(set(*m_other, QStringLiteral("BRAVO"), kValueB, false), QString());
    QCOMPARE(set(*m_other, QStringLiteral("DELTA"), kValueB, false), QString());
    QCOMPARE(remove(*m_other, QStringLiteral("CHARLIE")), QString());
    std::optional<QString> flagged;
    m_other->setPassThrough(QStringLiteral("ECHO"), true,
                            [&](const QString& error) { flagged = error; });
    QTRY_VERIFY(flagged.has_value());
    QCOMPARE(*flagged, QString());
    // Another store's changes are on disk only: the model sees them when asked to look.
    QCOMPARE(model.rowCount(), 3);

    model.refresh();
    QCOMPARE(names(model), (QStringList{QStringLiteral("ALPHA"), QStringLiteral("BRAVO"),
                                        QStringLiteral("DELTA"), QStringLiteral("ECHO")}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.constFirst().at(0).toModelIndex().row(), model.rowOf(QStringLiteral("ECHO")));
    QCOMPARE(model.secret(model.rowOf(QStringLiteral("ECHO")))->passThrough, true);

    // Nothing changed: nothing said.
    model.refresh();
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(changed.count(), 1);
}

void tst_SecretsModel::checkingPassThroughWritesTheIndex()
{
    QCOMPARE(set(*m_other, QStringLiteral("ALPHA"), kValueA, false), QString());
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy failed(&model, &SecretsModel::passThroughFailed);
    const QModelIndex box = model.index(0, SecretsModel::PassThrough);
    QVERIFY(model.flags(box) & Qt::ItemIsUserCheckable);
    QVERIFY(!(model.flags(model.index(0, SecretsModel::Name)) & Qt::ItemIsUserCheckable));

    QVERIFY(model.setData(box, Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(box.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(indexed(QStringLiteral("ALPHA")));
    QCOMPARE(indexed(QStringLiteral("ALPHA"))->passThrough, true);

    QVERIFY(model.setData(box, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(box.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QCOMPARE(indexed(QStringLiteral("ALPHA"))->passThrough, false);

    // Other roles and columns are not editable.
    QVERIFY(!model.setData(box, true, Qt::EditRole));
    QVERIFY(!model.setData(model.index(0, SecretsModel::Name), Qt::Checked, Qt::CheckStateRole));
    // The value was not touched.
    std::optional<QByteArray> value;
    m_other->read(QStringLiteral("ALPHA"),
                  [&](const QByteArray& read, const QString&) { value = read; });
    QTRY_VERIFY(value.has_value());
    QCOMPARE(*value, kValueA);
    // Their answers were posted: none was a refusal.
    QCoreApplication::processEvents();
    QCOMPARE(failed.count(), 0);
}

void tst_SecretsModel::passThroughOfASecretRemovedElsewhereFails()
{
    QCOMPARE(set(*m_other, QStringLiteral("ALPHA"), kValueA, false), QString());
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy failed(&model, &SecretsModel::passThroughFailed);
    QCOMPARE(remove(*m_other, QStringLiteral("ALPHA")), QString());
    QCOMPARE(model.rowCount(), 1); // not refreshed yet

    QVERIFY(
        model.setData(model.index(0, SecretsModel::PassThrough), Qt::Checked, Qt::CheckStateRole));
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.constFirst().at(0).toString(), QStringLiteral("ALPHA"));
    QVERIFY2(failed.constFirst().at(1).toString().contains(QLatin1String("no secret named ALPHA")),
             qPrintable(failed.constFirst().at(1).toString()));
    // The failure made it look again.
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!indexed(QStringLiteral("ALPHA")));
}

void tst_SecretsModel::brokenIndexKeepsTheRows()
{
    QCOMPARE(set(*m_other, QStringLiteral("ALPHA"), kValueA, false), QString());
    SecretsModel model(*m_store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy errors(&model, &SecretsModel::listErrorChanged);
    const QString path = SecretIndex(m_dir->path()).filePath();
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray good = file.readAll();
    file.close();

    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("{ not json");
    file.close();
    model.refresh();
    QCOMPARE(errors.count(), 1);
    QVERIFY(!model.listError().isEmpty());
    QVERIFY2(model.listError().contains(QLatin1String("secrets.json")),
             qPrintable(model.listError()));
    QCOMPARE(names(model), QStringList{QStringLiteral("ALPHA")});

    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(good);
    file.close();
    model.refresh();
    QCOMPARE(errors.count(), 2);
    QVERIFY(model.listError().isEmpty());
    QCOMPARE(names(model), QStringList{QStringLiteral("ALPHA")});
}

void tst_SecretsModel::columns()
{
    SecretsModel model(*m_store);
    QCOMPARE(model.headerData(SecretsModel::Name, Qt::Horizontal).toString(),
             QStringLiteral("Name"));
    QCOMPARE(model.headerData(SecretsModel::PassThrough, Qt::Horizontal).toString(),
             QStringLiteral("Pass-through"));
    QCOMPARE(model.headerData(SecretsModel::Updated, Qt::Horizontal).toString(),
             QStringLiteral("Updated"));
    QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
}

QTEST_GUILESS_MAIN(tst_SecretsModel)
#include "tst_SecretsModel.moc"
