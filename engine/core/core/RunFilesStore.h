#pragma once

#include "core/Expected.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

// The files of runs, kept on the host beside the history: one folder per run, named by a random
// key (also the run's resource URIs, code-sandbox://runs/KEY/out/PATH), with the call's input
// files under "in/" and the program's output files under "out/". Only this machine's user can
// read it (0700). Nothing outside the root is ever read or written through it: keys and
// relative paths from a caller are checked, and symbolic links are not followed.
class RunFilesStore final
{
public:
    // The folder of `dataDir` (HistoryLocation::dataDir) that holds the runs' files.
    static QString rootIn(const QString& dataDir);

    explicit RunFilesStore(QString root);

    const QString& root() const { return m_root; }

    // A new run's key, its folder not made yet: the first file kept for the run makes it (its
    // "in" or "out" folder, under folder(key)). Most calls keep no file, and making and removing
    // three folders for each cost more than the rest of the call's book-keeping. Fails when the
    // store's own folder cannot be made.
    Expected<QString> reserve() const;
    // The run's folder; empty for a key that is not one this store makes.
    QString folder(const QString& key) const;
    // The host file for `relative` ("out/chart.png") in the run `key`, if it is a regular file
    // inside the run's folder (not a symbolic link, not outside it).
    std::optional<QString> file(const QString& key, const QString& relative) const;
    // Removes the run's folder and everything in it.
    void remove(const QString& key) const;
    // Total bytes of every run's files.
    qint64 totalBytes() const;
    // Bytes of one run's files (0 for a key that is not one this store makes).
    qint64 bytesOf(const QString& key) const;
    // Removes the oldest runs' folders (by modification time) until the total is at most
    // `maxBytes`, never those of `keep` (runs still running); returns the removed keys, and
    // the total left in `bytesLeft` if given.
    QStringList pruneTo(qint64 maxBytes, const QStringList& keep = {},
                        qint64* bytesLeft = nullptr) const;

    static bool isKey(const QString& key);

private:
    QString m_root;
};

} // namespace csm
