// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope inspect`: the snapshot a SOURCE gives, as a table or JSON (inspectJson()), or with
// --step one capture of a recording as the window's history rebuilds it.

#include "cli_p.h"

#include "capturefile.h"
#include "history.h"
#include "inspectjson.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace slicescope::cli {

namespace {

// `inspect --capture REC --step N`: capture N of a recording (0 the first, -1 the last), as the
// window's history rebuilds it after reading the whole recording, so the answer is the one an
// operator scrubbing to that step sees.
int loadRecordingStep(const SourceSpec &spec, const QString &stepText, SnapshotPtr &snapshot)
{
    bool ok = false;
    int step = stepText.toInt(&ok);
    if (!ok)
        return fail(BadUsage, QStringLiteral("--step wants a capture number (0 the first, -1 the last), not \"%1\"").arg(stepText));
    if (spec.kind != SourceSpec::Kind::CaptureFile)
        return fail(BadUsage, QStringLiteral("--step goes with --capture FILE (a recording)"));
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    const int count = int(read.captures.size());
    if (step < -count || step >= count)
        return fail(BadUsage, QStringLiteral("--step %1: %2 holds %3 capture(s) (steps 0 to %4, or -1 to -%3)")
                                  .arg(stepText, spec.capturePath)
                                  .arg(count)
                                  .arg(count - 1));
    if (step < 0)
        step += count;
    SnapshotHistory history(HistoryPolicy{0, 0}); // the whole recording, however long
    for (int i = 0; i < count; ++i) {
        const SnapshotPtr built = buildSnapshot(read.captures[i]);
        if (!built->errors.isEmpty())
            return fail(Failed, QStringLiteral("%1: capture %2: %3").arg(spec.capturePath).arg(i).arg(built->errors.join(QStringLiteral("; "))));
        history.add(built);
    }
    snapshot = history.snapshot(step);
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
    if (parser.isSet(QStringLiteral("step"))) {
        if (const int code = loadRecordingStep(spec, parser.value(QStringLiteral("step")), snap); code >= 0)
            return code;
    } else if (const int code = loadSnapshot(spec, snap); code >= 0) {
        return code;
    }
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(inspectJson(*snap));
        return Success;
    }
    QTextStream out(stdout);
    out << QStringLiteral("%1 slices, %2 placement groups, %3 worker groups\n")
               .arg(snap->slices.size())
               .arg(snap->placementGroups.size())
               .arg(snap->workerGroups.size());
    for (const Slice &s : snap->slices)
        out << QStringLiteral("  %1  %2 %3  %4 hosts  %5  %6/%7 chips reserved%8\n")
                   .arg(s.name, -24)
                   .arg(s.generation ? s.generation->name : QStringLiteral("?"))
                   .arg(s.topology.toString(), -7)
                   .arg(s.hostCount(), 2)
                   .arg(toText(s.status()), -12)
                   .arg(s.reservedChips)
                   .arg(s.chips())
                   .arg(s.problems.isEmpty() ? QString() : QStringLiteral("  (") + s.problems.join(QStringLiteral(", ")) + u')');
    for (const QString &w : snap->warnings)
        out << "warning: " << w << '\n';
    return Success;
}

} // namespace slicescope::cli
