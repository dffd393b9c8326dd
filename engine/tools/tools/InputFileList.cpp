#include "tools/InputFileList.h"

#include "csm/launcher_protocol.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

namespace csm {

namespace {
QString mebibytes(qint64 bytes)
{
    return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'g', 4);
}

Unexpected refusal(qsizetype index, const QString& why)
{
    return Unexpected(QStringLiteral("Invalid arguments: files[%1] %2").arg(index).arg(why));
}

// Why `path` cannot name a file under the working directory; empty when it can.
QString pathProblem(const QString& path)
{
    if (path.isEmpty())
        return QStringLiteral("has an empty \"path\"");
    if (path.startsWith(QLatin1Char('/')))
        return QStringLiteral("path \"%1\" is absolute: give it relative to the working "
                              "directory")
            .arg(path);
    if (path.contains(QChar(0)))
        return QStringLiteral("path contains a NUL character");
    if (path.toUtf8().size() > CSM_MAX_PATH)
        return QStringLiteral("path is longer than %1 bytes").arg(CSM_MAX_PATH);
    for (const QString& part : path.split(QLatin1Char('/'))) {
        if (part == QLatin1String(".."))
            return QStringLiteral("path \"%1\" goes up with \"..\": it must stay under the "
                                  "working directory")
                .arg(path);
        if (part.isEmpty() || part == QLatin1String("."))
            return QStringLiteral("path \"%1\" has an empty or \".\" part").arg(path);
    }
    return {};
}
} // namespace

Expected<QList<InputFile>> InputFileList::parse(const QJsonValue& value, const Limits& limits)
{
    if (value.isUndefined() || value.isNull())
        return QList<InputFile>{};
    if (!value.isArray())
        return Unexpected(QStringLiteral("Invalid arguments: \"files\" must be an array of "
                                         "{path, content, encoding} objects."));
    const QJsonArray entries = value.toArray();
    if (entries.size() > limits.maxFiles) {
        return Unexpected(QStringLiteral("Invalid arguments: %1 files were given; at most %2 "
                                         "are accepted in one call.")
                              .arg(entries.size())
                              .arg(limits.maxFiles));
    }
    QList<InputFile> files;
    QSet<QString> paths;
    QSet<QString> folders;
    qint64 total = 0;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (!entries.at(i).isObject())
            return refusal(i, QStringLiteral("must be an object {path, content, encoding}."));
        const QJsonObject entry = entries.at(i).toObject();
        const QJsonValue path = entry.value(QLatin1String("path"));
        const QJsonValue content = entry.value(QLatin1String("content"));
        const QJsonValue encoding = entry.value(QLatin1String("encoding"));
        if (!path.isString())
            return refusal(i, QStringLiteral("needs a string \"path\"."));
        if (const QString problem = pathProblem(path.toString()); !problem.isEmpty())
            return refusal(i, problem + QLatin1Char('.'));
        if (!content.isString())
            return refusal(i, QStringLiteral("needs a string \"content\"."));
        const QString encodingName = encoding.isUndefined() || encoding.isNull()
                                         ? QStringLiteral("utf-8")
                                         : encoding.toString().toLower();
        InputFile file;
        file.path = path.toString();
        if (encodingName == QLatin1String("utf-8") || encodingName == QLatin1String("utf8")) {
            file.content = content.toString().toUtf8();
        } else if (encodingName == QLatin1String("base64")) {
            const auto decoded = QByteArray::fromBase64Encoding(
                content.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
            if (!decoded)
                return refusal(i, QStringLiteral("(\"%1\") has content that is not valid base64.")
                                      .arg(file.path));
            file.content = *decoded;
        } else {
            return refusal(i, QStringLiteral("has encoding \"%1\": use \"utf-8\" or \"base64\".")
                                  .arg(encoding.toString()));
        }
        if (paths.contains(file.path))
            return refusal(
                i, QStringLiteral("names \"%1\" again: each path only once.").arg(file.path));
        // "a" and "a/b" cannot both be: one would have to be a folder and a file.
        const QStringList parts = file.path.split(QLatin1Char('/'));
        for (qsizetype depth = 1; depth < parts.size(); ++depth) {
            const QString folder = parts.mid(0, depth).join(QLatin1Char('/'));
            if (paths.contains(folder))
                return refusal(i, QStringLiteral("puts \"%1\" inside \"%2\", which is a file.")
                                      .arg(file.path, folder));
            folders.insert(folder);
        }
        if (folders.contains(file.path))
            return refusal(
                i,
                QStringLiteral("names \"%1\", which is a folder of another file.").arg(file.path));
        paths.insert(file.path);
        total += file.content.size();
        if (total > limits.maxBytes) {
            return Unexpected(QStringLiteral("Invalid arguments: the files add up to more than "
                                             "%1, the most one call accepts.")
                                  .arg(mebibytes(limits.maxBytes)));
        }
        files.append(std::move(file));
    }
    return files;
}

QJsonObject InputFileList::schema(const Limits& limits, const QString& workdir)
{
    const QJsonObject entry{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("Relative to %1, e.g. data/sales.csv").arg(workdir)}}},
             {QStringLiteral("content"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("The file's content, as text or base64")}}},
             {QStringLiteral("encoding"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("enum"),
                           QJsonArray{QStringLiteral("utf-8"), QStringLiteral("base64")}},
                          {QStringLiteral("description"),
                           QStringLiteral("How content is written (default utf-8)")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("path"), QStringLiteral("content")}},
    };
    return {
        {QStringLiteral("type"), QStringLiteral("array")},
        {QStringLiteral("items"), entry},
        {QStringLiteral("maxItems"), limits.maxFiles},
        {QStringLiteral("description"),
         QStringLiteral("Files placed in the working directory before the program starts (at "
                        "most %1 files, %2 in all)")
             .arg(limits.maxFiles)
             .arg(mebibytes(limits.maxBytes))},
    };
}

} // namespace csm
