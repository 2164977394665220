// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope alerts SOURCE`: the active alerts (model/alerts.h) for cron and CI checks. A live
// source or a single capture is one snapshot (only the rules that need no history can fire); a
// recording (--capture F.slicescope.jsonl) is replayed capture by capture through the engine and
// the alerts at its end are reported. Exit 0 when none fires at or above --fail-on, 3 when any does.

#include "cli_p.h"

#include "alerts.h"
#include "capturefile.h"
#include "inspectjson.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QTextStream>

#include <algorithm>
#include <utility>

namespace slicescope::cli {

namespace {

// Reads a duration option into *ms ("0s" is now); an exit code on a bad value, else -1.
int readDuration(const QCommandLineParser &parser, const QString &name, qint64 *ms)
{
    if (!parser.isSet(name))
        return -1;
    const QString text = parser.value(name);
    const qint64 v = parseDurationMs(text);
    if (v < 0)
        return fail(BadUsage, QStringLiteral("--%1 wants a time like 0s, 90s, 5m or 1h, not \"%2\"").arg(name, text));
    *ms = v;
    return -1;
}

int readThresholds(const QCommandLineParser &parser, AlertThresholds &t)
{
    for (const auto &[name, field] : {std::pair{QStringLiteral("idle-after"), &t.idleAfterMs}, std::pair{QStringLiteral("pending-after"), &t.pendingAfterMs},
                                      std::pair{QStringLiteral("metrics-missing-after"), &t.metricsMissingAfterMs}, std::pair{QStringLiteral("clear-hold"), &t.clearHoldMs}})
        if (const int code = readDuration(parser, name, field); code >= 0)
            return code;
    if (parser.isSet(QStringLiteral("idle-below"))) {
        QString text = parser.value(QStringLiteral("idle-below")).trimmed();
        if (text.endsWith(u'%'))
            text.chop(1);
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !(v > 0 && v <= 100))
            return fail(BadUsage, QStringLiteral("--idle-below wants a duty cycle in percent above 0 and at most 100, like 5, not \"%1\"").arg(parser.value(QStringLiteral("idle-below"))));
        t.idleBelowPercent = v;
    }
    if (parser.isSet(QStringLiteral("max-per-kind"))) {
        bool ok = false;
        const int v = parser.value(QStringLiteral("max-per-kind")).toInt(&ok);
        if (!ok || v < 1 || v > 100000)
            return fail(BadUsage, QStringLiteral("--max-per-kind wants a count from 1 to 100000, not \"%1\"").arg(parser.value(QStringLiteral("max-per-kind"))));
        t.maxPerKind = v;
    }
    return -1;
}

QJsonObject thresholdsJson(const AlertThresholds &t)
{
    return QJsonObject{
        {QStringLiteral("idleBelowPercent"), t.idleBelowPercent},
        {QStringLiteral("idleAfterSeconds"), double(t.idleAfterMs) / 1000},
        {QStringLiteral("pendingAfterSeconds"), double(t.pendingAfterMs) / 1000},
        {QStringLiteral("metricsMissingAfterSeconds"), double(t.metricsMissingAfterMs) / 1000},
        {QStringLiteral("clearHoldSeconds"), double(t.clearHoldMs) / 1000},
        {QStringLiteral("maxPerKind"), t.maxPerKind},
    };
}

// Feeds the SOURCE's snapshots to the engine: every capture of a capture file in order, else the
// one snapshot. Returns the count in *observed, or an exit code.
int observeSource(const SourceSpec &spec, AlertEngine &engine, int *observed)
{
    if (spec.kind != SourceSpec::Kind::CaptureFile) {
        SnapshotPtr snap;
        if (const int code = loadSnapshot(spec, snap); code >= 0)
            return code;
        engine.observe(*snap);
        *observed = 1;
        return -1;
    }
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    for (int i = 0; i < read.captures.size(); ++i) {
        const SnapshotPtr snap = buildSnapshot(read.captures[i]);
        if (!snap->errors.isEmpty())
            return fail(Failed, read.captures.size() == 1 ? QStringLiteral("%1: %2").arg(spec.capturePath, snap->errors.join(QStringLiteral("; ")))
                                                          : QStringLiteral("%1: capture %2: %3").arg(spec.capturePath).arg(i).arg(snap->errors.join(QStringLiteral("; "))));
        engine.observe(*snap);
    }
    *observed = int(read.captures.size());
    return -1;
}

} // namespace

