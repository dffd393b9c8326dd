#include "sandbox/SandboxFilesVolume.h"

#include "core/Logging.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/ContainerSpec.h"
#include "runtime/EngineMessage.h"
#include "sandbox/NodeFetchPreload.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QTimer>
#include <QUuid>

#include <utility>

namespace csm {

namespace {
// A step of a healthy engine takes well under a second; runs wait for the fill.
constexpr int kStepTimeoutMs = 30'000;

// What `volume inspect` (ContainerRuntime::volumeCheckArguments) says of each volume that exists:
// the id its maker gave it, and, for a marker, the id of the volume it vouches for.
struct SeenVolume
{
    QString id;
    QString checks;
};

QHash<QString, SeenVolume> seenVolumes(const QByteArray& output)
{
    QHash<QString, SeenVolume> seen;
    for (const QString& line : QString::fromUtf8(output).split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList fields = line.trimmed().split(u'|');
        if (fields.size() == 3)
            seen.insert(fields.at(0), {fields.at(1), fields.at(2)});
    }
    return seen;
}

// Where the filler container sees the volume's file `name`.
QString pathInVolume(const QString& name)
{
    return QLatin1String(ContainerSpec::kFilesVolumeMountPoint) + QLatin1Char('/') + name;
}
} // namespace

SandboxFilesVolume::SandboxFilesVolume(const ContainerRuntime& runtime, SandboxFiles files,
                                       QMap<QString, QString> labels, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_files(std::move(files))
    , m_labels(std::move(labels))
{
    m_copyAgain.setSingleShot(true);
    // Copied from files written now, not from the host's: the bytes read back are checked
    // against what was copied, and an installation replaced meanwhile changes nothing.
    m_staging = std::make_unique<QTemporaryDir>();
    QList<std::pair<QString, QString>> hostFiles{
        {QLatin1String(ContainerSpec::kLauncherNameInVolume), m_files.launcher},
        {QLatin1String(ContainerSpec::kSeccompProfileNameInVolume), m_files.seccompProfile}};
    // Where it is installed (a profile of the user's own may have no variant): without it only
    // the gVisor tier fails, with the engine's word that the profile is missing.
    if (QFile::exists(m_files.gvisorSeccompProfile())) {
        hostFiles.append({QLatin1String(ContainerSpec::kGvisorSeccompProfileNameInVolume),
                          m_files.gvisorSeccompProfile()});
    }
    QList<QByteArray> contents;
    for (const auto& [name, hostPath] : hostFiles) {
        QFile file(hostPath);
        if (!file.open(QIODevice::ReadOnly)) {
            m_error = QStringLiteral("cannot read %1: %2").arg(hostPath, file.errorString());
            return;
        }
        m_placed.append({name,
                         {},
                         file.readAll(),
                         name == QLatin1String(ContainerSpec::kLauncherNameInVolume)});
    }
    m_placed.append({QLatin1String(ContainerSpec::kEgressNodePreloadName),
                     {},
                     NodeFetchPreload::source(),
                     false});
    for (PlacedFile& placed : m_placed) {
        placed.hostPath = m_staging->filePath(placed.name);
        QFile staged(placed.hostPath);
        if (!m_staging->isValid()) {
            m_error =
                QStringLiteral("cannot make a temporary folder: %1").arg(m_staging->errorString());
            m_placed.clear();
            return;
        }
        if (!staged.open(QIODevice::WriteOnly) ||
            staged.write(placed.content) != placed.content.size()) {
            m_error =
                QStringLiteral("cannot write %1: %2").arg(placed.hostPath, staged.errorString());
            m_placed.clear();
            return;
        }
        staged.close();
        // The mode travels with the copy: the sandbox's user runs the launcher and reads the
        // rest, and changes none of them.
        const QFileDevice::Permissions readable = QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ReadGroup | QFileDevice::ReadOther;
        const QFileDevice::Permissions executable =
            QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther;
        if (!staged.setPermissions(placed.executable ? readable | executable : readable)) {
            m_error = QStringLiteral("cannot set the mode of %1: %2")
                          .arg(placed.hostPath, staged.errorString());
            m_placed.clear();
            return;
        }
        contents.append(placed.content);
    }
    m_name = nameFor(contents);
}

SandboxFilesVolume::~SandboxFilesVolume()
{
    if (m_step) {
        m_step->disconnect(this);
        m_step->kill();
        m_step->waitForFinished(1000);
    }
    if (!m_helper.isEmpty())
        m_runtime.startDetachedRemoval(m_helper);
}

QString SandboxFilesVolume::nameFor(const QList<QByteArray>& contents)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QByteArray& content : contents) {
        // Each length first: moving bytes from one file to the next changes the name.
        hash.addData(QByteArray(QByteArray::number(content.size()) + ':'));
        hash.addData(content);
    }
    const QByteArray digest = hash.result();
    return QStringLiteral("code-sandbox-files-") + QString::fromLatin1(digest.toHex().left(16));
}

