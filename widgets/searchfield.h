// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A search or filter box as every view has one (issue 17): a clear button, and Escape clears what
// was typed while the box has the focus (a box already empty lets Escape through to its window),
// and the magnifier icon at its start.

#include "icons.h"

#include <QAction>
#include <QLineEdit>

namespace slicescope {

inline void makeSearchField(QLineEdit *edit)
{
    edit->setClearButtonEnabled(true);
    edit->addAction(icon(IconKind::Search), QLineEdit::LeadingPosition);
    auto *clear = new QAction(edit);
    clear->setObjectName(QStringLiteral("clearOnEscape"));
    clear->setShortcut(QKeySequence(Qt::Key_Escape));
    clear->setShortcutContext(Qt::WidgetShortcut);
    QObject::connect(edit, &QLineEdit::textChanged, clear, [clear](const QString &text) { clear->setEnabled(!text.isEmpty()); });
    clear->setEnabled(!edit->text().isEmpty());
    QObject::connect(clear, &QAction::triggered, edit, &QLineEdit::clear);
    edit->addAction(clear);
}

} // namespace slicescope
