// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How SliceScope looks: the light and dark themes, the colour of every chip in every colour mode,
// and legends. One place, so the slice view, the overview, legends and screenshots agree, and so
// colours are stable (keyed by worker id, placement group id or state; never run-dependent).

#include "alerts.h"
#include "snapshot.h"

#include <QColor>
#include <QList>
#include <QString>

#include <limits>
#include <optional>

class QApplication;

namespace slicescope {

enum class ColorMode
{
    WorkerId, // each host its own stable colour
    Bundle,   // chips held by each placement group in that group's colour; free chips neutral
    State,    // alive, dead, pending, missing
    Activity, // what each chip does (model/activity.h), on a continuous scale; unknown chips hatched
};
QString toText(ColorMode mode);                               // "worker", "bundle", "state", "activity"
std::optional<ColorMode> colorModeFromText(QStringView text);  // the inverse

// What the activity mode shows of each chip.
enum class ActivityMetric
{
    DutyCycle, // the chip's duty cycle, 0..100 %
    HbmUsed,   // HBM used as a share of the chip's HBM total
};
QString toText(ActivityMetric metric);                               // "duty", "hbm"
std::optional<ActivityMetric> activityMetricFromText(QStringView text); // the inverse
QString activityMetricLabel(ActivityMetric metric);                  // "duty cycle", "HBM used"

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
    QColor unknownChip, unknownHatch; // activity mode: a chip no source reports (hatched, never a scale colour)
    QColor idleOutline, idleHalo;     // a chip reserved but idle: a bright line over a halo, on either theme

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
// The status colour of a state as the tables print it: a slice's status ("ready"), a host's state
// ("ALIVE") or a placement group's state ("CREATED"; PENDING, PREPARED and RESCHEDULING are on
// their way, amber). Any case. An invalid colour for a text that is no state.
QColor stateTextColor(QStringView state, const Theme &theme);
// An alert's severity (the timeline's alert ticks): critical red, warning amber, info blue.
QColor alertSeverityColor(AlertSeverity severity, const Theme &theme);

// The activity scale: a sequential ramp from dark blue (0 %) to yellow (100 %), its lightness
// rising evenly (control points in OKLab, interpolated there), so it reads in grey and for
// colour-blind eyes. Quantised to kActivitySteps colours, so sprite caches stay bounded.
constexpr int kActivitySteps = 64;
int activityStep(double fraction);  // 0..kActivitySteps-1 for a fraction 0..1 (clamped); NaN: -1
QColor activityStepColor(int step); // the colour of a step (clamped to the range)
QColor activityColor(double fraction); // activityStepColor(activityStep(fraction)); NaN: invalid
// A chip's value in `metric` as a fraction 0..1; NaN when the chip does not report it.
double activityFraction(const ChipActivity &activity, ActivityMetric metric);

// How one chip looks in the activity mode: a scale colour, or the unknown neutral, hatched. A
// chip of a host that is not alive keeps the look other modes give it (absentChip, never hatched).
struct ActivityLook {
    QColor color;
    bool hatched = false;
    double fraction = std::numeric_limits<double>::quiet_NaN(); // what the colour says; NaN: unknown
};
ActivityLook activityLook(const ClusterSnapshot &snapshot, int sliceIndex, int hostIndex, int chipIndex, ActivityMetric metric, const Theme &theme);

// The colour of chip `chipIndex` of `host` in `mode` (in Activity mode, `metric`; the host must be
// one of the snapshot's).
QColor chipColor(const ClusterSnapshot &snapshot, const Host &host, int chipIndex, ColorMode mode, const Theme &theme,
                 ActivityMetric metric = ActivityMetric::DutyCycle);

struct LegendEntry {
    QColor color; // invalid: a line of text with no swatch
    QString label;
    bool ghost = false;    // drawn hollow (missing hosts)
    bool hatched = false;  // drawn hatched (activity unknown)
    bool outlined = false; // drawn as an outline (idle chips)
};
// What the colours of one slice mean in `mode`: one entry per worker, placement group, or state
// present in the slice, in a stable order. In Activity mode: how many chips report `metric`,
// the unknown and not-alive chips (the scale itself is drawn by the view).
QList<LegendEntry> legendFor(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme,
                             ActivityMetric metric = ActivityMetric::DutyCycle);

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
