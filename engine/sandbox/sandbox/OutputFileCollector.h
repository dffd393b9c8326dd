#pragma once

#include "sandbox/OutputFile.h"

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QSet>
#include <QString>

namespace csm {

// Writes the files a launcher sends back (file, data and skip frames) into a host folder as
// they arrive, so that a large file never sits in the server's memory, and lists them. It holds
// the launcher to the same caps it was given (a launcher is inside the sandbox: its word is
// checked, not trusted), and names each stored file so that it stays inside the folder whatever
// bytes the program used for its name.
class OutputFileCollector final
{
public:
    struct Limits
    {
        int maxFiles = 100;
        qint64 maxBytes = 32LL * 1024 * 1024;
    };

    // After this many skipped files, the others are only counted.
    static constexpr int kMaxSkippedListed = 20;

    // `directory` empty: files are listed but their bytes are dropped.
    OutputFileCollector(QString directory, Limits limits);

    // A CSM_FRAME_FILE payload: size (8 bytes), then the path.
    void beginFile(const QByteArray& payload);
    void appendData(const QByteArray& chunk);
    // A CSM_FRAME_FILE_SKIPPED payload: the reason byte, then the path.
    void skipFile(const QByteArray& payload);
    // Every file seen, in order; the last one is closed first.
    QList<OutputFile> finish();

    // The raw path as a person reads it: invalid UTF-8 replaced, control characters escaped,
    // invisible ones (bidirectional controls, zero-width characters) marked as ⟦U+202E⟧.
    static QString displayPath(const QByteArray& raw);

private:
    void closeCurrent();
    // A relative path under the folder for `display`, unique among this run's files.
    QString storedName(const QString& display);
    void skip(const QString& display, const QString& reason);

    QString m_directory;
    Limits m_limits;
    QList<OutputFile> m_files;
    QSet<QString> m_usedNames;
    qint64 m_totalBytes = 0;
    bool m_open = false;
    OutputFile m_current;
    QFile m_file;
    QByteArray m_head;
    qint64 m_announced = 0;
    qint64 m_received = 0;
    int m_returned = 0;
    int m_skipped = 0;
    int m_notListed = 0;
    QString m_notListedReason;
};

} // namespace csm
