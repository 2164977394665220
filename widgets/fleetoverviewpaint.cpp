// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet overview's paint steps (the summary band, group headers, tiles and their parts) and
// its tooltips, over the layout fleetoverview.cpp computes.
#include "fleetoverview_p.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace slicescope {

namespace {

// Black or white, whichever reads better on `background` (badges take the theme's status colours).
QColor textOn(const QColor &background)
{
    const double luminance = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.55 ? QColor(0x1d, 0x23, 0x2b) : QColor(Qt::white);
}

// How bad a host state is, for the host strip when several hosts share one pixel: the worst shows.
int severity(HostState state)
{
    switch (state) {
    case HostState::Alive: return 0;
    case HostState::Pending: return 1;
    case HostState::Missing: return 2;
    case HostState::Dead: return 3;
    }
    Q_UNREACHABLE();
}

const QString kDot = QStringLiteral(" \u00b7 ");

// A recent mean duty cycle (oldest first, NaN unknown) drawn in `box`: x by time across the
// box, 0..100 % bottom to top, one polyline per run of known values.
QList<QPolygonF> sparklineRuns(const QList<QPointF> &points, const QRectF &box)
{
    QList<QPolygonF> runs;
    if (points.isEmpty())
        return runs;
    const double x0 = points.first().x(), x1 = points.last().x();
    const qsizetype n = points.size();
    QPolygonF run;
    for (qsizetype i = 0; i < n; ++i) {
        const QPointF &pt = points[i];
        if (std::isnan(pt.y())) {
            if (!run.isEmpty())
                runs << run;
            run.clear();
            continue;
        }
        // Times that do not advance (a recording's repeated stamp) spread by position instead.
        double fx = n > 1 ? double(i) / double(n - 1) : 1.0;
        if (x1 > x0)
            fx = (pt.x() - x0) / (x1 - x0);
        const double fy = std::clamp(pt.y(), 0.0, 100.0) / 100.0;
        run << QPointF(box.left() + fx * box.width(), box.bottom() - fy * box.height());
    }
    if (!run.isEmpty())
        runs << run;
    return runs;
}

// "58 s", "4 min", "2 h": how far back a tile's sparkline reaches.
QString spanText(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, (ms + 500) / 1000);
    if (s < 120)
        return QStringLiteral("%1 s").arg(s);
    if (s < 2 * 3600)
        return QStringLiteral("%1 min").arg((s + 30) / 60);
    return QStringLiteral("%1 h").arg((s + 1800) / 3600);
}

} // namespace

// --- tooltips ----------------------------------------------------------------------------------

