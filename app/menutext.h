// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace slicescope {

// A menu entry's text as people read it: "&Reserve slices..." -> "Reserve slices..."; "&&" is a
// literal '&'. (The command palette and the shortcut list show menu texts this way.)
inline QString plainMenuText(QString menuText)
{
    menuText.replace(QLatin1String("&&"), QStringLiteral("\x01"));
    menuText.remove(u'&');
    menuText.replace(u'\x01', u'&');
    return menuText;
}

} // namespace slicescope
