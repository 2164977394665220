// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepanels.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace slicescope::slicepaint {

using tpu::ChipCoord;

namespace {

QString legendHeading(const SliceScene &scene)
{
    switch (scene.mode) {
    case ColorMode::WorkerId: return Tr::tr("Colour: worker id");
    case ColorMode::Bundle: return Tr::tr("Colour: placement group");
    case ColorMode::State: return Tr::tr("Colour: host state");
    case ColorMode::Activity:
        return scene.metric == ActivityMetric::DutyCycle ? Tr::tr("Colour: duty cycle") : Tr::tr("Colour: HBM used of total");
    }
    Q_UNREACHABLE();
}

// "5 s ago", "3 min ago", "2 h ago".
QString ageText(qint64 seconds)
{
    seconds = std::max<qint64>(0, seconds);
    if (seconds < 120)
        return Tr::tr("%1 s ago").arg(seconds);
    if (seconds < 2 * 3600)
        return Tr::tr("%1 min ago").arg(seconds / 60);
    return Tr::tr("%1 h ago").arg(seconds / 3600);
}

// Activity mode: the scale's rows (the gradient, its ticks) above the entries.
int scaleLines(const SliceScene &scene)
{
    return scene.mode == ColorMode::Activity ? 2 : 0;
}

// The activity scale as a gradient bar in `bar`, with ticks and labels at 0, 50 and 100 % under it.
void activityScale(QPainter &painter, const SliceScene &scene, const QRectF &bar, double labelHeight)
{
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i < kActivitySteps; ++i)
        gradient.setColorAt(double(i) / (kActivitySteps - 1), activityStepColor(i));
    painter.setPen(QPen(scene.theme.border, 1));
    painter.setBrush(gradient);
    painter.drawRect(bar);
    const QFontMetricsF fm(painter.font());
    for (int tick : {0, 50, 100}) {
        const double x = bar.left() + bar.width() * tick / 100.0;
        painter.setPen(QPen(scene.theme.text, 1));
        painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        const QString label = QStringLiteral("%1 %").arg(tick);
        const double w = fm.horizontalAdvance(label);
        const double left = tick == 0 ? x : tick == 100 ? x - w
                                                        : x - w / 2;
        painter.drawText(QRectF(left, bar.bottom() + 3, w + 1, labelHeight), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
}

QList<LegendEntry> legendEntriesOfData(const SliceScene &scene)
{
    if (scene.legendVersion == scene.dataVersion)
        return scene.legendCache;
    QList<LegendEntry> entries = legendFor(*scene.snapshot, *scene.slice, scene.mode, scene.theme, scene.metric);
    const auto idle = std::count_if(scene.chips.chips.cbegin(), scene.chips.chips.cend(), [](const SliceChips::Chip &c) { return c.idle; });
    if (idle)
        entries.append({scene.theme.idleOutline, (idle == 1 ? Tr::tr("idle while reserved · 1 chip") : Tr::tr("idle while reserved · %1 chips").arg(idle)), false, false, true});
    // What the view adds on top of chip colours: tray colours and links.
    if (scene.mode != ColorMode::State) {
        bool dead = false, pending = false;
        for (const Host &h : scene.slice->hosts) {
            dead = dead || h.state == HostState::Dead;
            pending = pending || h.state == HostState::Pending;
        }
        if (dead)
            entries.append({scene.theme.dead, Tr::tr("red base: DEAD host")});
        if (pending)
            entries.append({scene.theme.pending, Tr::tr("amber base: PENDING host")});
    }
    scene.legendVersion = scene.dataVersion;
    scene.legendCache = entries;
    return entries;
}

} // namespace

// The cached entries of the slice's data, then what the view draws over them now: the composer's
// plan (its hosts change as the composer is edited, without a new snapshot).
QList<LegendEntry> legendEntries(const SliceScene &scene)
{
    QList<LegendEntry> entries = legendEntriesOfData(scene);
    if (const qsizetype planned = scene.highlighted.size())
        entries.append({scene.theme.ready, planned == 1 ? Tr::tr("in the composer's plan · 1 host") : Tr::tr("in the composer's plan · %1 hosts").arg(planned), true});
    return entries;
}

PanelLayout panelLayout(const SliceScene &scene, QSize size, const QFontMetrics &fm)
{
    const double top = 14 + fm.height() * 2.6;   // title and its detail line
    const double bottom = 14 + fm.height() * 1.4; // the "logical layout" line
    PanelLayout out;
    out.area = QRectF(16, top, size.width() - 32, size.height() - top - bottom);
    if (!scene.legendVisible || !scene.slice || !scene.snapshot || !scene.slice->layout.isValid())
        return out;
    const QList<LegendEntry> entries = legendEntries(scene);
    QFont bold = scene.font;
    bold.setBold(true);
    int textWidth = QFontMetrics(bold).horizontalAdvance(legendHeading(scene)) - 20;
    for (const LegendEntry &e : entries)
        textWidth = std::max(textWidth, fm.horizontalAdvance(e.label));
    textWidth = std::max(textWidth, fm.horizontalAdvance(Tr::tr("wraparound: none here")));
    const int lines = int(entries.size()) + 1 + scaleLines(scene) + (scene.linksVisible ? 2 : 0);
    const double naturalHeight = lines * (fm.height() + 5) + 16;
    // Two places for it. Beside the slice, top right, at most a third of the width; or, in a
    // narrow view (the page beside the composer, a squeezed splitter), under the title, as wide
    // as its text, with the slice under it. Each is judged by how big a slice of a typical shape
    // (1.4 times as wide as tall, whatever the camera: the legend must not jump while the slice
    // turns) could be drawn in the room it leaves; beside wins unless under is clearly better.
    auto room = [](const QRectF &area) {
        return area.width() > 0 && area.height() > 0 ? std::min(area.width() / 1.4, area.height()) : 0.0;
    };
    const double sideWidth = std::min(double(textWidth + 44), std::max(120.0, size.width() * 0.34));
    const QRectF side(size.width() - sideWidth - 12, 12, sideWidth, std::min(naturalHeight, size.height() - 60.0));
    QRectF beside = out.area;
    beside.setRight(side.left() - 12);
    const QRectF stacked(16, top - 2, std::min(double(textWidth + 44), size.width() - 32.0), naturalHeight);
    QRectF below = out.area;
    below.setTop(stacked.bottom() + 12);
    const double besideRoom = room(beside), belowRoom = room(below);
    if (belowRoom > besideRoom * 1.25 && belowRoom >= room(out.area) * 0.4) {
        out.legend = stacked;
        out.area = below;
        out.legendUnderTitle = true;
    } else if (besideRoom >= room(out.area) * 0.4) {
        out.legend = side;
        out.area = beside;
    } else {
        out.legend = side; // neither leaves room (short and narrow): over the slice's area
    }
    return out;
}

QRectF sceneArea(const SliceScene &scene, QSize size, const QFontMetrics &fm)
{
    return panelLayout(scene, size, fm).area;
}

QRectF legendRect(const SliceScene &scene, QSize size, const QFontMetrics &fm)
{
    return panelLayout(scene, size, fm).legend;
}

void legend(QPainter &painter, const SliceScene &scene, QSize size)
{
    const QFontMetrics fm(scene.font);
    const QRectF box = legendRect(scene, size, fm);
    if (box.isEmpty() || box.height() < fm.height() * 2)
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setFont(scene.font);
    QColor panel = scene.theme.panel;
    panel.setAlpha(235);
    painter.setBrush(panel);
    painter.setPen(QPen(scene.theme.border, 1));
    painter.drawRoundedRect(box, 6, 6);

    const double line = fm.height() + 5;
    const double textLeft = box.left() + 30;
    const double textWidth = box.right() - 8 - textLeft;
    double y = box.top() + 8;
    QFont bold = scene.font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(scene.theme.text);
    const QString heading = legendHeading(scene);
    painter.drawText(QRectF(box.left() + 10, y, box.width() - 20, line), Qt::AlignVCenter | Qt::AlignLeft,
                     QFontMetrics(bold).elidedText(heading, Qt::ElideRight, int(box.width() - 20)));
    painter.setFont(scene.font);
    y += line;
    if (scaleLines(scene) && y + 2 * line <= box.bottom() - 8) {
        activityScale(painter, scene, QRectF(box.left() + 10, y + line * 0.3, box.width() - 20, line * 0.75), line);
        y += 2 * line;
    }

    const QList<LegendEntry> entries = legendEntries(scene);
    const int extra = scene.linksVisible ? 2 : 0;
    const int room = int((box.bottom() - 8 - y) / line);
    const int shown = int(entries.size()) + extra <= room ? int(entries.size()) : std::max(0, room - extra - 1);
    for (int i = 0; i < shown; ++i) {
        const LegendEntry &e = entries[i];
        const QRectF swatch(box.left() + 10, y + (line - 13) / 2, 13, 13);
        if (!e.color.isValid()) {
            painter.setPen(scene.theme.mutedText);
            painter.drawText(QRectF(box.left() + 10, y, box.right() - 18 - box.left(), line), Qt::AlignVCenter | Qt::AlignLeft,
                             fm.elidedText(e.label, Qt::ElideRight, int(box.width() - 18)));
            y += line;
            continue;
        }
        if (e.hatched) {
            painter.setPen(QPen(e.color.darker(150), 1));
            painter.setBrush(e.color);
            painter.drawRoundedRect(swatch, 2, 2);
            painter.setBrush(QBrush(scene.theme.unknownHatch, Qt::BDiagPattern));
            painter.setPen(Qt::NoPen);
        } else if (e.outlined) {
            painter.setBrush(Qt::NoBrush);
            painter.setPen(QPen(scene.theme.idleHalo, 4));
            painter.drawRoundedRect(swatch, 2, 2);
            painter.setPen(QPen(e.color, 2));
        } else if (e.ghost) {
            QPen pen(e.color, 1.5, Qt::DashLine);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
        } else {
            painter.setPen(QPen(e.color.darker(150), 1));
            painter.setBrush(e.color);
        }
        painter.drawRoundedRect(swatch, 2, 2);
        painter.setPen(scene.theme.text);
        painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft,
                         fm.elidedText(e.label, Qt::ElideRight, int(textWidth)));
        y += line;
    }
    if (shown < entries.size()) {
        painter.setPen(scene.theme.mutedText);
        painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft,
                         Tr::tr("… and %1 more").arg(entries.size() - shown));
        y += line;
    }
    if (extra && y + 2 * line <= box.bottom()) {
        const bool wraps = scene.slice->layout.axisWraps(0) || scene.slice->layout.axisWraps(1) || scene.slice->layout.axisWraps(2);
        auto linkRow = [&](const QPen &pen, const QString &label) {
            painter.setPen(pen);
            painter.drawLine(QPointF(box.left() + 8, y + line / 2), QPointF(box.left() + 25, y + line / 2));
            painter.setPen(scene.theme.text);
            painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(label, Qt::ElideRight, int(textWidth)));
            y += line;
        };
        linkRow(QPen(scene.theme.iciLink, 2, Qt::SolidLine, Qt::FlatCap), Tr::tr("ICI link"));
        QPen wrapPen(scene.theme.wrapLink, 2, Qt::SolidLine, Qt::FlatCap);
        wrapPen.setDashPattern({2.5, 1.5});
        linkRow(wrapPen, wraps ? Tr::tr("wraparound link") : Tr::tr("wraparound: none here"));
    }
}

