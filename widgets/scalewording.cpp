// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalewording.h"

#include "scaledialog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <limits>

namespace slicescope {

namespace {

// One JSON Patch op per line: the shape docs/facts.md writes them in, and easy to check by eye.
QString prettyPatch(const QByteArray &patch)
{
    const QJsonArray ops = QJsonDocument::fromJson(patch).array();
    QStringList lines;
    for (const QJsonValue &op : ops)
        lines << QStringLiteral("  ") + QString::fromUtf8(QJsonDocument(op.toObject()).toJson(QJsonDocument::Compact));
    return QStringLiteral("[\n%1\n]").arg(lines.join(QStringLiteral(",\n")));
}

// planScale() words the displaced placement groups as a note; this is that note.
bool isDisplacedNote(const ScalePlan &plan, const QString &note)
{
    return !plan.displacedGroups.isEmpty() && note.contains(plan.displacedGroups.join(QStringLiteral(", ")));
}

QString pluralSlices(int n)
{
    return n == 1 ? ScaleDialog::tr("1 slice") : ScaleDialog::tr("%1 slices").arg(n);
}

} // namespace

QString scaleBound(int value)
{
    return value == std::numeric_limits<int>::max() ? QStringLiteral("unbounded") : QString::number(value);
}

QStringList scaleGroupChanges(const WorkerGroup &before, const WorkerGroup &now)
{
    QStringList changes;
    if (before.replicas != now.replicas)
        changes << QStringLiteral("replicas %1 -> %2").arg(before.replicas).arg(now.replicas);
    if (before.minReplicas != now.minReplicas)
        changes << QStringLiteral("minReplicas %1 -> %2").arg(before.minReplicas).arg(now.minReplicas);
    if (before.maxReplicas != now.maxReplicas)
        changes << QStringLiteral("maxReplicas %1 -> %2").arg(scaleBound(before.maxReplicas), scaleBound(now.maxReplicas));
    if (before.autoscaling != now.autoscaling)
        changes << QStringLiteral("in-tree autoscaling %1 -> %2").arg(before.autoscaling ? QStringLiteral("on") : QStringLiteral("off"), now.autoscaling ? QStringLiteral("on") : QStringLiteral("off"));
    if (before.workersToDelete != now.workersToDelete)
        changes << QStringLiteral("workersToDelete [%1] -> [%2]").arg(before.workersToDelete.join(QStringLiteral(", ")), now.workersToDelete.join(QStringLiteral(", ")));
    QStringList added, gone;
    for (const QString &name : now.slices)
        if (!before.slices.contains(name))
            added << name;
    for (const QString &name : before.slices)
        if (!now.slices.contains(name))
            gone << name;
    if (!added.isEmpty())
        changes << QStringLiteral("new slice%1 %2").arg(added.size() == 1 ? QString() : QStringLiteral("s"), added.join(QStringLiteral(", ")));
    if (!gone.isEmpty())
        changes << QStringLiteral("%1 gone").arg(gone.join(QStringLiteral(", ")));
    return changes;
}

QString scaleConfirmText(const ScalePlan &plan, ScaleRequest::Mode mode)
{
    switch (mode) {
    case ScaleRequest::Mode::Replicas:
        return ScaleDialog::tr("Scale to %1 slice%2").arg(plan.toReplicas).arg(plan.toReplicas == 1 ? QString() : QStringLiteral("s"));
    case ScaleRequest::Mode::Bounds:
        return ScaleDialog::tr("Set bounds to %1..%2").arg(plan.toMin).arg(scaleBound(plan.toMax));
    case ScaleRequest::Mode::RemoveSlice:
        return ScaleDialog::tr("Remove slice %1").arg(plan.slicesRemoved.value(0));
    }
    Q_UNREACHABLE();
}

QString scaleReviewText(const ScalePlan &plan)
{
    QStringList lines;
    lines << ScaleDialog::tr("What will change:");
    if (plan.toMin != plan.fromMin || plan.toMax != plan.fromMax)
        lines << ScaleDialog::tr("  minReplicas..maxReplicas %1..%2 -> %3..%4").arg(plan.fromMin).arg(scaleBound(plan.fromMax)).arg(plan.toMin).arg(scaleBound(plan.toMax));
    if (plan.toReplicas != plan.fromReplicas)
        lines << ScaleDialog::tr("  replicas %1 -> %2").arg(plan.fromReplicas).arg(plan.toReplicas);
    if (plan.slicesAdded > 0)
        lines << ScaleDialog::tr("  adds %1: KubeRay creates %2 pod(s), then they join Ray").arg(pluralSlices(plan.slicesAdded)).arg(plan.slicesAdded * plan.hostsPerSlice);
    if (!plan.slicesRemoved.isEmpty())
        lines << ScaleDialog::tr("  removes %1").arg(plan.slicesRemoved.join(QStringLiteral(", ")));
    if (!plan.podsToDelete.isEmpty())
        lines << ScaleDialog::tr("  pods named in workersToDelete: %1").arg(plan.podsToDelete.join(QStringLiteral(", ")));
    if (!plan.displacedGroups.isEmpty())
        lines << ScaleDialog::tr("  placement groups that lose their hosts: %1").arg(plan.displacedGroups.join(QStringLiteral(", ")));
    for (const QString &note : plan.notes)
        if (!isDisplacedNote(plan, note))
            lines << ScaleDialog::tr("  note: %1").arg(note);
    lines << QString();
    // Which cluster, always: in a fleet the same names repeat across contexts (issue 16).
    const QString where = plan.group.context.isEmpty() ? QStringLiteral("%1/%2").arg(plan.group.ns, plan.group.cluster)
                                                       : ScaleDialog::tr("%1/%2 in context %3").arg(plan.group.ns, plan.group.cluster, plan.group.context);
    lines << ScaleDialog::tr("JSON Patch to RayCluster %1 (the \"test\" ops refuse it if someone changed these values meanwhile):").arg(where);
    lines << prettyPatch(plan.jsonPatch());
    return lines.join(u'\n');
}

QString scalePlanHtml(const ScalePlan &plan, const QString &warningColor)
{
    QStringList lines;
    lines << ScaleDialog::tr("<b>%1</b>").arg(plan.summary.toHtmlEscaped());
    if (plan.slicesAdded > 0)
        lines << ScaleDialog::tr("&bull; adds %1 (dashed): new pods, then new TPU hosts joining Ray").arg(pluralSlices(plan.slicesAdded));
    if (!plan.slicesRemoved.isEmpty())
        lines << ScaleDialog::tr("&bull; removes %1 (crossed out)").arg(plan.slicesRemoved.join(QStringLiteral(", ")).toHtmlEscaped());
    for (const QString &note : plan.notes) {
        // The displaced groups are the note that costs someone work: in the warning colour.
        const bool displaced = isDisplacedNote(plan, note);
        lines << (displaced ? ScaleDialog::tr("&bull; <span style='color:%1'><b>%2</b></span>").arg(warningColor, note.toHtmlEscaped()) : ScaleDialog::tr("&bull; %1").arg(note.toHtmlEscaped()));
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace slicescope