QString SandboxFilesVolume::verifiedMarkerFor(const QString& volume)
{
    return volume + QStringLiteral("-verified");
}

void SandboxFilesVolume::fill(const QString& image)
{
    if (m_filled || isFilling() || m_name.isEmpty())
        return;
    m_error.clear();
    m_failure = Failure::None;
    m_sinceFill.start();
    m_foundChecked = false;
    const QString marker = verifiedMarkerFor(m_name);
    run(m_runtime.volumeCheckArguments({m_name, marker}),
        [this, image, marker](int, const QByteArray&) {
            const QHash<QString, SeenVolume> seen = seenVolumes(m_lastOutput);
            const SeenVolume volume = seen.value(m_name);
            // The marker vouches for this very volume, not one of the same name made before.
            if (seen.contains(m_name) && seen.contains(marker) && !volume.id.isEmpty() &&
                seen.value(marker).checks == volume.id) {
                m_foundChecked = true;
                finishWithTheVolume();
                return;
            }
            const auto startFill = [this, image, exists = seen.contains(m_name), id = volume.id] {
                if (!exists) {
                    createVolume(image);
                    return;
                }
                m_volumeId = id;
                createFiller(image);
            };
            if (!seen.contains(marker)) {
                startFill();
                return;
            }
            // A marker that vouches for no volume there (it went, or was made again): it goes
            // first, or a server starting meanwhile would take the volume being filled for a
            // checked one.
            run(m_runtime.volumeRemoveArguments(marker),
                [this, startFill](int exitCode, const QByteArray& error) {
                    if (exitCode != 0 && !error.toLower().contains("no such volume")) {
                        fail(QStringLiteral("could not remove the outdated marker of"), error);
                        return;
                    }
                    startFill();
                });
        });
}

void SandboxFilesVolume::createVolume(const QString& image)
{
    QMap<QString, QString> labels = m_labels;
    labels.insert(QLatin1String(ContainerLabels::kVolumeId),
                  QUuid::createUuid().toString(QUuid::Id128));
    run(m_runtime.volumeCreateArguments(m_name, labels),
        [this, image](int, const QByteArray& createError) {
            // Made now, or by another server meanwhile: either way, its id is what its marker
            // will vouch for.
            run(m_runtime.volumeCheckArguments({m_name}),
                [this, image, createError](int, const QByteArray&) {
                    const QHash<QString, SeenVolume> seen = seenVolumes(m_lastOutput);
                    if (!seen.contains(m_name)) {
                        fail(QStringLiteral("could not create the volume"), createError);
                        return;
                    }
                    m_volumeId = seen.value(m_name).id;
                    createFiller(image);
                });
        });
}

void SandboxFilesVolume::createFiller(const QString& image)
{
    const QString helper =
        QStringLiteral("code-sandbox-fill-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    run(m_runtime.volumeFillerArguments(
            helper, image, m_name, QLatin1String(ContainerSpec::kFilesVolumeMountPoint), m_labels),
        [this, helper](int exitCode, const QByteArray& error) {
            if (exitCode != 0) {
                fail(QStringLiteral("could not create a container to fill"), error,
                     Failure::Filler);
                return;
            }
            m_helper = helper;
            copy(0);
        });
}