void title(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size)
{
    QFont bold = scene.font;
    bold.setBold(true);
    bold.setPixelSize(std::max(12, QFontInfo(scene.font).pixelSize() + 3));
    const QFontMetrics bfm(bold), fm(scene.font);
    const PanelLayout layout = panelLayout(scene, size, fm);
    const double right = (layout.legend.isEmpty() || layout.legendUnderTitle ? size.width() : layout.legend.left()) - 12;
    const double width = std::max(40.0, right - 16);
    painter.setFont(bold);
    painter.setPen(scene.theme.text);
    painter.drawText(QRectF(16, 12, width, bfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     bfm.elidedText(scene.slice->name, Qt::ElideMiddle, int(width)));

    QStringList parts;
    if (scene.slice->generation)
        parts << scene.slice->generation->displayName;
    if (scene.slice->topology.chips() > 0)
        parts << Tr::tr("%1 (%2 chips)").arg(scene.slice->topology.toString()).arg(scene.slice->topology.chips());
    const int hosts = int(scene.slice->hosts.size());
    parts << (hosts == 1 ? Tr::tr("1 host") : Tr::tr("%1 hosts").arg(hosts))
                 + (scene.slice->chipsPerHost > 0 ? Tr::tr(" × %1 chips").arg(scene.slice->chipsPerHost) : QString());
    QString status = toText(scene.slice->status()).toUpper();
    if (!scene.slice->problems.isEmpty() && !scene.slice->intact)
        status += QStringLiteral(": ") + scene.slice->problems.first();
    parts << status;
    if (scene.slice->layout.isValid() && !p.isFullLayerRange())
        parts << (p.layerFirst() == p.layerLast()
                      ? Tr::tr("showing layer z=%1 of 0–%2").arg(p.layerFirst()).arg(p.dims().z - 1)
                      : Tr::tr("showing layers z=%1–%2 of 0–%3").arg(p.layerFirst()).arg(p.layerLast()).arg(p.dims().z - 1));
    painter.setFont(scene.font);
    painter.setPen(scene.theme.mutedText);
    painter.drawText(QRectF(16, 14 + bfm.height(), width, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(parts.join(QStringLiteral(" · ")), Qt::ElideRight, int(width)));
}

void layoutLabel(QPainter &painter, const SliceScene &scene, QSize size)
{
    const QFontMetrics fm(scene.font);
    const double baseline = size.height() - 12 - fm.height();
    painter.setFont(scene.font);
    const QString label = Tr::tr("Logical layout: chips placed by worker id (no API reports physical positions)");
    const QString hints = Tr::tr("drag: turn · wheel: zoom · right-drag: pan · E: explode · PgUp/PgDn: layers · L: links · Home: reset");
    const int labelWidth = fm.horizontalAdvance(label);
    painter.setPen(scene.theme.mutedText);
    painter.drawText(QRectF(16, baseline, size.width() - 32, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(label, Qt::ElideRight, size.width() - 32));
    if (labelWidth + fm.horizontalAdvance(hints) + 64 < size.width())
        painter.drawText(QRectF(16, baseline, size.width() - 32, fm.height()), Qt::AlignRight | Qt::AlignVCenter, hints);
}

void panel(QPainter &painter, const SliceScene &scene, PanelImage &cache, const QByteArray &key, const QRect &rect,
           const std::function<void(QPainter &)> &draw)
{
    if (rect.isEmpty())
        return;
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    if (!raster) { // vector output keeps its text as text
        draw(painter);
        return;
    }
    const QByteArray fullKey = key + ' ' + QByteArray::number(rect.x()) + ',' + QByteArray::number(rect.y()) + ' '
                               + QByteArray::number(rect.width()) + 'x' + QByteArray::number(rect.height()) + ' '
                               + scene.font.key().toUtf8() + ' ' + QByteArray::number(scene.dataVersion) + ' '
                               + QByteArray::number(deviceRatio(painter));
    if (fullKey != cache.key) {
        cache.key = fullKey;
        cache.at = rect.topLeft();
        cache.image = transparentImage(rect.size(), deviceRatio(painter));
        QPainter p(&cache.image);
        p.translate(-rect.topLeft());
        draw(p);
    }
    painter.drawImage(cache.at, cache.image);
}

QStringList activityTooltipLines(const SliceScene &scene, int hostIndex, int chipIndex)
{
    QStringList lines;
    const ActivityTable *table = scene.snapshot->activity.get();
    if (!table)
        return lines; // nothing was asked: say nothing rather than "unknown" on every chip
    const ChipActivity *a = table->chip(scene.sliceIndex, hostIndex, chipIndex);
    if (!a || !a->reports()) {
        const QString reason = table->unknownReason(scene.sliceIndex, hostIndex);
        lines << Tr::tr("activity unknown: %1").arg(reason.isEmpty() ? Tr::tr("no source reports this chip") : reason);
    } else {
        auto percent = [](float v) {
            return std::isnan(v) ? Tr::tr("unknown") : QStringLiteral("%1 %").arg(double(v), 0, 'f', v < 10 ? 1 : 0);
        };
        lines << Tr::tr("duty cycle %1 · TensorCore %2 · HBM bandwidth %3").arg(percent(a->dutyCycle), percent(a->tensorcoreUtilization), percent(a->hbmBandwidthUtilization));
        constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
        if (!std::isnan(a->hbmUsedBytes) && !std::isnan(a->hbmTotalBytes))
            lines << Tr::tr("HBM %1 of %2 GiB used").arg(a->hbmUsedBytes / kGiB, 0, 'f', 1).arg(a->hbmTotalBytes / kGiB, 0, 'f', 1);
        else if (!std::isnan(a->hbmUsedBytes))
            lines << Tr::tr("HBM %1 GiB used, total unknown").arg(a->hbmUsedBytes / kGiB, 0, 'f', 1);
        else
            lines << Tr::tr("HBM use unknown");
        const QString source = a->source == ActivitySource::RayNodeSummary ? Tr::tr("Ray's node summary")
                               : a->source == ActivitySource::RayMetrics   ? Tr::tr("Prometheus (ray_tpu_*)")
                                                                           : Tr::tr("Prometheus (TPU device plugin)");
        const qint64 age = a->ageSeconds(scene.snapshot->capturedAt);
        lines << (age < 0 ? Tr::tr("from %1, sample time unknown").arg(source) : Tr::tr("from %1, sampled %2").arg(source, ageText(age)));
    }
    for (const IdleChip &idle : scene.idle)
        if (idle.host == hostIndex && idle.chip == chipIndex) {
            if (!idle.since.isValid() || !scene.snapshot->capturedAt.isValid())
                lines << Tr::tr("idle while reserved");
            else
                lines << Tr::tr("idle while reserved since %1 (%2)").arg(idle.since.toUTC().toString(QStringLiteral("HH:mm 'UTC'")), ageText(idle.since.secsTo(scene.snapshot->capturedAt)));
        }
    return lines;
}

QString chipTooltip(const SliceScene &scene, ChipCoord c)
{
    const SliceChips::Chip &info = scene.chips.chips[size_t(scene.chips.indexOf(c))];
    QStringList lines;
    lines << Tr::tr("%1 · chip (%2, %3, %4)").arg(scene.slice->name).arg(c.x).arg(c.y).arg(c.z);
    if (info.host < 0) {
        lines << Tr::tr("no host owns this position");
        return lines.join(u'\n');
    }
    const Host &host = scene.slice->hosts[info.host];
    lines << Tr::tr("worker %1 · chip %2 of %3 · %4").arg(host.workerId).arg(info.chipIndex).arg(scene.slice->layout.chipsPerHost()).arg(toText(host.state));
    if (host.rayNode >= 0) {
        const RayNode &n = scene.snapshot->rayNodes[host.rayNode];
        lines << Tr::tr("Ray node %1%2").arg(n.id, n.ip.isEmpty() ? QString() : QStringLiteral(" · ") + n.ip);
        if (!n.alive && !n.stateMessage.isEmpty())
            lines << n.stateMessage;
    } else {
        lines << Tr::tr("Ray node: none reports worker %1").arg(host.workerId);
    }
    if (host.pod >= 0) {
        const Pod &pod = scene.snapshot->pods[host.pod];
        lines << Tr::tr("pod %1 (%2)").arg(pod.qualifiedName(), pod.phase.isEmpty() ? Tr::tr("phase unknown") : pod.phase);
    } else {
        lines << Tr::tr("pod: none known");
    }
    if (host.kubeNode >= 0) {
        const KubeNode &k = scene.snapshot->kubeNodes[host.kubeNode];
        lines << Tr::tr("Kubernetes node %1 · node pool %2").arg(k.name, k.nodePool.isEmpty() ? Tr::tr("unknown") : k.nodePool);
    } else if (host.pod >= 0 && !scene.snapshot->pods[host.pod].nodeName.isEmpty()) {
        lines << Tr::tr("Kubernetes node %1 · node pool unknown").arg(scene.snapshot->pods[host.pod].nodeName);
    } else {
        lines << Tr::tr("Kubernetes node: none known");
    }
    const ChipUse use = info.chipIndex < host.chips.size() ? host.chips[info.chipIndex] : ChipUse{};
    if (use.placementGroup >= 0) {
        const PlacementGroup &g = scene.snapshot->placementGroups[use.placementGroup];
        lines << Tr::tr("bundle %1 of placement group %2 (%3)").arg(use.bundleIndex).arg(scene.snapshot->groupLabel(g), g.state);
    } else {
        lines << Tr::tr("free: no placement group holds this chip");
    }
    if (host.workerId == 0 && scene.slice->headHeldBy >= 0) {
        const PlacementGroup &g = scene.snapshot->placementGroups[scene.slice->headHeldBy];
        lines << Tr::tr("slice head resource held by %1 (%2)").arg(scene.snapshot->groupLabel(g), g.state);
    }
    lines << activityTooltipLines(scene, info.host, info.chipIndex);
    return lines.join(u'\n');
}

} // namespace slicescope::slicepaint
