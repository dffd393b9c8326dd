// Reading the engines' image listings (canned output of the real engines, data-driven), the
// image commands' arguments, the engine/image health check against stand-in engine programs,
// and ImagesModel under QAbstractItemModelTester.
#include "core/UtcDateTime.h"
#include "runtime/DockerRuntime.h"
#include "runtime/EngineHealthCheck.h"
#include "runtime/ImageListing.h"
#include "runtime/PodmanRuntime.h"
#include "ui/models/ImagesModel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace csm;

namespace {

// Captured from podman 4.3.1 (`podman images --format json`) with code-sandbox-js tagged a
// second time as localhost/csm-probe-listing:x: podman prints that image once per name, each
// time with both names.
const char kPodmanReal[] =
    "[\n"
    "    {\n"
    "        \"Id\": \"f738777ce4b0864268ef7fe3ed9fab1470566ea5d2a938a1f9d18a1ba87b533e\",\n"
    "        \"ParentId\": \"\",\n"
    "        \"RepoTags\": null,\n"
    "        \"RepoDigests\": [\n"
    "            "
    "\"localhost/"
    "code-sandbox-js@sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\",\n"
    "            "
    "\"localhost/"
    "csm-probe-listing@sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\"\n"
    "        ],\n"
    "        \"Size\": 182703601,\n"
    "        \"SharedSize\": 0,\n"
    "        \"VirtualSize\": 182703601,\n"
    "        \"Labels\": {\n"
    "            \"code-sandbox.image\": \"js\",\n"
    "            \"code-sandbox.recipe\": \"ba18a602c892\",\n"
    "            \"code-sandbox.versions\": \"nodejs=18.20.4+dfsg-1~deb12u2\",\n"
    "            \"org.opencontainers.image.description\": \"Code Sandbox js image, debootstrapped "
    "from Debian bookworm\",\n"
    "            \"org.opencontainers.image.title\": \"code-sandbox-js\"\n"
    "        },\n"
    "        \"Containers\": 0,\n"
    "        \"Names\": [\n"
    "            \"localhost/code-sandbox-js:latest\",\n"
    "            \"localhost/csm-probe-listing:x\"\n"
    "        ],\n"
    "        \"Digest\": "
    "\"sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\",\n"
    "        \"History\": [\n"
    "            \"localhost/csm-probe-listing:x\",\n"
    "            \"localhost/code-sandbox-js:latest\",\n"
    "            \"localhost/csm-test-pooled-js:latest\",\n"
    "            \"localhost/csm-test-custom-js:latest\"\n"
    "        ],\n"
    "        \"Created\": 1796263416,\n"
    "        \"CreatedAt\": \"2026-12-03T02:03:36Z\"\n"
    "    },\n"
    "    {\n"
    "        \"Id\": \"f738777ce4b0864268ef7fe3ed9fab1470566ea5d2a938a1f9d18a1ba87b533e\",\n"
    "        \"ParentId\": \"\",\n"
    "        \"RepoTags\": null,\n"
    "        \"RepoDigests\": [\n"
    "            "
    "\"localhost/"
    "code-sandbox-js@sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\",\n"
    "            "
    "\"localhost/"
    "csm-probe-listing@sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\"\n"
    "        ],\n"
    "        \"Size\": 182703601,\n"
    "        \"SharedSize\": 0,\n"
    "        \"VirtualSize\": 182703601,\n"
    "        \"Labels\": {\n"
    "            \"code-sandbox.image\": \"js\",\n"
    "            \"code-sandbox.recipe\": \"ba18a602c892\",\n"
    "            \"code-sandbox.versions\": \"nodejs=18.20.4+dfsg-1~deb12u2\",\n"
    "            \"org.opencontainers.image.description\": \"Code Sandbox js image, debootstrapped "
    "from Debian bookworm\",\n"
    "            \"org.opencontainers.image.title\": \"code-sandbox-js\"\n"
    "        },\n"
    "        \"Containers\": 0,\n"
    "        \"Names\": [\n"
    "            \"localhost/code-sandbox-js:latest\",\n"
    "            \"localhost/csm-probe-listing:x\"\n"
    "        ],\n"
    "        \"Digest\": "
    "\"sha256:85253c3ccfd1d04fac7e2930a948d656c56b5c0d8f40f7dc81bb3deea9da75ac\",\n"
    "        \"History\": [\n"
    "            \"localhost/csm-probe-listing:x\",\n"
    "            \"localhost/code-sandbox-js:latest\",\n"
    "            \"localhost/csm-test-pooled-js:latest\",\n"
    "            \"localhost/csm-test-custom-js:latest\"\n"
    "        ],\n"
    "        \"Created\": 1796263416,\n"
    "        \"CreatedAt\": \"2026-12-03T02:03:36Z\"\n"
    "    },\n"
    "    {\n"
    "        \"Id\": \"3546010b815aed25994e4802ad4fab7fc9105c4cf41b7a1e6d4c90a94e8d0bc9\",\n"
    "        \"ParentId\": \"\",\n"
    "        \"RepoTags\": null,\n"
    "        \"RepoDigests\": [\n"
    "            "
    "\"localhost/"
    "code-sandbox-python@sha256:"
    "0b294f51835afcd732333af6e041a7c7e3b97f01b79adb4b03dedc1fc421fd60\"\n"
    "        ],\n"
    "        \"Size\": 449568436,\n"
    "        \"SharedSize\": 0,\n"
    "        \"VirtualSize\": 449568436,\n"
    "        \"Labels\": {\n"
    "            \"code-sandbox.image\": \"python\",\n"
    "            \"code-sandbox.recipe\": \"55bc884afc11\",\n"
    "            \"code-sandbox.versions\": "
    "\"python3=3.11.2-1+b1,python3-matplotlib=3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-"
    "pandas=1.5.3+dfsg-2,python3-requests=2.28.1+dfsg-1\",\n"
    "            \"org.opencontainers.image.description\": \"Code Sandbox python image, "
    "debootstrapped from Debian bookworm\",\n"
    "            \"org.opencontainers.image.title\": \"code-sandbox-python\"\n"
    "        },\n"
    "        \"Containers\": 0,\n"
    "        \"Names\": [\n"
    "            \"localhost/code-sandbox-python:latest\"\n"
    "        ],\n"
    "        \"Digest\": "
    "\"sha256:0b294f51835afcd732333af6e041a7c7e3b97f01b79adb4b03dedc1fc421fd60\",\n"
    "        \"History\": [\n"
    "            \"localhost/code-sandbox-python:latest\",\n"
    "            \"localhost/csm-test-custom-python:latest\"\n"
    "        ],\n"
    "        \"Created\": 1796263389,\n"
    "        \"CreatedAt\": \"2026-12-03T02:03:09Z\"\n"
    "    }\n"
    "]\n";

// Captured from docker 20.10.24 (`docker images --format '{{json .}}'`).
const char kDockerReal[] =
    "{\"Containers\":\"N/A\",\"CreatedAt\":\"2026-12-03 02:03:45 +0000 UTC\",\"CreatedSince\":\"6 "
    "hours "
    "ago\",\"Digest\":\"\\u003cnone\\u003e\",\"ID\":\"bcdc217d838a\",\"Repository\":\"code-sandbox-"
    "js\",\"SharedSize\":\"N/A\",\"Size\":\"174MB\",\"Tag\":\"latest\",\"UniqueSize\":\"N/"
    "A\",\"VirtualSize\":\"173.6MB\"}\n"
    "{\"Containers\":\"N/A\",\"CreatedAt\":\"2026-12-03 02:03:36 +0000 UTC\",\"CreatedSince\":\"6 "
    "hours "
    "ago\",\"Digest\":\"\\u003cnone\\u003e\",\"ID\":\"1aa12fa8337d\",\"Repository\":\"code-sandbox-"
    "python\",\"SharedSize\":\"N/A\",\"Size\":\"425MB\",\"Tag\":\"latest\",\"UniqueSize\":\"N/"
    "A\",\"VirtualSize\":\"424.7MB\"}\n";

// A dangling image (no name) as podman prints it.
const char kPodmanDangling[] =
    "[{\"Id\":\"0123456789abcdef0123456789abcdef\",\"RepoTags\":null,\"Size\":1000,"
    "\"Names\":null,\"Created\":1796263389}]";

const char kDockerDangling[] =
    "{\"Containers\":\"N/A\",\"CreatedAt\":\"2026-12-03 02:03:45 +0000 UTC\","
    "\"ID\":\"bcdc217d838a\",\"Repository\":\"\\u003cnone\\u003e\",\"Size\":\"7.8kB\","
    "\"Tag\":\"\\u003cnone\\u003e\"}\n";

std::unique_ptr<ContainerRuntime> runtimeNamed(const QString& name, const QString& program = {})
{
    if (name == QLatin1String("docker"))
        return std::make_unique<DockerRuntime>(program.isEmpty() ? name : program);
    return std::make_unique<PodmanRuntime>(program.isEmpty() ? name : program);
}

ImageInfo imageInfo(const QString& name, qint64 size, qint64 createdSecs, const QString& id)
{
    ImageInfo image;
    image.name = name;
    image.id = id;
    image.sizeBytes = size;
    image.created = csm::utcFromMSecsSinceEpoch(createdSecs * 1000LL);
    return image;
}

// A stand-in engine program: exits with `exitCode`, printing `stderrText` first.
QString fakeEngine(const QTemporaryDir& dir, int exitCode, const QByteArray& stderrText = {})
{
    const QString path = dir.filePath(QStringLiteral("engine-%1").arg(exitCode));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write("#!/bin/sh\nprintf '%s' '" + stderrText + "' >&2\nexit " +
                 QByteArray::number(exitCode) + "\n");
    script.close();
    script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

QList<HealthProblem> runCheck(EngineHealthCheck& check, std::shared_ptr<ContainerRuntime> runtime,
                              const QList<EngineHealthCheck::Image>& images)
{
    QSignalSpy finished(&check, &EngineHealthCheck::finished);
    check.start(std::move(runtime), images);
    if (!finished.wait(10'000))
        return {HealthProblem{HealthProblem::Kind::EngineUnavailable,
                              {},
                              {},
                              false,
                              QStringLiteral("the check never finished"),
                              {}}};
    return check.problems();
}

QList<EngineHealthCheck::Image> bothImages(const QString& customJsImage = {})
{
    EngineHealthCheck::Image python{Language::Python,
                                    QStringLiteral("localhost/code-sandbox-python:latest"), true};
    EngineHealthCheck::Image js{Language::JavaScript,
                                customJsImage.isEmpty()
                                    ? QStringLiteral("localhost/code-sandbox-js:latest")
                                    : customJsImage,
                                customJsImage.isEmpty()};
    return {python, js};
}

} // namespace

class tst_ImageListing final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QList<qint64>>("sizes");
        QTest::addColumn<QString>("firstId");
        QTest::addColumn<QDateTime>("firstCreated");

        const QString jsId =
            QStringLiteral("f738777ce4b0864268ef7fe3ed9fab1470566ea5d2a938a1f9d18a1ba87b533e");
        QTest::newRow("podman: real, an image with two names")
            << QStringLiteral("podman") << QByteArray(kPodmanReal)
            << QStringList{QStringLiteral("localhost/code-sandbox-js:latest"),
                           QStringLiteral("localhost/csm-probe-listing:x"),
                           QStringLiteral("localhost/code-sandbox-python:latest")}
            << QList<qint64>{182703601, 182703601, 449568436} << jsId
            << csm::utcFromMSecsSinceEpoch(1796263416 * 1000LL);
        QTest::newRow("podman: dangling")
            << QStringLiteral("podman") << QByteArray(kPodmanDangling) << QStringList{QString()}
            << QList<qint64>{1000} << QStringLiteral("0123456789abcdef0123456789abcdef")
            << csm::utcFromMSecsSinceEpoch(1796263389 * 1000LL);
        QTest::newRow("podman: no images")
            << QStringLiteral("podman") << QByteArray("[]\n") << QStringList{} << QList<qint64>{}
            << QString() << QDateTime();
        QTest::newRow("podman: empty") << QStringLiteral("podman") << QByteArray() << QStringList{}
                                       << QList<qint64>{} << QString() << QDateTime();
        QTest::newRow("podman: error text")
            << QStringLiteral("podman")
            << QByteArray("Error: cannot connect to Podman socket: connection refused\n")
            << QStringList{} << QList<qint64>{} << QString() << QDateTime();
        QTest::newRow("podman: unreadable entries skipped")
            << QStringLiteral("podman")
            << QByteArray("[1, \"x\", {\"Names\":[\"a:b\"]}, {\"Id\":\"abc\",\"Names\":[\"ok:1\"],"
                          "\"Size\":5}]")
            << QStringList{QStringLiteral("ok:1")} << QList<qint64>{5} << QStringLiteral("abc")
            << QDateTime();
        QTest::newRow("docker: real")
            << QStringLiteral("docker") << QByteArray(kDockerReal)
            << QStringList{QStringLiteral("code-sandbox-js:latest"),
                           QStringLiteral("code-sandbox-python:latest")}
            << QList<qint64>{174'000'000, 425'000'000} << QStringLiteral("bcdc217d838a")
            << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("docker: dangling")
            << QStringLiteral("docker") << QByteArray(kDockerDangling) << QStringList{QString()}
            << QList<qint64>{7800} << QStringLiteral("bcdc217d838a")
            << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("docker: empty") << QStringLiteral("docker") << QByteArray() << QStringList{}
                                       << QList<qint64>{} << QString() << QDateTime();
        QTest::newRow("docker: daemon down")
            << QStringLiteral("docker")
            << QByteArray("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                          "Is the docker daemon running?\n")
            << QStringList{} << QList<qint64>{} << QString() << QDateTime();
        QTest::newRow("docker: garbage lines around a good one")
            << QStringLiteral("docker")
            << (QByteArray("garbage\n{\"half\":\n[1,2]\n") + kDockerDangling +
                QByteArray("{\"Repository\":\"x\",\"Tag\":\"1\"}\n{\"Repository\":\"no-tag\"}\n"))
            << QStringList{QString(), QStringLiteral("x:1")} << QList<qint64>{7800, 0}
            << QStringLiteral("bcdc217d838a")
            << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
    }

    void parse()
    {
        QFETCH(QString, engine);
        QFETCH(QByteArray, output);
        QFETCH(QStringList, names);
        QFETCH(QList<qint64>, sizes);
        QFETCH(QString, firstId);
        QFETCH(QDateTime, firstCreated);

        const QList<ImageInfo> images = runtimeNamed(engine)->parseImageList(output);
        QStringList gotNames;
        QList<qint64> gotSizes;
        for (const ImageInfo& image : images) {
            gotNames << image.name;
            gotSizes << image.sizeBytes;
        }
        QCOMPARE(gotNames, names);
        QCOMPARE(gotSizes, sizes);
        if (!images.isEmpty()) {
            QCOMPARE(images.first().id, firstId);
            QCOMPARE(images.first().created, firstCreated);
            QCOMPARE(images.first().reference(), names.first().isEmpty() ? firstId : names.first());
        }
    }

    void dockerSizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes"); // -1: not a size
        QTest::newRow("bytes") << QStringLiteral("0B") << qint64(0);
        QTest::newRow("kB") << QStringLiteral("7.8kB") << qint64(7800);
        QTest::newRow("MB") << QStringLiteral("174MB") << qint64(174'000'000);
        QTest::newRow("MB decimals") << QStringLiteral("173.6MB") << qint64(173'600'000);
        QTest::newRow("GB") << QStringLiteral("1.23GB") << qint64(1'230'000'000);
        QTest::newRow("N/A") << QStringLiteral("N/A") << qint64(-1);
        QTest::newRow("empty") << QString() << qint64(-1);
        QTest::newRow("unit only") << QStringLiteral("MB") << qint64(-1);
        QTest::newRow("binary unit") << QStringLiteral("12MiB") << qint64(-1);
    }

    void dockerSizes()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QCOMPARE(ImageListing::parseDockerSize(text).value_or(-1), bytes);
    }

    void dockerTimes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QDateTime>("time");
        QTest::newRow("UTC") << QStringLiteral("2026-12-03 02:03:45 +0000 UTC")
                             << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("offset") << QStringLiteral("2026-12-03 04:03:45 +0200 CEST")
                                << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("negative offset") << QStringLiteral("2026-12-02 21:33:45 -0430 X")
                                         << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("fractional seconds")
            << QStringLiteral("2026-12-03 02:03:45.123456 +0000 UTC")
            << csm::utcDateTime(QDate(2026, 12, 3), QTime(2, 3, 45));
        QTest::newRow("relative") << QStringLiteral("6 hours ago") << QDateTime();
        QTest::newRow("empty") << QString() << QDateTime();
    }

