#pragma once

#include <QObject>
#include <QString>
#include <QtGlobal>

#include <source_location>

// The tests reach the widgets of the pages and dialogs by the object names the UI gives them, as
// a person finds them by what they show, rather than through accessors kept for tests.

// The descendant of `parent` of type T named `name`; ends the test with a clear message when
// there is none (a renamed widget is a broken test, not a crash on a null pointer).
template <typename T>
T& findNamed(const QObject& parent, const char* name,
             std::source_location where = std::source_location::current())
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (!found)
        qFatal("%s:%u: no %s named \"%s\" under %s \"%s\"", where.file_name(),
               static_cast<unsigned>(where.line()), T::staticMetaObject.className(), name,
               parent.metaObject()->className(), qPrintable(parent.objectName()));
    return *found;
}

// The same for what is there only at times (a dialog while it is open): null when it is not.
template <typename T>
T* findOptional(const QObject& parent, const char* name)
{
    return parent.findChild<T*>(QString::fromLatin1(name));
}
