// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace slicescope {

// "group-9" before "group-10": digit runs compare by value. Locale-free, so sorting (and with
// it every listing and screenshot) is the same on every machine.
inline bool naturalLess(QStringView a, QStringView b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype i2 = i, j2 = j;
            while (i2 < a.size() && a[i2] == u'0')
                ++i2;
            while (j2 < b.size() && b[j2] == u'0')
                ++j2;
            qsizetype ie = i2, je = j2;
            while (ie < a.size() && a[ie].isDigit())
                ++ie;
            while (je < b.size() && b[je].isDigit())
                ++je;
            if (ie - i2 != je - j2)
                return ie - i2 < je - j2;
            if (const int c = a.mid(i2, ie - i2).compare(b.mid(j2, je - j2)); c != 0)
                return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

} // namespace slicescope
