#include "sandbox/LauncherRequest.h"

#include "csm/launcher_protocol.h"

#include <QtEndian>

namespace csm {

namespace {
template <typename Number>
void appendBigEndian(QByteArray& bytes, Number value)
{
    char buffer[sizeof(Number)];
    qToBigEndian<Number>(value, buffer);
    bytes.append(buffer, sizeof buffer);
}
} // namespace

QByteArray LauncherRequest::encode(const QByteArray& program, const QList<InputFile>& files)
{
    static_assert(CSM_REQUEST_LENGTH_SIZE == sizeof(quint64));
    static_assert(CSM_REQUEST_PATH_LENGTH_SIZE == sizeof(quint32));
    qsizetype size = CSM_REQUEST_LENGTH_SIZE + program.size() + CSM_REQUEST_PATH_LENGTH_SIZE;
    for (const InputFile& file : files)
        size += CSM_REQUEST_PATH_LENGTH_SIZE + file.path.size() * 3 + CSM_REQUEST_LENGTH_SIZE +
                file.content.size();
    QByteArray request;
    request.reserve(size);
    appendBigEndian<quint64>(request, quint64(program.size()));
    request.append(program);
    for (const InputFile& file : files) {
        const QByteArray path = file.path.toUtf8();
        appendBigEndian<quint32>(request, quint32(path.size()));
        request.append(path);
        appendBigEndian<quint64>(request, quint64(file.content.size()));
        request.append(file.content);
    }
    appendBigEndian<quint32>(request, 0);
    return request;
}

} // namespace csm