int alerts(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("fail-on"), QStringLiteral("Exit 3 when an alert of this severity or above is active: info (the default), warning or critical."),
                      QStringLiteral("SEVERITY"), QStringLiteral("info")});
    parser.addOption({QStringLiteral("idle-after"), QStringLiteral("Reserved chips idle this long alert (default 10m; 0s: now)."), QStringLiteral("TIME")});
    parser.addOption({QStringLiteral("idle-below"), QStringLiteral("A duty cycle under this percentage is idle (default 5)."), QStringLiteral("PERCENT")});
    parser.addOption({QStringLiteral("pending-after"), QStringLiteral("Placement groups pending this long alert; also the grace of a head reservation (default 5m)."),
                      QStringLiteral("TIME")});
    parser.addOption({QStringLiteral("metrics-missing-after"), QStringLiteral("A slice reporting no activity this long alerts (default 1m)."), QStringLiteral("TIME")});
    parser.addOption({QStringLiteral("clear-hold"), QStringLiteral("An alert clears after its condition was false this long (default 1m)."), QStringLiteral("TIME")});
    parser.addOption({QStringLiteral("max-per-kind"), QStringLiteral("Alerts listed per kind before a \"+N more\" entry (default 50)."), QStringLiteral("N")});
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("alerts"), spec); code >= 0)
        return code;
    AlertSeverity failOn = AlertSeverity::Info;
    if (!severityFromText(parser.value(QStringLiteral("fail-on")), &failOn))
        return fail(BadUsage, QStringLiteral("--fail-on wants info, warning or critical, not \"%1\"").arg(parser.value(QStringLiteral("fail-on"))));
    AlertThresholds thresholds;
    if (const int code = readThresholds(parser, thresholds); code >= 0)
        return code;

    // With --prometheus, the window asked is the idle window: one live answer can then say "idle
    // for at least that long" (0s asks nothing: now is now).
    spec.prometheusWindowSeconds = int(std::clamp<qint64>(thresholds.idleAfterMs / 1000, 0, 7 * 24 * 3600));
    AlertEngine engine(thresholds);
    int observed = 0;
    if (const int code = observeSource(spec, engine, &observed); code >= 0)
        return code;
    const QList<Alert> &active = engine.alerts();
    const bool fired = std::any_of(active.cbegin(), active.cend(), [failOn](const Alert &a) { return a.severity >= failOn; });
    int idleChips = 0;
    for (const QList<IdleChip> &chips : engine.idleChips())
        idleChips += int(chips.size());

    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject byKind;
        int total = 0;
        for (int k = 0; k < kAlertKinds; ++k) {
            const int n = engine.activeCount(AlertKind(k));
            byKind.insert(toText(AlertKind(k)), n);
            total += n;
        }
        const QDateTime at = engine.lastObservedAt();
        printJson(QJsonObject{
            {QStringLiteral("alerts"), alertsJson(active)},
            {QStringLiteral("active"), total},
            {QStringLiteral("byKind"), byKind},
            {QStringLiteral("idleChips"), idleChips},
            {QStringLiteral("failOn"), toText(failOn)},
            {QStringLiteral("fired"), fired},
            {QStringLiteral("snapshots"), observed},
            {QStringLiteral("evaluatedAt"), at.isValid() ? QJsonValue(at.toString(Qt::ISODate)) : QJsonValue()},
            {QStringLiteral("thresholds"), thresholdsJson(thresholds)},
        });
        return fired ? AlertsFired : Success;
    }
    QTextStream out(stdout);
    if (active.isEmpty())
        out << QStringLiteral("no alerts (%1 snapshot%2)\n").arg(observed).arg(observed == 1 ? QString() : QStringLiteral("s"));
    for (const Alert &a : active)
        out << QStringLiteral("%1  %2  since %3  %4\n")
                   .arg(toText(a.severity).toUpper(), -8)
                   .arg(toText(a.kind), -25)
                   .arg(a.since.isValid() ? a.since.toString(Qt::ISODate) : QStringLiteral("?"), a.text);
    return fired ? AlertsFired : Success;
}

} // namespace slicescope::cli
