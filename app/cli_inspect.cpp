// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope inspect`: the snapshot a SOURCE gives, as a table or JSON (inspectJson()), or with
// --step one capture of a recording as the window's history rebuilds it. A recording's `alerts`
// are those of an AlertEngine fed its captures in order up to the one shown, as the window's
// engine saw them (and as `slicescope alerts --capture REC [--step N]` reports them). A live
// source that failed in part (issue 30: --prometheus down, ...) prints what did arrive and exits 1,
// the reason on stderr and in --json `sourceErrors`. Text output passes through forTerminal().

#include "cli_p.h"

#include "capturefile.h"
#include "history.h"
#include "inspectjson.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace slicescope::cli {

int readStepOption(const QString &text, const SourceSpec &spec, int *step)
{
    bool ok = false;
    *step = text.toInt(&ok);
    if (!ok)
        return fail(BadUsage, QStringLiteral("--step wants a capture number (0 the first, -1 the last), not \"%1\"").arg(text));
    if (spec.kind != SourceSpec::Kind::CaptureFile)
        return fail(BadUsage, QStringLiteral("--step goes with --capture FILE (a recording)"));
    return -1;
}

int resolveStep(const QString &text, const SourceSpec &spec, int count, int *step)
{
    if (*step < -count || *step >= count)
        return fail(BadUsage, QStringLiteral("--step %1: %2 holds %3 capture(s) (steps 0 to %4, or -1 to -%3)")
                                  .arg(text, spec.capturePath)
                                  .arg(count)
                                  .arg(count - 1));
    if (*step < 0)
        *step += count;
    return -1;
}

namespace {

// `inspect --capture REC --step N`: capture N of a recording (0 the first, -1 the last), as the
// window's history rebuilds it after reading the whole recording, so the answer is the one an
// operator scrubbing to that step sees; its alerts are the engine's after captures 0..N.
int loadRecordingStep(const SourceSpec &spec, const QString &stepText, SnapshotPtr &snapshot, QList<Alert> &alerts)
{
    int step = 0;
    if (const int code = readStepOption(stepText, spec, &step); code >= 0)
        return code;
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    const int count = int(read.captures.size());
    if (const int code = resolveStep(stepText, spec, count, &step); code >= 0)
        return code;
    SnapshotHistory history(HistoryPolicy{0, 0}); // the whole recording, however long
    AlertEngine engine;
    for (int i = 0; i < count; ++i) {
        const SnapshotPtr built = buildSnapshot(read.captures[i]);
        if (!built->errors.isEmpty())
            return fail(Failed, QStringLiteral("%1: capture %2: %3").arg(spec.capturePath).arg(i).arg(built->errors.join(QStringLiteral("; "))));
        history.add(built);
        if (i <= step)
            engine.observe(*built);
    }
    snapshot = history.snapshot(step);
    alerts = engine.alerts();
    return -1;
}

// `inspect --capture F` without --step: the file's last capture (as loadSnapshot() reads it),
// with the alerts of every capture before it replayed. Captures that cannot be read are left out
// of the replay, as the window leaves them out of its history, so only the last must be good.
int loadRecordingEnd(const SourceSpec &spec, SnapshotPtr &snapshot, QList<Alert> &alerts)
{
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    if (read.captures.isEmpty()) // the reader refuses an empty file; never index one
        return fail(Failed, spec.capturePath + QStringLiteral(": holds no capture"));
    AlertEngine engine;
    for (const Capture &capture : read.captures) {
        snapshot = buildSnapshot(capture);
        if (snapshot->errors.isEmpty())
            engine.observe(*snapshot);
    }
    if (!snapshot->errors.isEmpty())
        return fail(Failed, spec.capturePath + QStringLiteral(": ") + snapshot->errors.join(QStringLiteral("; ")));
    alerts = engine.alerts();
    return -1;
}

} // namespace

int inspect(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("step"), QStringLiteral("With --capture REC: the recording's capture N (0 the first, -1 the last), as the window's history rebuilds it."),
                      QStringLiteral("N")});
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("inspect"), spec); code >= 0)
        return code;
    SnapshotPtr snap;
    QList<Alert> alerts;
    if (parser.isSet(QStringLiteral("step"))) {
        if (const int code = loadRecordingStep(spec, parser.value(QStringLiteral("step")), snap, alerts); code >= 0)
            return code;
    } else if (spec.kind == SourceSpec::Kind::CaptureFile) {
        if (const int code = loadRecordingEnd(spec, snap, alerts); code >= 0)
            return code;
    } else if (const int code = loadSnapshot(spec, snap); code >= 0) {
        return code;
    } else {
        AlertEngine engine; // one snapshot: only the rules that need no history can fire
        engine.observe(*snap);
        alerts = engine.alerts();
    }
    const QList<ActivityTable::SourceError> failed = sourceErrors(spec, *snap);
    reportSourceErrors(failed);
    const int exitCode = failed.isEmpty() ? Success : Failed;
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject doc = inspectJson(*snap, alerts);
        // Only when one failed: a whole answer stays byte for byte what inspectJson() gives (the
        // live and file tiers compare the two).
        if (!failed.isEmpty())
            doc.insert(QStringLiteral("sourceErrors"), sourceErrorsJson(failed));
        printJson(doc);
        return exitCode;
    }
    QTextStream out(stdout);
    out << QStringLiteral("%1 slices, %2 placement groups, %3 worker groups\n")
               .arg(snap->slices.size())
               .arg(snap->placementGroups.size())
               .arg(snap->workerGroups.size());
    for (const Slice &s : snap->slices)
        out << forTerminal(QStringLiteral("  %1  %2 %3  %4 hosts  %5  %6/%7 chips reserved%8")
                               .arg(s.name, -24)
                               .arg(s.generation ? s.generation->name : QStringLiteral("?"))
                               .arg(s.topology.toString(), -7)
                               .arg(s.hostCount(), 2)
                               .arg(toText(s.status()), -12)
                               .arg(s.reservedChips)
                               .arg(s.chips())
                               .arg(s.problems.isEmpty() ? QString() : QStringLiteral("  (") + s.problems.join(QStringLiteral(", ")) + u')'))
            << '\n';
    for (const QString &w : snap->warnings)
        out << forTerminal(QStringLiteral("warning: ") + w) << '\n';
    return exitCode;
}

} // namespace slicescope::cli