QString FleetOverview::Private::tooltipFor(const FleetEntry &e) const
{
    const Slice &s = sliceOf(e);
    QString html = QStringLiteral("<b>%1</b> &mdash; %2").arg(s.name.toHtmlEscaped(), toText(e.status));
    if (e.use != SliceUse::Ready && toText(e.use) != toText(e.status))
        html += QStringLiteral(" (%1)").arg(toText(e.use));
    html += QStringLiteral("<br>%1 %2").arg(s.generation ? s.generation->displayName.toHtmlEscaped() : QStringLiteral("unknown generation"), e.shapeText.toHtmlEscaped());
    if (!s.podType.isEmpty())
        html += QStringLiteral(", pod type %1").arg(s.podType.toHtmlEscaped());
    html += QStringLiteral("<br>Worker group: %1").arg(s.workerGroup.isEmpty() ? QStringLiteral("none") : s.workerGroup.toHtmlEscaped());
    html += QStringLiteral("<br>Chips: %1 of %2 reserved, %3 free").arg(e.reserved).arg(e.chips).arg(e.chips - e.reserved);
    if (e.down > 0)
        html += QStringLiteral(" (%1 on hosts that are not up)").arg(e.down);
    if (e.stranded > 0)
        html += QStringLiteral("<br><b>%1 chips stranded</b>: no slice placement group can take a %2 slice").arg(e.stranded).arg(toText(e.use));
    int counts[4] = {0, 0, 0, 0};
    for (const Host &h : s.hosts)
        ++counts[int(h.state)];
    QStringList hostParts;
    for (HostState st : {HostState::Alive, HostState::Dead, HostState::Pending, HostState::Missing})
        if (counts[int(st)] > 0)
            hostParts << QStringLiteral("%1 %2").arg(counts[int(st)]).arg(toText(st).toLower());
    html += QStringLiteral("<br>Hosts: %1").arg(hostParts.join(QStringLiteral(", ")));
    html += QStringLiteral("<br>Held by: %1").arg(e.holders.isEmpty() ? QStringLiteral("nobody") : e.holders.toHtmlEscaped());
    if (!s.problems.isEmpty()) {
        constexpr int kShown = 8;
        html += QStringLiteral("<br>Problems:<ul style=\"margin:0\">");
        for (int i = 0; i < std::min<qsizetype>(kShown, s.problems.size()); ++i)
            html += QStringLiteral("<li>%1</li>").arg(s.problems[i].toHtmlEscaped());
        if (s.problems.size() > kShown)
            html += QStringLiteral("<li>&hellip; and %1 more</li>").arg(s.problems.size() - kShown);
        html += QStringLiteral("</ul>");
    }
    if (snapshot->activity) {
        const ActivityCounts a = snapshot->activity->sliceCounts(e.slice);
        const double mean = a.meanDutyCycle();
        html += std::isnan(mean) ? QStringLiteral("<br>Activity: unknown, none of its %1 chips reports a duty cycle").arg(a.chips)
                                 : QStringLiteral("<br>Activity: mean duty cycle %1 % over the %2 of %3 chips that report")
                                       .arg(mean, 0, 'f', 0)
                                       .arg(a.withDutyCycle)
                                       .arg(a.chips);
        if (const double hbm = a.hbmUsedFraction(); !std::isnan(hbm))
            html += QStringLiteral("; HBM %1 % used").arg(hbm * 100, 0, 'f', 0);
        const QList<QPointF> recent = activityHistory.value(s.name);
        double lo = 100, hi = 0;
        int known = 0;
        for (const QPointF &pt : recent)
            if (!std::isnan(pt.y())) {
                lo = std::min(lo, pt.y());
                hi = std::max(hi, pt.y());
                ++known;
            }
        if (known >= 2) {
            html += QStringLiteral("<br>Over the last %1 (the sparkline): mean duty cycle %2 % to %3 %")
                        .arg(spanText(qint64(recent.last().x() - recent.first().x())))
                        .arg(lo, 0, 'f', 0)
                        .arg(hi, 0, 'f', 0);
            if (known < recent.size())
                html += QStringLiteral(", unknown in %1 of %2 snapshots").arg(recent.size() - known).arg(recent.size());
        }
    }
    if (const int alerts = alertCounts.value(s.name); alerts > 0)
        html += QStringLiteral("<br><b>%1 active alert%2</b> (see Problems)").arg(alerts).arg(alerts == 1 ? QString() : QStringLiteral("s"));
    if (highlightedSet.contains(s.name))
        html += QStringLiteral("<br>Part of the plan being composed.");
    html += QStringLiteral("<br><i>Click or press Enter to open it in the slice view.</i>");
    return html;
}

QString FleetOverview::Private::tooltipAt(QPoint widgetPos) const
{
    if (const int t = tileAt(widgetPos); t >= 0)
        return tooltipFor(fleet.entries[layout.tiles[t].entry]);
    const QPoint p = widgetPos + QPoint(0, scroll());
    for (const Layout::Kpi &k : layout.kpis)
        if (k.rect.contains(p))
            return k.tooltip;
    for (const Layout::Card &c : layout.cards)
        if (c.rect.contains(p)) {
            const ShapeStats &sh = stats.shapes[c.shape];
            const FleetCounts &n = sh.counts;
            QString html = QStringLiteral("<b>%1</b><br>%2").arg(sh.label.toHtmlEscaped(), describe(sh).toHtmlEscaped());
            html += QStringLiteral("<br>Chips: %1 of %2 reserved; %3 free on ready slices").arg(n.reservedChips).arg(n.chips).arg(n.availableChips);
            if (n.claimedChips > 0)
                html += QStringLiteral("; %1 claimed").arg(n.claimedChips);
            if (n.strandedChips > 0)
                html += QStringLiteral("<br>Stranded (free, but no slice placement group can take them): %1 on partly used, "
                                       "%2 on degraded, %3 on provisioning slices")
                            .arg(n.strandedPartlyUsed)
                            .arg(n.strandedDegraded)
                            .arg(n.strandedProvisioning);
            return html;
        }
    for (const Layout::Header &h : layout.headers)
        if (h.rect.contains(p)) {
            const QString fold = h.collapsed ? QStringLiteral("<br><i>Click to show its slices</i>") : QStringLiteral("<br><i>Click to fold</i>");
            if (h.group < 0) {
                const FleetSection &s = fleet.sections[h.section];
                QString html = QStringLiteral("<b>%1</b><br>%2").arg(s.title.toHtmlEscaped(), sectionFigures(s).toHtmlEscaped());
                if (!s.down.isEmpty())
                    html += QStringLiteral("<br>Not answering: %1. Its slices show the last view.").arg(s.down.toHtmlEscaped());
                return html + fold;
            }
            const FleetGroup &g = fleet.groups[h.group];
            return QStringLiteral("%1<br>%2 slices, %3 ready; %4 of %5 chips reserved")
                       .arg(g.title.toHtmlEscaped())
                       .arg(g.entries.size())
                       .arg(g.ready)
                       .arg(g.reserved)
                       .arg(g.chips)
                   + fold;
        }
    return {};
}

