#pragma once

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QString>

namespace csm {

// Tells when one file's content changes, whether it is written in place, replaced by a rename
// (QSaveFile, QSettings), deleted, or created together with its folder later on. Its folder is
// watched (or, until the folder exists, the folder's parent; nothing is created here), so other
// files coming and going there do not count: only different bytes do.
class FileContentWatcher final : public QObject
{
    Q_OBJECT

public:
    explicit FileContentWatcher(QString path, QObject* parent = nullptr);

    // Starts watching; the content now is the reference for later changes.
    void start();
    QString path() const { return m_path; }
    // The content last seen (empty when the file is missing or unreadable).
    const QByteArray& content() const { return m_content; }

Q_SIGNALS:
    void contentChanged(const QByteArray& content);

private:
    void onSomethingChanged();
    void watchFolder();
    void watchFile();
    QByteArray read() const;

    QString m_path;
    QFileSystemWatcher m_watcher;
    QByteArray m_content;
};

} // namespace csm
