// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Durations and alert thresholds as people type them ("10m", "90s", "0s" = now; "5" percent),
// read by one set of functions so the verbs' options (`record --interval`, `alerts --idle-after`)
// and the window's "Alert thresholds" dialog accept the same texts and refuse the same ones with
// the same words. Compiled into the browser build too, which has the dialog but no verbs.

#include "alerts.h"

#include <QString>

namespace slicescope {

// "500ms", "2s", "1m", "1h" (and a bare number of seconds) -> milliseconds; -1 when unreadable,
// negative or over a year (a typo, and converting it would overflow).
qint64 parseDurationMs(const QString &text);
// The shortest exact text parseDurationMs() reads back: "10m", "90s", "1h", "1500ms", "0s".
QString durationText(qint64 ms);

// The AlertThresholds members a person sets, in the order the CLI lists its options.
enum class ThresholdField
{
    IdleBelow,           // --idle-below PERCENT
    IdleAfter,           // --idle-after TIME
    PendingAfter,        // --pending-after TIME
    MetricsMissingAfter, // --metrics-missing-after TIME
    ClearHold,           // --clear-hold TIME
    MaxPerKind,          // --max-per-kind N
};
inline constexpr ThresholdField kThresholdFields[] = {ThresholdField::IdleBelow, ThresholdField::IdleAfter, ThresholdField::PendingAfter,
                                                      ThresholdField::MetricsMissingAfter, ThresholdField::ClearHold, ThresholdField::MaxPerKind};
QString optionName(ThresholdField field); // "idle-below", "idle-after", ... (the CLI option, no dashes)

// Reads `text` into `field` of *thresholds. Empty when taken; else why not, as the rest of a
// sentence that names the field ("wants a time like 0s, 90s, 5m or 1h, not \"soon\""), and
// *thresholds is untouched.
QString setThreshold(AlertThresholds *thresholds, ThresholdField field, const QString &text);
// The field's value as setThreshold() reads it back ("10m", "5", "50").
QString thresholdText(const AlertThresholds &thresholds, ThresholdField field);

} // namespace slicescope
