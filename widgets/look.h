// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How SliceScope looks: the light and dark themes, the colour of every chip in every colour mode,
// and legends. One place, so the slice view, the overview, legends and screenshots agree, and so
// colours are stable (keyed by worker id, placement group id or state; never run-dependent).

#include "snapshot.h"

#include <QColor>
#include <QList>
#include <QString>

#include <optional>

class QApplication;

namespace slicescope {

enum class ColorMode
{
    WorkerId, // each host its own stable colour
    Bundle,   // chips held by each placement group in that group's colour; free chips neutral
    State,    // alive, dead, pending, missing
};
QString toText(ColorMode mode);                               // "worker", "bundle", "state"
std::optional<ColorMode> colorModeFromText(QStringView text);  // the inverse

// The colours of one kind of message in a message bar (widgets/messagebar.h).
struct MessageColors {
    QColor background, text, border;
};

struct Theme {
    bool isDark = false;
    QColor window, panel, text, mutedText, border;
    QColor freeChip;        // a chip nobody holds (bundle mode)
    QColor absentChip;      // a chip of a MISSING host: drawn as a ghost
    QColor hostOutline;
    QColor iciLink, wrapLink;
    QColor selection, hover;
    QColor alive, dead, pending, missing;             // host states
    QColor ready, reserved, degraded, provisioning;   // slice status badges
    MessageColors info, warning, error, success;      // message bars, by kind

    static Theme light();
    static Theme dark();
    static Theme named(QStringView name); // "light" (default) or "dark"
};

// a blended towards b by t (0..1), alpha included.
QColor mix(const QColor &a, const QColor &b, double t);

// Stable qualitative colours.
QColor workerColor(int workerId);
QColor placementGroupColor(QStringView placementGroupId);
QColor hostStateColor(HostState state, const Theme &theme);
QColor sliceStatusColor(SliceStatus status, const Theme &theme);

// The colour of chip `chipIndex` of `host` in `mode`.
QColor chipColor(const ClusterSnapshot &snapshot, const Host &host, int chipIndex, ColorMode mode, const Theme &theme);

struct LegendEntry {
    QColor color;
    QString label;
    bool ghost = false; // drawn hollow (missing hosts)
};
// What the colours of one slice mean in `mode`: one entry per worker, placement group, or state
// present in the slice, in a stable order.
QList<LegendEntry> legendFor(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme);

// The UI font (DejaVu Sans, shipped as a Qt resource built from Debian's fonts-dejavu-core) at a
// fixed pixel size, so text renders identically on every machine and in the browser build.
void installUiFont(QApplication &app);

// Applies Fusion, the theme's palette and the UI font: what the window, `screenshot` and the
// golden-image tests all use.
void applyLook(QApplication &app, const Theme &theme);

// Environment a pixel-exact rendering needs, set before QApplication exists: 96 DPI, scale 1,
// no high-DPI scaling, offscreen platform unless one is already chosen.
void pinRenderingEnvironment(bool offscreen);

} // namespace slicescope