void SandboxFilesVolume::copy(int index, int attempt)
{
    if (index == m_placed.size()) {
        verify(0);
        return;
    }
    const PlacedFile& placed = m_placed.at(index);
    run(m_runtime.copyIntoArguments(placed.hostPath, m_helper, pathInVolume(placed.name)),
        [this, index, attempt](int exitCode, const QByteArray& error) {
            if (exitCode == 0) {
                copy(index + 1);
            } else if (attempt < kCopyTries) {
                qCInfo(lcSandbox).noquote()
                    << "copying" << m_placed.at(index).name << "into" << m_name
                    << "failed; trying again:" << QString::fromUtf8(error).trimmed();
                m_copyAgain.disconnect(this);
                connect(&m_copyAgain, &QTimer::timeout, this,
                        [this, index, attempt] { copy(index, attempt + 1); });
                m_copyAgain.start(kCopyRetryMs * attempt);
            } else {
                fail(QStringLiteral("could not copy %1 into").arg(m_placed.at(index).name), error);
            }
        });
}

namespace {
// The one regular file of a tar stream (`cp CONTAINER:PATH -`): its content and mode, or nothing
// when the stream holds anything else first (a link, a folder) or is cut short.
struct TarFile
{
    QByteArray content;
    int mode = 0;
};

std::optional<TarFile> regularFileIn(const QByteArray& tar)
{
    constexpr int kBlock = 512;
    if (tar.size() < kBlock)
        return std::nullopt;
    const char type = tar.at(156);
    if (type != '0' && type != '\0')
        return std::nullopt;
    auto octal = [&tar](int offset, int length, bool* ok) {
        return QByteArray(tar.constData() + offset, length)
            .replace('\0', "")
            .trimmed()
            .toLongLong(ok, 8);
    };
    bool sizeOk = false;
    bool modeOk = false;
    const qint64 size = octal(124, 12, &sizeOk);
    const qint64 mode = octal(100, 8, &modeOk);
    if (!sizeOk || !modeOk || size < 0 || tar.size() < kBlock + size)
        return std::nullopt;
    return TarFile{tar.mid(kBlock, size), int(mode & 07777)};
}
} // namespace

void SandboxFilesVolume::verify(int index)
{
    if (index == m_placed.size()) {
        removeHelper();
        markVerified();
        return;
    }
    const QString name = m_placed.at(index).name;
    run(m_runtime.copyOutArguments(m_helper, pathInVolume(name)),
        [this, index, name](int exitCode, const QByteArray& error) {
            const std::optional<TarFile> file = regularFileIn(m_lastOutput);
            const PlacedFile& placed = m_placed.at(index);
            // Readable by everyone (the sandbox's user is not the owner), the launcher also
            // executable: a copy that lost its mode would fail every sandbox at its start.
            const int needed = placed.executable ? 0555 : 0444;
            if (exitCode != 0 || !file || file->content != placed.content ||
                (file->mode & needed) != needed) {
                const QByteArray why = exitCode != 0 ? error : QByteArray("not that regular file");
                // Not to be used again as it is: the filler goes, then any marker (another
                // server's, for the same volume), then the volume, and the next fill starts
                // from a new one.
                run(m_runtime.forceRemoveArguments(std::exchange(m_helper, {})),
                    [this, name, why](int, const QByteArray&) {
                        run(m_runtime.volumeRemoveArguments(verifiedMarkerFor(m_name)),
                            [this, name, why](int, const QByteArray&) {
                                run(m_runtime.volumeRemoveArguments(m_name),
                                    [this, name, why](int, const QByteArray&) {
                                        fail(QStringLiteral("found something else than the %1 "
                                                            "just copied into")
                                                 .arg(name),
                                             why);
                                    });
                            });
                    });
                return;
            }
            verify(index + 1);
        });
}

