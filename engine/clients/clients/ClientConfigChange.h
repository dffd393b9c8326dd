#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace csm {

// What ClientConfigMerger did (or, for a preview or a text edit, would do) to a client's
// configuration file.
struct ClientConfigChange
{
    enum class Action
    {
        Created,   // the file did not exist and now holds the entry
        Added,     // the entry was added to an existing file
        Replaced,  // an entry of that name was there with other values and was replaced
        Removed,   // the entry was taken out
        Unchanged, // the entry was already there as it would be written: nothing written
        NotFound,  // nothing to remove: no file, or no entry of that name
        Failed,    // nothing written; see error
    };

    Action action = Action::Failed;
    QString path;       // the configuration file
    QString backupPath; // a copy of the file as it was before the change, when it was changed
    QString error;      // Failed: why
    // The file's content after the change (as it is, when nothing changed).
    QByteArray text;
    // What the user should know although it succeeded (e.g. a token in a folder others share).
    QStringList warnings;

    bool succeeded() const { return action != Action::Failed; }
    // Whether the file's content is (or would be) different.
    bool changesFile() const
    {
        return action == Action::Created || action == Action::Added || action == Action::Replaced ||
               action == Action::Removed;
    }
};

} // namespace csm
