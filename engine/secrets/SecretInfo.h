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

    // Why `candidate` is not a valid name, for error messages; empty when it is valid.
    static QString nameError(const QString& candidate)
    {
        if (isValidName(candidate))
            return {};
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
