#pragma once

#include "runtime/SharedFolder.h"

#include <QList>
#include <QWidget>

class QPushButton;
class QTableWidget;

namespace csm {

// The folders the user shares with every sandbox, as a list to edit: Add picks a folder, Remove
// drops the selected ones; each row's name (its /data/NAME) can be edited and its Writable box
// ticked (read-only otherwise).
class SharedFoldersEditor final : public QWidget
{
    Q_OBJECT

public:
    explicit SharedFoldersEditor(QWidget* parent = nullptr);

    QList<SharedFolder> folders() const;
    void setFolders(const QList<SharedFolder>& folders);

    // Adds `path` read-only, named after the folder (made a valid name, and unique).
    void addFolder(const QString& path);

Q_SIGNALS:
    void changed();

private:
    enum Column
    {
        FolderColumn,
        NameColumn,
        WritableColumn,
    };

    void appendRow(const SharedFolder& folder);
    QString unusedName(const QString& folderName) const;
    void chooseFolder();
    void removeSelected();
    void updateButtons();

    QTableWidget* m_table = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    bool m_filling = false;
};

} // namespace csm
