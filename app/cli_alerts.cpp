// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope alerts SOURCE`: the active alerts (model/alerts.h) for cron and CI checks. A live
// source or a single capture is one snapshot (only the rules that need no history can fire); a
// recording (--capture F.slicescope.jsonl) is replayed capture by capture through the engine and
// the alerts at its end are reported, or with --step N those at its capture N (as `inspect
// --capture F --step N` lists them). Exit 0 when none fires at or above --fail-on, 3 when any does.
// A live source that failed in part (issue 30: --prometheus down, refusing, redirecting, answering
// too much or garbage) is never "no alerts": exit 1 with the reason on stderr and in --json
// `sourceErrors`, unless an alert at or above --fail-on fired from what did arrive (exit 3, the
// reason still said).

#include "cli_p.h"

#include "alerts.h"
#include "capturefile.h"
#include "inspectjson.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QTextStream>

#include <algorithm>

namespace slicescope::cli {

namespace {

// Every threshold option given, read as the window's dialog reads its fields (thresholdtext.h).
int readThresholds(const QCommandLineParser &parser, AlertThresholds &t)
{
    for (const ThresholdField field : kThresholdFields) {
        const QString name = optionName(field);
        if (!parser.isSet(name))
            continue;
        if (const QString why = setThreshold(&t, field, parser.value(name)); !why.isEmpty())
            return fail(BadUsage, QStringLiteral("--%1 %2").arg(name, why));
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

// Feeds the SOURCE's snapshots to the engine: the captures of a capture file in order (with
// --step, those up to capture N), else the one snapshot. Returns the count in *observed, or an
// exit code. A live snapshot's failed sources go to *failed.
int observeSource(const SourceSpec &spec, const QString *stepText, AlertEngine &engine, int *observed, QList<ActivityTable::SourceError> *failed)
{
    int step = -1;
    if (stepText)
        if (const int code = readStepOption(*stepText, spec, &step); code >= 0)
            return code;
    if (spec.kind != SourceSpec::Kind::CaptureFile) {
        SnapshotPtr snap;
        if (const int code = loadSnapshot(spec, snap); code >= 0)
            return code;
        *failed = sourceErrors(spec, *snap);
        engine.observe(*snap);
        *observed = 1;
        return -1;
    }
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    int last = int(read.captures.size()) - 1;
    if (stepText) {
        if (const int code = resolveStep(*stepText, spec, int(read.captures.size()), &step); code >= 0)
            return code;
        last = step;
    }
    for (int i = 0; i <= last; ++i) {
        const SnapshotPtr snap = buildSnapshot(read.captures[i]);
        if (!snap->errors.isEmpty())
            return fail(Failed, read.captures.size() == 1 ? QStringLiteral("%1: %2").arg(spec.capturePath, snap->errors.join(QStringLiteral("; ")))
                                                          : QStringLiteral("%1: capture %2: %3").arg(spec.capturePath).arg(i).arg(snap->errors.join(QStringLiteral("; "))));
        engine.observe(*snap);
    }
    *observed = last + 1;
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
    parser.addOption({QStringLiteral("step"), QStringLiteral("With --capture REC: the alerts as they stood at capture N (0 the first, -1 the last), the captures before it replayed."),
                      QStringLiteral("N")});
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
    QList<ActivityTable::SourceError> failed;
    const bool stepped = parser.isSet(QStringLiteral("step"));
    const QString stepText = parser.value(QStringLiteral("step"));
    if (const int code = observeSource(spec, stepped ? &stepText : nullptr, engine, &observed, &failed); code >= 0)
        return code;
    reportSourceErrors(failed);
    const QList<Alert> &active = engine.alerts();
    const bool fired = std::any_of(active.cbegin(), active.cend(), [failOn](const Alert &a) { return a.severity >= failOn; });
    int idleChips = 0;
    for (const QList<IdleChip> &chips : engine.idleChips())
        idleChips += int(chips.size());
    // What fired from the data that did arrive wins (3); else a failed source fails the check (1).
    const int exitCode = fired ? AlertsFired : failed.isEmpty() ? Success
                                                                : Failed;

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
            {QStringLiteral("sourceErrors"), sourceErrorsJson(failed)},
        });
        return exitCode;
    }
    QTextStream out(stdout);
    if (active.isEmpty())
        out << QStringLiteral("no alerts%1 (%2 snapshot%3)%4\n")
                   .arg(failed.isEmpty() ? QString() : QStringLiteral(" from the data that arrived"))
                   .arg(observed)
                   .arg(observed == 1 ? QString() : QStringLiteral("s"))
                   .arg(failed.isEmpty() ? QString() : QStringLiteral("; %1 source(s) failed (said on stderr)").arg(failed.size()));
    for (const Alert &a : active)
        out << forTerminal(QStringLiteral("%1  %2  since %3  %4")
                               .arg(toText(a.severity).toUpper(), -8)
                               .arg(toText(a.kind), -25)
                               .arg(a.since.isValid() ? a.since.toString(Qt::ISODate) : QStringLiteral("?"), a.text))
            << '\n';
    return exitCode;
}

} // namespace slicescope::cli