void SandboxFilesVolume::markVerified()
{
    // A volume without an id was made by something else than a server (a sandbox's mount of
    // the name before any server made it): nothing could tell a later making of it from this
    // one, so it is filled at each start, as before markers.
    if (m_volumeId.isEmpty()) {
        qCInfo(lcSandbox).noquote()
            << m_name << "has no id of ours; the next server fills it again";
        finishWithTheVolume();
        return;
    }
    QMap<QString, QString> labels = m_labels;
    labels.insert(QLatin1String(ContainerLabels::kChecksVolume), m_volumeId);
    run(m_runtime.volumeCreateArguments(verifiedMarkerFor(m_name), labels),
        [this](int exitCode, const QByteArray& error) {
            // Podman refuses to make a volume that exists (another server's marker): as good.
            // Without a marker, the next server fills the volume again; this one can use it.
            if (exitCode != 0 && !error.contains("already exists")) {
                qCInfo(lcSandbox).noquote()
                    << "could not mark" << m_name
                    << "as checked; the next server fills it again:" << engineMessageLine(error);
            }
            finishWithTheVolume();
        });
}

void SandboxFilesVolume::finishWithTheVolume()
{
    if (m_runtime.enginesReadSeccompProfiles())
        findProfileOnEngine();
    else
        succeed();
}

void SandboxFilesVolume::findProfileOnEngine()
{
    run(m_runtime.volumeMountpointArguments(m_name), [this](int exitCode, const QByteArray& error) {
        const QString folder = QString::fromUtf8(m_lastOutput).trimmed();
        if (exitCode != 0 || folder.isEmpty()) {
            fail(QStringLiteral("could not find where the engine keeps"), error);
            return;
        }
        m_seccompOnEngine =
            folder + QLatin1Char('/') + QLatin1String(ContainerSpec::kSeccompProfileNameInVolume);
        succeed();
    });
}

void SandboxFilesVolume::succeed()
{
    m_filled = true;
    qCInfo(lcSandbox).noquote() << "the remote engine holds the sandbox's launcher in volume"
                                << m_name
                                << (m_foundChecked ? "(found filled and checked in" : "(filled in")
                                << m_sinceFill.elapsed() << "ms)";
    Q_EMIT finished();
}

void SandboxFilesVolume::run(const QStringList& arguments, Next next)
{
    QProcess* process = m_runtime.newProcess(arguments, this);
    m_step = process;
    connect(process, &QProcess::finished, this,
            [this, process, next](int exitCode, QProcess::ExitStatus status) {
                const QByteArray error = process->readAllStandardError();
                m_lastOutput = process->readAllStandardOutput();
                process->deleteLater();
                m_step = nullptr;
                next(status == QProcess::NormalExit ? exitCode : -1, error);
            });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        process->deleteLater();
        m_step = nullptr;
        removeHelper();
        m_failure = Failure::EngineNotStarted;
        m_error = m_runtime.notStartedMessage(process->errorString());
        Q_EMIT finished();
    });
    // An engine that stops answering must not hold every run forever.
    QTimer::singleShot(kStepTimeoutMs, process, [process] { process->kill(); });
    process->start();
}

void SandboxFilesVolume::fail(const QString& what, const QByteArray& standardError, Failure failure)
{
    removeHelper();
    m_failure = failure;
    const QString reason = engineMessageLine(standardError);
    m_error = QStringLiteral("%1 %2: %3")
                  .arg(what, m_name, reason.isEmpty() ? QStringLiteral("no reason given") : reason);
    qCWarning(lcSandbox).noquote()
        << "the sandbox's launcher could not be put on the engine:" << m_error;
    Q_EMIT finished();
}

void SandboxFilesVolume::removeHelper()
{
    if (m_helper.isEmpty())
        return;
    QProcess* remover = m_runtime.newProcess(m_runtime.forceRemoveArguments(m_helper), this);
    connect(remover, &QProcess::finished, remover, &QObject::deleteLater);
    remover->start();
    m_helper.clear();
}

} // namespace csm
