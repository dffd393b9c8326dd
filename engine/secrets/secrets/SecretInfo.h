#pragma once

#include <QDateTime>
#include <QString>
#include <QStringView>

namespace csm {

// What is known about a secret without its value: safe to list, log and show.
struct SecretInfo
{
    // Names become environment-variable names in the sandbox (`-e NAME`), so they follow the
    // portable shell rule: a letter or '_', then letters, digits and '_'.
    static constexpr qsizetype kMaxNameLength = 128;

    QString name;
    // Resolved at server start and handed to every sandbox as an environment variable.
    bool passThrough = false;
    QDateTime updatedAt; // UTC

    static bool isValidName(QStringView candidate)
    {
        if (candidate.isEmpty() || candidate.size() > kMaxNameLength)
            return false;
        for (qsizetype i = 0; i < candidate.size(); ++i) {
            const char16_t c = candidate.at(i).unicode();
            const bool letter = (c >= u'A' && c <= u'Z') || (c >= u'a' && c <= u'z') || c == u'_';
            const bool digit = c >= u'0' && c <= u'9';
            if (!letter && !(digit && i > 0))
                return false;
        }
        return true;
    }

    // Names that the engine's own CLI or the sandbox depend on. A pass-through secret's value is
    // put into the engine client's environment (for its bare `-e NAME`), so a secret called PATH
    // or DOCKER_HOST would change how the engine itself runs, or where it connects; and with a
    // remote engine, so would the ssh the CLI runs (SSH_*) and the proxy and certificates its
    // TCP connection uses.
    static bool isReservedName(QStringView candidate)
    {
        static constexpr const char16_t* kExact[] = {
            u"PATH",     u"HOME",          u"USER",        u"LOGNAME",
            u"SHELL",    u"TMPDIR",        u"LANG",        u"TZ",
            u"PWD",      u"HOSTNAME",      u"TERM",        u"TMP",
            u"TEMP",     u"HTTP_PROXY",    u"HTTPS_PROXY", u"ALL_PROXY",
            u"NO_PROXY", u"SSL_CERT_FILE", u"SSL_CERT_DIR"};
        static constexpr const char16_t* kPrefixes[] = {
            u"LD_",  u"DOCKER_", u"PODMAN_",       u"CONTAINERS_", u"CONTAINER_", u"BUILDAH_",
            u"XDG_", u"DBUS_",   u"CODE_SANDBOX_", u"STORAGE_",    u"REGISTRY_",  u"SSH_"};
        for (const char16_t* exact : kExact) {
            if (candidate.compare(QStringView(exact), Qt::CaseInsensitive) == 0)
                return true;
        }
        for (const char16_t* prefix : kPrefixes) {
            if (candidate.startsWith(QStringView(prefix), Qt::CaseInsensitive))
                return true;
        }
        return false;
    }

    // Why `candidate` is not a valid name, for error messages; empty when it is valid.
    static QString nameError(const QString& candidate)
    {
        if (isValidName(candidate) && !isReservedName(candidate))
            return {};
        if (isValidName(candidate))
            return QStringLiteral("%1 is reserved: the container engine or the sandbox depends on "
                                  "a variable of that name; choose another name")
                .arg(candidate);
        if (candidate.isEmpty())
            return QStringLiteral("a secret needs a name");
        if (candidate.size() > kMaxNameLength)
            return QStringLiteral("the secret name is longer than %1 characters")
                .arg(kMaxNameLength);
        return QStringLiteral("\"%1\" is not a valid secret name: use letters, digits and '_', "
                              "not starting with a digit (it becomes an environment variable)")
            .arg(candidate);
    }
};

} // namespace csm
