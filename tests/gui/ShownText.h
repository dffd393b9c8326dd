#pragma once

#include <QLabel>
#include <QTextDocument>

// What a label shows a person: its text itself, or what that text renders to when the label
// takes it for HTML (a label's AutoText does for anything that looks like a tag).
inline QString shownText(const QLabel& label)
{
    const bool rich = label.textFormat() == Qt::RichText ||
                      (label.textFormat() == Qt::AutoText && Qt::mightBeRichText(label.text()));
    if (!rich)
        return label.text();
    QTextDocument document;
    document.setHtml(label.text());
    return document.toPlainText();
}
