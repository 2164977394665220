// SPDX-License-Identifier: GPL-3.0-or-later
#include "thresholdtext.h"

#include <QLocale>

#include <cmath>

namespace slicescope {

namespace {

struct Unit {
    const char *suffix;
    qint64 ms;
};
// Longest suffix first where one ends another ("ms" before "s").
constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};

qint64 *durationMember(AlertThresholds &t, ThresholdField field)
{
    switch (field) {
    case ThresholdField::IdleAfter: return &t.idleAfterMs;
    case ThresholdField::PendingAfter: return &t.pendingAfterMs;
    case ThresholdField::MetricsMissingAfter: return &t.metricsMissingAfterMs;
    case ThresholdField::ClearHold: return &t.clearHoldMs;
    case ThresholdField::IdleBelow:
    case ThresholdField::MaxPerKind: return nullptr;
    }
    Q_UNREACHABLE();
}

} // namespace

qint64 parseDurationMs(const QString &text)
{
    // A year at most: a longer one (1e30s, inf) is a typo, and converting it would overflow.
    constexpr double kMaxMs = 366.0 * 24 * 3600 * 1000;
    auto toMs = [](bool ok, double value, double unitMs) -> qint64 {
        const double ms = value * unitMs;
        return ok && std::isfinite(ms) && ms >= 0 && ms <= kMaxMs ? qint64(ms) : -1;
    };
    const QString t = text.trimmed();
    for (const Unit unit : kUnits) {
        if (!t.endsWith(QLatin1String(unit.suffix)))
            continue;
        bool ok = false;
        const double v = t.chopped(qsizetype(qstrlen(unit.suffix))).toDouble(&ok);
        return toMs(ok, v, double(unit.ms));
    }
    bool ok = false;
    const double seconds = t.toDouble(&ok);
    return toMs(ok, seconds, 1000);
}

QString durationText(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("0s");
    // The largest unit that says it exactly, so the text reads back to the same value.
    for (int i = int(std::size(kUnits)) - 1; i > 0; --i)
        if (ms % kUnits[i].ms == 0)
            return QString::number(ms / kUnits[i].ms) + QLatin1String(kUnits[i].suffix);
    return QString::number(ms) + QStringLiteral("ms");
}

QString optionName(ThresholdField field)
{
    switch (field) {
    case ThresholdField::IdleBelow: return QStringLiteral("idle-below");
    case ThresholdField::IdleAfter: return QStringLiteral("idle-after");
    case ThresholdField::PendingAfter: return QStringLiteral("pending-after");
    case ThresholdField::MetricsMissingAfter: return QStringLiteral("metrics-missing-after");
    case ThresholdField::ClearHold: return QStringLiteral("clear-hold");
    case ThresholdField::MaxPerKind: return QStringLiteral("max-per-kind");
    }
    Q_UNREACHABLE();
}

QString setThreshold(AlertThresholds *thresholds, ThresholdField field, const QString &text)
{
    if (qint64 *member = durationMember(*thresholds, field)) {
        const qint64 ms = parseDurationMs(text);
        if (ms < 0)
            return QStringLiteral("wants a time like 0s, 90s, 5m or 1h, not \"%1\"").arg(text);
        *member = ms;
        return {};
    }
    bool ok = false;
    if (field == ThresholdField::IdleBelow) {
        QString t = text.trimmed();
        if (t.endsWith(u'%'))
            t.chop(1);
        const double v = t.toDouble(&ok);
        if (!ok || !(v > 0 && v <= 100)) // NaN fails too
            return QStringLiteral("wants a duty cycle in percent above 0 and at most 100, like 5, not \"%1\"").arg(text);
        thresholds->idleBelowPercent = v;
        return {};
    }
    const int v = text.trimmed().toInt(&ok);
    if (!ok || v < 1 || v > 100000)
        return QStringLiteral("wants a count from 1 to 100000, not \"%1\"").arg(text);
    thresholds->maxPerKind = v;
    return {};
}

QString thresholdText(const AlertThresholds &thresholds, ThresholdField field)
{
    AlertThresholds copy = thresholds;
    if (const qint64 *member = durationMember(copy, field))
        return durationText(*member);
    if (field == ThresholdField::IdleBelow)
        return QLocale::c().toString(thresholds.idleBelowPercent, 'g', 6); // "5", "0.5", never "5e+00"
    return QString::number(thresholds.maxPerKind);
}

} // namespace slicescope