// --- painting ----------------------------------------------------------------------------------

void FleetOverview::Private::drawSwatch(QPainter &p, const QRect &r, const QColor &color, Swatch style) const
{
    p.save();
    switch (style) {
    case Swatch::Box:
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawRoundedRect(r, 2, 2);
        break;
    case Swatch::Hatched:
        p.setPen(Qt::NoPen);
        p.setBrush(theme.freeChip);
        p.drawRoundedRect(r, 2, 2);
        p.setBrush(QBrush(color.darker(theme.window.lightness() > 128 ? 140 : 70), Qt::BDiagPattern));
        p.drawRoundedRect(r, 2, 2);
        break;
    case Swatch::Outline:
        p.setPen(QPen(color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(1, 1, -1, -1), 3, 3);
        break;
    case Swatch::DashedOutline:
        p.setPen(QPen(color, 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(1, 1, -1, -1), 3, 3);
        break;
    }
    p.restore();
}

void FleetOverview::Private::drawBadge(QPainter &p, const QString &text, const QColor &color, const QRect &r, Qt::Alignment align) const
{
    const QFontMetrics fm(metrics.badge);
    const int w = fm.horizontalAdvance(text) + metrics.em * 9 / 10;
    const int h = fm.height() + 2;
    const int x = align & Qt::AlignRight ? r.right() - w + 1 : r.left();
    const QRect pill(x, r.top() + (r.height() - h) / 2, w, h);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawRoundedRect(pill, h / 2.0, h / 2.0);
    p.setPen(textOn(color));
    p.setFont(metrics.badge);
    p.drawText(pill, Qt::AlignCenter, text);
}

void FleetOverview::Private::drawBand(QPainter &p, const QRect &exposed) const
{
    if (!layout.band.isValid() || !layout.band.intersects(exposed))
        return;
    const Metrics &m = metrics;
    p.setPen(theme.border);
    p.setBrush(theme.panel);
    p.drawRoundedRect(QRectF(layout.band).adjusted(0.5, 0.5, -0.5, -0.5), m.radius, m.radius);

    p.setFont(m.caption);
    p.setPen(theme.mutedText);
    p.drawText(layout.fleetCaption, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("FLEET"));
    p.drawText(layout.shapeCaption, Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("READY SLICES AND FRAGMENTATION, BY SHAPE"));

    const QFontMetrics valueFm(m.kpiValue);
    for (const Layout::Kpi &k : layout.kpis) {
        QRect valueRect(k.rect.left(), k.rect.top(), k.rect.width(), valueFm.height());
        int x = valueRect.left();
        if (k.dot.isValid()) {
            const int d = m.em * 6 / 10;
            p.setPen(Qt::NoPen);
            p.setBrush(k.dot);
            p.drawEllipse(QRect(x, valueRect.center().y() - d / 2, d, d));
            x += d + m.em / 3;
        }
        p.setFont(m.kpiValue);
        p.setPen(k.alarm ? theme.degraded : theme.text);
        p.drawText(QRect(x, valueRect.top(), k.rect.right() - x, valueRect.height()), Qt::AlignLeft | Qt::AlignVCenter, k.value);
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        p.drawText(QRect(k.rect.left(), valueRect.bottom() + 1, k.rect.width(), k.rect.bottom() - valueRect.bottom()),
                   Qt::AlignLeft | Qt::AlignTop, k.caption);
    }

    const QFontMetrics boldFm(m.bold), smallFm(m.small);
    for (const Layout::Card &c : layout.cards) {
        const ShapeStats &sh = stats.shapes[c.shape];
        const FleetCounts &n = sh.counts;
        const QRect r = c.rect;
        p.setPen(theme.border);
        p.setBrush(theme.window);
        p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), m.radius, m.radius);
        const QRect in = r.adjusted(m.pad, m.pad, -m.pad, -m.pad);
        int y = in.top();
        // Line 1: the shape, and how many slices of it exist.
        const QString count = n.slices == 1 ? QStringLiteral("1 slice") : QStringLiteral("%1 slices").arg(n.slices);
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        const int countWidth = smallFm.horizontalAdvance(count);
        p.drawText(QRect(in.right() - countWidth, y, countWidth + 1, m.lineName), Qt::AlignRight | Qt::AlignVCenter, count);
        p.setFont(m.bold);
        p.setPen(theme.text);
        p.drawText(QRect(in.left(), y, in.width() - countWidth - m.em / 2, m.lineName), Qt::AlignLeft | Qt::AlignVCenter,
                   boldFm.elidedText(sh.label, Qt::ElideRight, in.width() - countWidth - m.em / 2));
        y += m.lineName + m.gap / 3;
        // Line 2: the slices of this shape as a bar, one segment per use, in status colours.
        struct Segment {
            int n;
            QColor color;
        };
        const QColor partly = mix(theme.reserved, theme.window, 0.5);
        const Segment segments[] = {{n.ready, theme.ready}, {n.fullyReserved, theme.reserved}, {n.claimed, theme.reserved}, {n.partlyUsed, partly}, {n.degraded, theme.degraded}, {n.provisioning, theme.provisioning}};
        const QRect bar(in.left(), y, in.width(), m.barHeight);
        p.setPen(Qt::NoPen);
        p.setBrush(theme.freeChip);
        p.drawRoundedRect(bar, 2, 2);
        double x = bar.left();
        for (const Segment &s : segments) {
            if (s.n <= 0 || n.slices <= 0)
                continue;
            const double w = double(bar.width()) * s.n / n.slices;
            p.setBrush(s.color);
            p.drawRect(QRectF(x, bar.top(), std::max(1.0, w - 1), bar.height()));
            x += w;
        }
        y += m.barHeight + m.gap / 3;
        // Line 3: the counts behind the bar; line 4: what is stranded.
        QStringList parts{QStringLiteral("%1 of %2 ready").arg(n.ready).arg(n.slices)};
        // The same exclusive categories as the bar, so the numbers add up to the slices.
        if (n.fullyReserved + n.claimed > 0)
            parts << QStringLiteral("%1 reserved").arg(n.fullyReserved + n.claimed);
        if (n.partlyUsed > 0)
            parts << QStringLiteral("%1 partly used").arg(n.partlyUsed);
        if (n.degraded > 0)
            parts << QStringLiteral("%1 degraded").arg(n.degraded);
        if (n.provisioning > 0)
            parts << QStringLiteral("%1 provisioning").arg(n.provisioning);
        // Packed into at most two lines, breaking only between parts.
        QStringList lines{QString()};
        for (const QString &part : std::as_const(parts)) {
            const QString joined = lines.last().isEmpty() ? part : lines.last() + kDot + part;
            if (lines.last().isEmpty() || smallFm.horizontalAdvance(joined) <= in.width() || lines.size() == 2)
                lines.last() = joined;
            else
                lines << part;
        }
        p.setFont(m.small);
        p.setPen(theme.text);
        for (const QString &line : std::as_const(lines)) {
            p.drawText(QRect(in.left(), y, in.width(), m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                       smallFm.elidedText(line, Qt::ElideRight, in.width()));
            y += m.lineSmall;
        }
        if (lines.size() == 1)
            y += m.lineSmall;
        const QString stranded = n.strandedChips > 0
                                     ? QStringLiteral("%1 of %2 free chips stranded").arg(n.strandedChips).arg(n.freeChips)
                                     : QStringLiteral("no stranded chips");
        p.setFont(n.strandedChips > 0 ? m.smallBold : m.small);
        p.setPen(n.strandedChips > 0 ? theme.degraded : theme.mutedText);
        p.drawText(QRect(in.left(), y, in.width(), m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(p.font()).elidedText(stranded, Qt::ElideRight, in.width()));
    }

    p.setFont(m.small);
    for (const Layout::LegendItem &it : layout.legend) {
        const int h = it.rect.height() - 4, w = swatchWidth(it.style, it.rect.height());
        drawSwatch(p, QRect(it.rect.left(), it.rect.top() + 2, w, h), it.color, it.style);
        p.setPen(theme.mutedText);
        p.drawText(it.rect.adjusted(w + m.em / 3, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, it.label);
    }
}

// The fold mark left of a header's title: pointing right when folded, down when open.
void FleetOverview::Private::drawChevron(QPainter &p, const QRect &r, bool folded) const
{
    const QPointF c = QRectF(r).center();
    const double a = std::max(2.5, metrics.em * 0.28);
    QPolygonF mark;
    if (folded)
        mark << QPointF(c.x() - a / 2, c.y() - a) << QPointF(c.x() + a / 2, c.y()) << QPointF(c.x() - a / 2, c.y() + a);
    else
        mark << QPointF(c.x() - a, c.y() - a / 2) << QPointF(c.x(), c.y() + a / 2) << QPointF(c.x() + a, c.y() - a / 2);
    p.setPen(QPen(theme.mutedText, 1.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(mark);
}

QString FleetOverview::Private::sectionFigures(const FleetSection &section) const
{
    const FleetCounts &s = section.counts;
    QStringList parts{QStringLiteral("%1 %2").arg(s.slices).arg(s.slices == 1 ? QStringLiteral("slice") : QStringLiteral("slices")),
                      QStringLiteral("%1 ready").arg(s.ready)};
    if (s.degraded > 0)
        parts << QStringLiteral("%1 degraded").arg(s.degraded);
    if (s.provisioning > 0)
        parts << QStringLiteral("%1 provisioning").arg(s.provisioning);
    parts << QStringLiteral("%1 reserved").arg(s.reserved()) << QStringLiteral("%1 / %2 chips reserved").arg(s.reservedChips).arg(s.chips)
          << QStringLiteral("%1 chips stranded").arg(s.strandedChips);
    return parts.join(kDot);
}

// A section's header: a band with the context's (RayCluster's, generation's) name and its fleet
// figures; when that part of the fleet does not answer, a "not answering" pill and the reason.
void FleetOverview::Private::drawSectionHeader(QPainter &p, const Layout::Header &h) const
{
    const Metrics &m = metrics;
    const FleetSection &s = fleet.sections[h.section];
    const QRect band = h.rect;
    p.setPen(s.down.isEmpty() ? theme.border : theme.degraded);
    p.setBrush(theme.panel);
    p.drawRoundedRect(QRectF(band).adjusted(0.5, 0.5, -0.5, -0.5), m.radius, m.radius);
    const QFontMetrics headerFm(m.header), smallFm(m.small), badgeFm(m.badge);
    const QRect inner = band.adjusted(m.pad, m.pad, -m.pad, -m.pad);
    const QRect titleLine(inner.left(), inner.top(), inner.width(), headerFm.height());
    const int chevronWidth = m.em;
    drawChevron(p, QRect(titleLine.left(), titleLine.top(), chevronWidth, titleLine.height()), h.collapsed);
    int x = titleLine.left() + chevronWidth + m.em / 3;
    int titleRoom = titleLine.right() - x;
    const QString pill = s.down.isEmpty() ? QString() : QStringLiteral("not answering");
    if (!pill.isEmpty())
        titleRoom -= badgeFm.horizontalAdvance(pill) + m.em * 2;
    const QString title = headerFm.elidedText(s.title, Qt::ElideMiddle, std::max(m.em * 4, titleRoom));
    p.setFont(m.header);
    p.setPen(theme.text);
    p.drawText(QRect(x, titleLine.top(), headerFm.horizontalAdvance(title) + 1, titleLine.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    x += headerFm.horizontalAdvance(title) + m.em * 2 / 3;
    if (!pill.isEmpty())
        drawBadge(p, pill, theme.degraded, QRect(x, titleLine.top(), titleLine.right() - x, titleLine.height()), Qt::AlignLeft | Qt::AlignVCenter);

    // The figures, stranded chips in the alarm colour; the reason a part is down comes first.
    const QRect figures(titleLine.left() + chevronWidth + m.em / 3, titleLine.bottom() + 1 + m.em / 4, 0, smallFm.height());
    QRect line = figures;
    line.setRight(inner.right());
    p.setFont(m.small);
    QString text = sectionFigures(s);
    if (h.shown != s.counts.slices)
        text = QStringLiteral("%1 of %2 shown").arg(h.shown).arg(s.counts.slices) + kDot + text;
    if (!s.down.isEmpty()) {
        const QString why = QStringLiteral("last view shown: %1").arg(s.down) + kDot;
        const QString elided = smallFm.elidedText(why, Qt::ElideRight, line.width() / 2);
        p.setPen(theme.degraded);
        p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, elided);
        line.setLeft(line.left() + smallFm.horizontalAdvance(elided));
    }
    p.setPen(s.counts.strandedChips > 0 ? theme.text : theme.mutedText);
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, smallFm.elidedText(text, Qt::ElideRight, line.width()));
}

void FleetOverview::Private::drawHeader(QPainter &p, const Layout::Header &h) const
{
    if (h.group < 0)
        return drawSectionHeader(p, h);
    const Metrics &m = metrics;
    const FleetGroup &g = fleet.groups[h.group];
    QRect r = h.rect.adjusted(0, 0, 0, -3);
    // The fold mark, in the margin left of the title so tiles and titles stay aligned: always in a
    // fleet, and on a folded group (one cluster's groups fold too, by a click on the title).
    if (!fleet.sections.isEmpty() || h.collapsed)
        drawChevron(p, QRect(r.left() - m.margin, r.top(), m.margin, r.height()), h.collapsed);
    QString counts = QStringLiteral("%1 %2").arg(g.entries.size()).arg(g.entries.size() == 1 ? QStringLiteral("slice") : QStringLiteral("slices"));
    if (h.shown != g.entries.size())
        counts = QStringLiteral("%1 of ").arg(h.shown) + counts + QStringLiteral(" shown");
    if (h.collapsed)
        counts += QStringLiteral(" (folded)");
    counts += kDot + QStringLiteral("%1 ready").arg(g.ready) + kDot + QStringLiteral("%1 / %2 chips reserved").arg(g.reserved).arg(g.chips);
    const QFontMetrics smallFm(m.small), headerFm(m.header);
    // The counts follow the title (no eye travel across a wide window); the title comes first (a
    // group sharing a row has a narrow header), the counts elide or go.
    const QString title = headerFm.elidedText(g.title, Qt::ElideMiddle, r.width());
    const int titleWidth = headerFm.horizontalAdvance(title);
    p.setFont(m.header);
    p.setPen(theme.text);
    p.drawText(QRect(r.left(), r.top(), titleWidth + 1, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    const int countsLeft = r.left() + titleWidth + m.em;
    if (r.right() - countsLeft > m.em * 3) {
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        p.drawText(QRect(countsLeft, r.top(), r.right() - countsLeft + 1, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   smallFm.elidedText(counts, Qt::ElideRight, r.right() - countsLeft + 1));
    }
    p.setPen(QPen(theme.border, 1));
    p.drawLine(h.rect.left(), h.rect.bottom(), h.rect.right(), h.rect.bottom());
}

void FleetOverview::Private::drawOccupancy(QPainter &p, const FleetEntry &e, const QRect &r) const
{
    const Metrics &m = metrics;
    const QFontMetrics fm(m.small);
    const QString text = QStringLiteral("%1/%2 reserved").arg(e.reserved).arg(e.chips);
    const int textWidth = fm.horizontalAdvance(text);
    const QRect bar(r.left(), r.center().y() - m.barHeight / 2, std::max(m.em * 2, r.width() - textWidth - m.em / 2), m.barHeight);
    p.setPen(Qt::NoPen);
    p.setBrush(theme.freeChip);
    p.drawRoundedRect(bar, 2, 2);
    if (e.chips > 0) {
        const double unit = double(bar.width()) / e.chips;
        if (e.reserved > 0) {
            p.setBrush(theme.reserved);
            p.drawRect(QRectF(bar.left(), bar.top(), std::max(2.0, unit * e.reserved), bar.height()));
        }
        if (e.down > 0) {
            // Free chips on a host that is not up: hatched, at the end of the bar.
            const QRectF down(bar.right() + 1 - unit * e.down, bar.top(), unit * e.down, bar.height());
            p.setBrush(QBrush(theme.absentChip.darker(theme.window.lightness() > 128 ? 140 : 70), Qt::BDiagPattern));
            p.drawRect(down);
        }
    }
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(QRect(r.right() - textWidth, r.top(), textWidth + 1, r.height()), Qt::AlignRight | Qt::AlignVCenter, text);
}

QRect FleetOverview::Private::activityLineOf(const QRect &tile) const
{
    const Metrics &m = metrics;
    const QRect in = tile.adjusted(m.pad + m.em / 4, m.pad, -m.pad, -m.pad);
    return QRect(in.left(), in.top() + m.lineName + m.gap / 2, in.width(), m.lineSmall);
}

FleetOverview::Private::ActivityFigure FleetOverview::Private::activityFigure(const FleetEntry &e, const QRect &r) const
{
    ActivityFigure f;
    if (!snapshot->activity)
        return f;
    const Metrics &m = metrics;
    const ActivityCounts counts = snapshot->activity->sliceCounts(e.slice);
    f.mean = counts.meanDutyCycle();
    f.text = !std::isnan(f.mean) ? QStringLiteral("duty %1 %").arg(int(std::lround(f.mean))) + kDot + QStringLiteral("%1/%2").arg(counts.withDutyCycle).arg(counts.chips)
                                 : QStringLiteral("duty unknown") + kDot + QStringLiteral("0/%1").arg(counts.chips);
    const int textWidth = QFontMetrics(m.small).horizontalAdvance(f.text);
    const QList<QPointF> recent = activityHistory.value(sliceOf(e).name);
    const qsizetype known = std::count_if(recent.cbegin(), recent.cend(), [](const QPointF &pt) { return !std::isnan(pt.y()); });
    // The gauge: a small bar filled to the mean, or (with a history) a sparkline twice as wide;
    // where the sparkline does not fit, the bar.
    for (const bool spark : {known >= 2, false}) {
        const int gaugeWidth = spark ? m.em * 4 : m.em * 2;
        const int width = gaugeWidth + m.em / 3 + textWidth;
        if (width > r.width())
            continue;
        const int gaugeHeight = spark ? std::max(m.barHeight, r.height() - 2) : m.barHeight;
        f.width = width;
        f.gauge = QRect(r.right() - width + 1, r.center().y() - gaugeHeight / 2, gaugeWidth, gaugeHeight);
        f.label = QRect(r.right() - textWidth, r.top(), textWidth + 1, r.height());
        if (spark)
            f.sparkline = sparklineRuns(recent, QRectF(f.gauge).adjusted(1.5, 1.5, -1.5, -1.5));
        return f;
    }
    return f;
}

int FleetOverview::Private::drawActivity(QPainter &p, const FleetEntry &e, const QRect &r) const
{
    const ActivityFigure f = activityFigure(e, r);
    if (f.width == 0)
        return 0;
    const Metrics &m = metrics;
    const bool known = !std::isnan(f.mean);
    p.setPen(Qt::NoPen);
    // The sparkline's box a step from the panel (the gauge's grey would drown a light line on
    // the dark theme).
    p.setBrush(f.sparkline.isEmpty() ? theme.unknownChip : mix(theme.unknownChip, theme.panel, 0.55));
    p.drawRoundedRect(f.gauge, 2, 2);
    if (!f.sparkline.isEmpty()) {
        // The recent mean, 0 % at the bottom: a line per run of known values, a dot for a lone
        // one, the newest value (when known) a dot in its scale colour.
        QPen pen(theme.text, 1.3);
        pen.setCapStyle(Qt::RoundCap);
        pen.setJoinStyle(Qt::RoundJoin);
        for (const QPolygonF &run : f.sparkline) {
            if (run.size() == 1) {
                p.setPen(Qt::NoPen);
                p.setBrush(theme.text);
                p.drawEllipse(run.first(), 1.3, 1.3);
            } else {
                p.setPen(pen);
                p.setBrush(Qt::NoBrush);
                p.drawPolyline(run);
            }
        }
        const QList<QPointF> recent = activityHistory.value(sliceOf(e).name);
        if (known && !recent.isEmpty() && !std::isnan(recent.last().y())) {
            p.setPen(QPen(theme.text, 1));
            p.setBrush(activityColor(recent.last().y() / 100.0));
            p.drawEllipse(f.sparkline.last().last(), 2.5, 2.5);
        }
    } else if (known) {
        p.setBrush(activityColor(f.mean / 100.0));
        p.drawRect(QRectF(f.gauge.left(), f.gauge.top(), std::max(2.0, f.gauge.width() * std::clamp(f.mean, 0.0, 100.0) / 100.0), f.gauge.height()));
    } else {
        p.setBrush(QBrush(theme.unknownHatch, Qt::BDiagPattern));
        p.drawRoundedRect(f.gauge, 2, 2);
    }
    p.setFont(m.small);
    p.setPen(known ? theme.text : theme.mutedText);
    p.drawText(f.label, Qt::AlignRight | Qt::AlignVCenter, f.text);
    return f.width;
}

void FleetOverview::Private::drawHostStrip(QPainter &p, const Slice &s, const QRect &r) const
{
    const Metrics &m = metrics;
    const QFontMetrics fm(m.small);
    const QString label = QStringLiteral("hosts");
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, label);
    const int x0 = r.left() + fm.horizontalAdvance(label) + m.em / 2;
    const int width = r.right() - x0 + 1;
    const int n = int(s.hosts.size());
    if (n == 0 || width <= 0)
        return;
    const int h = m.cellHeight;
    const int top = r.center().y() - h / 2;
    p.setPen(Qt::NoPen);
    const double pitch = double(width) / n;
    if (pitch >= 3) {
        // One cell per host, a pixel apart, no wider than a square.
        const double cell = std::min(pitch, double(h) * 1.4 + 1);
        for (int i = 0; i < n; ++i) {
            p.setBrush(hostStateColor(s.hosts[i].state, theme));
            p.drawRect(QRectF(x0 + i * cell, top, cell - 1, h));
        }
        return;
    }
    // More hosts than pixels allow: each pixel column shows the worst host it covers, so one dead
    // host among thousands is still visible. Runs of one colour are drawn as one rectangle.
    int runStart = 0;
    HostState runState = HostState::Alive;
    for (int x = 0; x <= width; ++x) {
        HostState worst = HostState::Alive;
        if (x < width) {
            const int first = int(qint64(x) * n / width), last = std::max(first + 1, int(qint64(x + 1) * n / width));
            for (int i = first; i < last && i < n; ++i)
                if (severity(s.hosts[i].state) > severity(worst))
                    worst = s.hosts[i].state;
        }
        if (x == width || (x > 0 && worst != runState)) {
            p.setBrush(hostStateColor(runState, theme));
            p.drawRect(QRect(x0 + runStart, top, x - runStart, h));
            runStart = x;
        }
        runState = worst;
    }
}

QString FleetOverview::fittedShape(const QStringList &shapes, const QFontMetrics &metrics, int width)
{
    // Measured, not elidedText() alone: that elides a text given exactly its own advance.
    for (const QString &shape : shapes)
        if (metrics.horizontalAdvance(shape) <= width)
            return shape;
    return shapes.isEmpty() ? QString() : metrics.elidedText(shapes.last(), Qt::ElideRight, width);
}

void FleetOverview::Private::drawTile(QPainter &p, const Layout::Tile &t) const
{
    const Metrics &m = metrics;
    const FleetEntry &e = fleet.entries[t.entry];
    const Slice &s = sliceOf(e);
    const QRect r = t.rect;
    const bool isCurrent = s.name == current, isHovered = s.name == hovered, isPlanned = highlightedSet.contains(s.name);
    const QColor statusColor = sliceStatusColor(e.status, theme);

    if (isPlanned) {
        p.setPen(QPen(theme.hover, 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(-3.5, -3.5, 3.5, 3.5), m.radius + 3, m.radius + 3);
    }
    const QColor background = isCurrent   ? mix(theme.panel, theme.selection, 0.10)
                              : isHovered ? mix(theme.panel, theme.text, 0.05)
                                          : theme.panel;
    p.setPen(QPen(isCurrent ? theme.selection : isHovered ? theme.mutedText
                                                          : theme.border,
                  isCurrent ? 2 : 1));
    p.setBrush(background);
    const QRectF frame = QRectF(r).adjusted(isCurrent ? 1 : 0.5, isCurrent ? 1 : 0.5, isCurrent ? -1 : -0.5, isCurrent ? -1 : -0.5);
    p.drawRoundedRect(frame, m.radius, m.radius);
    // A stripe in the status colour down the left edge: the fleet reads as colour at a glance.
    {
        QPainterPath clip;
        clip.addRoundedRect(frame, m.radius, m.radius);
        p.save();
        p.setClipPath(clip);
        p.fillRect(QRect(r.left(), r.top(), std::max(3, m.em / 4), r.height()), statusColor);
        p.restore();
    }

    const QRect in = r.adjusted(m.pad + m.em / 4, m.pad, -m.pad, -m.pad);
    int y = in.top();
    // Line 1: name and status badge.
    const QString status = toText(e.status);
    const int badgeWidth = QFontMetrics(m.badge).horizontalAdvance(status) + m.em;
    const QRect nameLine(in.left(), y, in.width(), m.lineName);
    drawBadge(p, status, statusColor, nameLine, Qt::AlignRight);
    p.setFont(m.bold);
    p.setPen(theme.text);
    const int nameWidth = in.width() - badgeWidth - m.em / 2;
    p.drawText(QRect(in.left(), y, nameWidth, m.lineName), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(m.bold).elidedText(e.tileName, Qt::ElideMiddle, nameWidth));
    y += m.lineName + m.gap / 2;
    // Line 2: the shape.
    const QFontMetrics smallFm(m.small);
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    const int activityWidth = drawActivity(p, e, activityLineOf(r));
    const int shapeWidth = activityWidth > 0 ? std::max(0, in.width() - activityWidth - m.em / 2) : in.width();
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(QRect(in.left(), y, shapeWidth, m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
               fittedShape(QStringList{e.shapeText} + e.shorterShapes, smallFm, shapeWidth));
    y += m.lineSmall;
    // Line 3: chips reserved; line 4: hosts by state.
    drawOccupancy(p, e, QRect(in.left(), y, in.width(), m.lineSmall));
    y += m.lineSmall;
    drawHostStrip(p, s, QRect(in.left(), y, in.width(), m.lineSmall));
    y += m.lineSmall + m.gap / 2;
    // Line 5: why it is not usable, or who holds it.
    const bool trouble = e.status == SliceStatus::Degraded || e.status == SliceStatus::Provisioning || e.stranded > 0;
    int x = in.left();
    if (trouble) {
        const int d = std::max(5, m.em / 2);
        p.setPen(Qt::NoPen);
        p.setBrush(e.status == SliceStatus::Reserved ? theme.degraded : statusColor);
        p.drawEllipse(QRect(x, y + (m.lineSmall - d) / 2, d, d));
        x += d + m.em / 3;
    }
    p.setFont(m.small);
    p.setPen(trouble ? theme.text : theme.mutedText);
    const int suffixWidth = smallFm.horizontalAdvance(e.noteSuffix);
    const QString note = smallFm.elidedText(e.note, Qt::ElideRight, std::max(0, in.right() - x + 1 - suffixWidth));
    p.drawText(QRect(x, y, in.right() - x + 1, m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter, note);
    if (!e.noteSuffix.isEmpty()) {
        p.setPen(theme.mutedText);
        p.drawText(QRect(x + smallFm.horizontalAdvance(note), y, suffixWidth + 1, m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                   e.noteSuffix);
    }

    if (const int alerts = alertCounts.value(s.name); alerts > 0) {
        // On the top edge, right: a count of the slice's active alerts.
        const QString tag = alerts == 1 ? QStringLiteral("1 alert") : QStringLiteral("%1 alerts").arg(alerts);
        const QFontMetrics fm(m.badge);
        const int w = fm.horizontalAdvance(tag) + m.em * 9 / 10;
        const QRect tagRect(r.right() - m.pad - w, r.top() - fm.height() / 2 - 1, w, fm.height() + 2);
        drawBadge(p, tag, theme.degraded, tagRect, Qt::AlignLeft);
    }
    if (isPlanned) {
        const QString tag = QStringLiteral("in plan");
        const QFontMetrics fm(m.badge);
        const QRect tagRect(r.left() + m.pad, r.top() - fm.height() / 2 - 1, fm.horizontalAdvance(tag) + m.em * 9 / 10, fm.height() + 2);
        drawBadge(p, tag, theme.hover, tagRect, Qt::AlignLeft);
    }
}

} // namespace slicescope