    void dockerTimes()
    {
        QFETCH(QString, text);
        QFETCH(QDateTime, time);
        const QDateTime parsed = ImageListing::parseDockerTime(text);
        QCOMPARE(parsed.isValid(), time.isValid());
        if (time.isValid())
            QCOMPARE(parsed.toSecsSinceEpoch(), time.toSecsSinceEpoch());
    }

    void arguments()
    {
        const PodmanRuntime podman;
        const DockerRuntime docker;
        QCOMPARE(podman.listImagesArguments(),
                 (QStringList{QStringLiteral("images"), QStringLiteral("--format"),
                              QStringLiteral("json")}));
        QCOMPARE(docker.listImagesArguments(),
                 (QStringList{QStringLiteral("images"), QStringLiteral("--format"),
                              QStringLiteral("{{json .}}")}));
        QCOMPARE(podman.removeImageArguments(QStringLiteral("localhost/x:1")),
                 (QStringList{QStringLiteral("rmi"), QStringLiteral("localhost/x:1")}));
        QCOMPARE(docker.pullImageArguments(QStringLiteral("python:3.12")),
                 (QStringList{QStringLiteral("pull"), QStringLiteral("python:3.12")}));
        QCOMPARE(podman.buildImageArguments(QStringLiteral("/c/Dockerfile.python"),
                                            QStringLiteral("code-sandbox-python:latest"),
                                            QStringLiteral("/c")),
                 (QStringList{QStringLiteral("build"), QStringLiteral("--file"),
                              QStringLiteral("/c/Dockerfile.python"), QStringLiteral("--tag"),
                              QStringLiteral("code-sandbox-python:latest"), QStringLiteral("/c")}));

        for (const ContainerRuntime* runtime : {static_cast<const ContainerRuntime*>(&podman),
                                                static_cast<const ContainerRuntime*>(&docker)}) {
            const QStringList command{QStringLiteral("python3"), QStringLiteral("-u"),
                                      QStringLiteral("-")};
            const QStringList args = runtime->quickRunArguments(
                QStringLiteral("some-image:1"), command, QStringLiteral("/x/csm-seccomp.json"));
            const QString joined = args.join(u' ');
            QCOMPARE(args.first(), QStringLiteral("run"));
            // The image, then the command, last: nothing after them is read as an option.
            QCOMPARE(args.mid(args.size() - 4),
                     QStringList{QStringLiteral("some-image:1")} + command);
            for (const char* hardening :
                 {"--rm -i", "--pull never", "--network none", "--read-only", "--cap-drop ALL",
                  "--security-opt no-new-privileges", "--user 65534:65534", "--memory 512m",
                  "--pids-limit 256", "--security-opt seccomp=/x/csm-seccomp.json"}) {
                QVERIFY2(joined.contains(QLatin1String(hardening)), hardening);
            }
        }
        QVERIFY(podman.quickRunArguments(QStringLiteral("i"), {QStringLiteral("node")}, {})
                    .contains(QStringLiteral("--read-only-tmpfs=false")));
    }

