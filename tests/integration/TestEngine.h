#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

// The real container engine an integration test runs against: CSM_TEST_ENGINE=podman|docker.
class TestEngine final
{
public:
    static QString name();
    // How this engine names a locally built image (podman: localhost/NAME).
    static QString localImage(const QString& image);
    // Runs the engine CLI and returns its stdout; fails the test's expectations through `ok`.
    static QByteArray run(const QStringList& arguments, bool* ok = nullptr);
    // Whether the engine has this locally built image (named as localImage() names it).
    static bool hasLocalImage(const QString& image);
    // Names of containers (running or not) carrying this label.
    static QStringList containersWithLabel(const QString& label);
    // Polls until no container has the label, up to `timeoutMs`; returns what remains.
    static QStringList waitUntilNoContainerWithLabel(const QString& label, int timeoutMs);
};