    void healthOfAMissingEngine()
    {
        EngineHealthCheck check;
        const QList<HealthProblem> problems = runCheck(
            check,
            runtimeNamed(QStringLiteral("podman"), QStringLiteral("/nonexistent/bin/podman")),
            bothImages());
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.first().kind, HealthProblem::Kind::EngineMissing);
        QCOMPARE(problems.first().message, QStringLiteral("podman not found"));
        QVERIFY(!problems.first().fixCommand.isEmpty());
        QVERIFY(!check.isRunning());
    }

    void healthOfAnEngineThatFails()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // `podman image exists` exits 125 when the engine itself fails.
        const QString program = fakeEngine(dir, 125, "Error: database is locked");
        EngineHealthCheck check;
        const QList<HealthProblem> problems =
            runCheck(check, runtimeNamed(QStringLiteral("podman"), program), bothImages());
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.first().kind, HealthProblem::Kind::EngineUnavailable);
        QVERIFY2(problems.first().message.contains(QLatin1String("database is locked")),
                 qPrintable(problems.first().message));
    }

    void healthOfMissingImages()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString program = fakeEngine(dir, 1); // podman: "image does not exist"
        EngineHealthCheck check;
        const QList<HealthProblem> problems =
            runCheck(check, runtimeNamed(QStringLiteral("podman"), program),
                     bothImages(QStringLiteral("registry.example/my-node:20")));
        QCOMPARE(problems.size(), 2);
        const HealthProblem& python =
            problems.at(0).language == Language::Python ? problems.at(0) : problems.at(1);
        const HealthProblem& js = &python == &problems.at(0) ? problems.at(1) : problems.at(0);
        QCOMPARE(python.kind, HealthProblem::Kind::ImageMissing);
        QVERIFY(python.defaultImage);
        QCOMPARE(python.message,
                 QStringLiteral("image not built: localhost/code-sandbox-python:latest"));
        QVERIFY2(
            python.fixCommand.endsWith(QLatin1String("build-images --engine podman --only python")),
            qPrintable(python.fixCommand));
        QCOMPARE(js.kind, HealthProblem::Kind::ImageMissing);
        QVERIFY(!js.defaultImage);
        QCOMPARE(js.image, QStringLiteral("registry.example/my-node:20"));
        QCOMPARE(js.fixCommand, QStringLiteral("podman pull registry.example/my-node:20"));
        QVERIFY(js.pullable);
    }

    // A chosen image of this machine's own (localhost/) is in no registry: not to be pulled.
    void aMissingLocalImageIsNotOfferedForPulling()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        EngineHealthCheck check;
        const QList<HealthProblem> problems =
            runCheck(check, runtimeNamed(QStringLiteral("podman"), fakeEngine(dir, 1)),
                     bothImages(QStringLiteral("localhost/my-node:20")));
        const auto js = std::find_if(problems.cbegin(), problems.cend(), [](const auto& problem) {
            return problem.language == Language::JavaScript;
        });
        QVERIFY(js != problems.cend());
        QVERIFY(!js->pullable);
        QCOMPARE(js->fixCommand,
                 QStringLiteral("build localhost/my-node:20 on this machine, or choose another "
                                "image in Settings"));
    }

    void healthOfAWorkingEngine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        EngineHealthCheck check;
        QVERIFY(runCheck(check, runtimeNamed(QStringLiteral("docker"), fakeEngine(dir, 0)),
                         bothImages())
                    .isEmpty());
        // Docker says "No such image" (exit 1) where podman exits 1 silently.
        const QList<HealthProblem> problems = runCheck(
            check,
            runtimeNamed(QStringLiteral("docker"),
                         fakeEngine(dir, 1, "Error: No such image: code-sandbox-js:latest")),
            bothImages());
        QCOMPARE(problems.size(), 2);
        QCOMPARE(problems.first().kind, HealthProblem::Kind::ImageMissing);
    }

    void aNewCheckAbandonsTheRunningOne()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        EngineHealthCheck check;
        QSignalSpy finished(&check, &EngineHealthCheck::finished);
        check.start(runtimeNamed(QStringLiteral("podman"), fakeEngine(dir, 1)), bothImages());
        check.start(runtimeNamed(QStringLiteral("podman"), fakeEngine(dir, 0)), bothImages());
        QVERIFY(finished.wait(10'000));
        QTest::qWait(300);
        QCOMPARE(finished.size(), 1);
        QVERIFY(check.problems().isEmpty());
    }

    // A count and its noun agree: "1 hour ago", "3 hours ago", never "1 hour(s) ago".
    void ageSaysHowLongAgoInWords_data()
    {
        QTest::addColumn<qint64>("secondsAgo");
        QTest::addColumn<QString>("shown");
        QTest::newRow("seconds") << qint64(20) << QStringLiteral("just now");
        QTest::newRow("one minute") << qint64(61) << QStringLiteral("1 minute ago");
        QTest::newRow("minutes") << qint64(5 * 60) << QStringLiteral("5 minutes ago");
        QTest::newRow("one hour") << qint64(3600) << QStringLiteral("1 hour ago");
        QTest::newRow("hours") << qint64(3 * 3600 + 10) << QStringLiteral("3 hours ago");
        QTest::newRow("one day") << qint64(86400 + 5) << QStringLiteral("1 day ago");
        QTest::newRow("days") << qint64(12 * 86400) << QStringLiteral("12 days ago");
    }

    void ageSaysHowLongAgoInWords()
    {
        QFETCH(qint64, secondsAgo);
        QFETCH(QString, shown);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QCOMPARE(ImagesModel::age(now.addSecs(-secondsAgo), now), shown);
    }

    void model()
    {
        ImagesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setImageFor(Language::Python, QStringLiteral("localhost/code-sandbox-python:latest"));
        model.setImageFor(Language::JavaScript, QStringLiteral("node:20"));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        model.setImages(
            {imageInfo(QStringLiteral("localhost/code-sandbox-python:latest"), 449'568'436,
                       now.addSecs(-3 * 3600).toSecsSinceEpoch(), QStringLiteral("p1")),
             imageInfo(QString(), 1000, now.toSecsSinceEpoch(), QStringLiteral("dangling123456")),
             imageInfo(QStringLiteral("docker.io/library/node:20"), 180'000'000,
                       now.addDays(-2).toSecsSinceEpoch(), QStringLiteral("n1"))});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(ImagesModel::ColumnCount));
        // Sorted by name, the nameless last.
        QCOMPARE(model.index(0, ImagesModel::Image).data().toString(),
                 QStringLiteral("docker.io/library/node:20"));
        QCOMPARE(model.index(1, ImagesModel::Image).data().toString(),
                 QStringLiteral("localhost/code-sandbox-python:latest"));
        QVERIFY(model.index(2, ImagesModel::Image).data().toString().contains(u"dangling1234"));
        QCOMPARE(model.index(2, ImagesModel::Image).data(ImagesModel::ReferenceRole).toString(),
                 QStringLiteral("dangling123456"));
        QCOMPARE(model.index(1, ImagesModel::Size).data(ImagesModel::SizeBytesRole).toLongLong(),
                 449'568'436);
        QVERIFY2(model.index(1, ImagesModel::Size).data().toString().contains(u"MB"),
                 qPrintable(model.index(1, ImagesModel::Size).data().toString()));
        QCOMPARE(model.index(1, ImagesModel::Created).data().toString(),
                 QStringLiteral("3 hours ago"));
        QCOMPARE(model.index(0, ImagesModel::Created).data().toString(),
                 QStringLiteral("2 days ago"));
        QCOMPARE(model.index(0, ImagesModel::DefaultFor).data().toString(),
                 QStringLiteral("JavaScript"));
        QCOMPARE(model.index(1, ImagesModel::DefaultFor).data().toString(),
                 QStringLiteral("Python"));
        QCOMPARE(model.index(2, ImagesModel::DefaultFor).data().toString(), QString());
        QCOMPARE(model.rowOf(QStringLiteral("code-sandbox-python")), 1);
        QCOMPARE(model.rowOf(QStringLiteral("nothing:here")), -1);

        // Both languages in one image: one dataChanged, no reset.
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setImageFor(Language::JavaScript, QStringLiteral("code-sandbox-python:latest"));
        QCOMPARE(changes.size(), 1);
        QCOMPARE(model.index(1, ImagesModel::DefaultFor).data().toString(),
                 QStringLiteral("Python, JavaScript"));
        // The same listing again changes nothing (a refresh keeps the selection).
        const QList<ImageInfo> same = model.images();
        model.setImages(same);
        QCOMPARE(resets.size(), 0);
        model.setImages({});
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.rowCount(), 0);
    }

    void sameImage_data()
    {
        QTest::addColumn<QString>("listed");
        QTest::addColumn<QString>("wanted");
        QTest::addColumn<bool>("same");
        QTest::newRow("identical") << QStringLiteral("a/b:1") << QStringLiteral("a/b:1") << true;
        QTest::newRow("podman local") << QStringLiteral("localhost/code-sandbox-js:latest")
                                      << QStringLiteral("code-sandbox-js:latest") << true;
        QTest::newRow("implicit latest") << QStringLiteral("code-sandbox-js:latest")
                                         << QStringLiteral("code-sandbox-js") << true;
        QTest::newRow("docker hub") << QStringLiteral("docker.io/library/python:3.12")
                                    << QStringLiteral("python:3.12") << true;
        QTest::newRow("other tag")
            << QStringLiteral("python:3.12") << QStringLiteral("python:3.11") << false;
        QTest::newRow("registry port")
            << QStringLiteral("reg:5000/x:latest") << QStringLiteral("reg:5000/x") << true;
        QTest::newRow("other registry")
            << QStringLiteral("quay.io/python:3.12") << QStringLiteral("python:3.12") << false;
        QTest::newRow("empty") << QString() << QString() << false;
    }

    void sameImage()
    {
        QFETCH(QString, listed);
        QFETCH(QString, wanted);
        QFETCH(bool, same);
        QCOMPARE(ImagesModel::sameImage(listed, wanted), same);
    }
};

QTEST_GUILESS_MAIN(tst_ImageListing)
#include "tst_ImageListing.moc"
