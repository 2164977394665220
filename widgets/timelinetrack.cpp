// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinetrack.h"

#include "history.h"
#include "timetext.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <vector>

namespace slicescope {

namespace {

constexpr int kLaneLabelWidth = 62;
constexpr int kRightMargin = 12;
constexpr int kTopMargin = 10;          // room for the cursor's handle
constexpr int kAxisHeight = 16;
constexpr int kRows = kTimelineLaneCount + 1; // the alert row, then the lanes
constexpr double kAlertHitPx = 5;             // how far from a tick the mouse still finds it
constexpr int kAlertToolTipLines = 8;

QString alertRowToolTip()
{
    return QObject::tr("Where each alert began, coloured by severity: red critical, amber warning, blue info. "
                       "Hover for what it says; click to see the cluster then with what it names selected. "
                       "View > Alert thresholds... sets when alerts fire.");
}

QString severityText(AlertSeverity severity)
{
    QString text = toText(severity);
    text[0] = text[0].toUpper();
    return text;
}

QString laneName(int lane)
{
    switch (TimelineLane(lane)) {
    case TimelineLane::Slices: return QObject::tr("Slices");
    case TimelineLane::Hosts: return QObject::tr("Hosts");
    case TimelineLane::PlacementGroups: return QObject::tr("PGs");
    case TimelineLane::Scaling: return QObject::tr("Scaling");
    }
    Q_UNREACHABLE();
}

QString laneToolTip(int lane)
{
    switch (TimelineLane(lane)) {
    case TimelineLane::Slices: return QObject::tr("Slices added, removed, or changing status (ready, reserved, degraded, provisioning)");
    case TimelineLane::Hosts: return QObject::tr("Hosts and Ray nodes dying, coming up, going missing; pods changing phase");
    case TimelineLane::PlacementGroups: return QObject::tr("Placement groups created, pending, rescheduling, removed");
    case TimelineLane::Scaling: return QObject::tr("RayClusters and worker groups added, removed or scaled");
    }
    Q_UNREACHABLE();
}

} // namespace

// ---- TimelineTrack ------------------------------------------------------------------------------

TimelineTrack::TimelineTrack(QWidget *parent)
    : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setAccessibleName(tr("History timeline"));
}

void TimelineTrack::setModel(const HistoryEventModel *model, const SnapshotHistory *history)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_history = history;
    if (m_model)
        connect(m_model, &HistoryEventModel::entriesChanged, this, &TimelineTrack::invalidate);
    invalidate();
}

void TimelineTrack::setAlertTicks(const AlertTickLog *ticks)
{
    m_alertTicks = ticks;
    invalidate();
}

void TimelineTrack::alertTicksChanged()
{
    invalidate();
}

void TimelineTrack::setTheme(const Theme &theme)
{
    m_theme = theme;
    invalidate();
}

void TimelineTrack::setCursor(int index, bool live)
{
    if (index == m_cursor && live == m_live)
        return;
    m_cursor = index;
    m_live = live;
    update();
}

void TimelineTrack::invalidate()
{
    m_cache = QPixmap();
    update();
}

QSize TimelineTrack::sizeHint() const
{
    return {600, kTopMargin + kRows * 15 + kAxisHeight + 4};
}

QSize TimelineTrack::minimumSizeHint() const
{
    return {240, kTopMargin + kRows * 11 + kAxisHeight + 4};
}

int TimelineTrack::laneHeight() const
{
    return std::max(8, (height() - kTopMargin - kAxisHeight - 4) / kRows);
}

int TimelineTrack::laneTop(int lane) const
{
    return kTopMargin + (lane + 1) * laneHeight();
}

QRect TimelineTrack::alertRow() const
{
    const QRect plot = geometry().plot;
    return QRect(plot.left(), kTopMargin, plot.width(), laneHeight());
}

TimelineGeometry TimelineTrack::geometry() const
{
    const QRect plot(kLaneLabelWidth, kTopMargin, std::max(1, width() - kLaneLabelWidth - kRightMargin), laneHeight() * kRows);
    if (!m_history || m_history->isEmpty())
        return TimelineGeometry::forSpan(plot, {}, QDateTime::fromMSecsSinceEpoch(60'000, Qt::UTC));
    return TimelineGeometry::forSpan(plot, m_history->time(0), m_history->time(m_history->size() - 1));
}

int TimelineTrack::entryAtX(double x) const
{
    if (!m_history || m_history->isEmpty())
        return -1;
    return nearestEntry(*m_history, QDateTime::fromMSecsSinceEpoch(geometry().msAt(x), Qt::UTC));
}

void TimelineTrack::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_cache = QPixmap();
}

void TimelineTrack::paintEvent(QPaintEvent *)
{
    const TimelineGeometry g = geometry();
    const qreal dpr = devicePixelRatioF();
    if (m_cache.isNull() || m_cache.size() != size() * dpr) {
        m_cache = QPixmap(size() * dpr);
        m_cache.setDevicePixelRatio(dpr);
        m_cache.fill(m_theme.window);
        QPainter cache(&m_cache);
        drawBackground(cache, g);
        drawTicks(cache, g);
        drawAxis(cache, g);
        drawAlertTicks(cache, g); // over the axis' grid lines: a triangle must read whole
    }
    QPainter painter(this);
    painter.drawPixmap(0, 0, m_cache);
    drawCursor(painter, g);
    // New alerts begin at the newest entry, where the live cursor stands: their ticks go over it.
    if (m_history && m_cursor >= 0 && m_cursor < m_history->size())
        drawAlertTicks(painter, g, g.xOf(m_history->time(m_cursor).toMSecsSinceEpoch()));
    if (hasFocus()) {
        painter.setPen(QPen(m_theme.selection, 1, Qt::DotLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void TimelineTrack::drawBackground(QPainter &painter, const TimelineGeometry &g) const
{
    painter.setPen(Qt::NoPen);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane) {
        const QRect row(g.plot.left(), laneTop(lane), g.plot.width(), laneHeight());
        painter.fillRect(row, lane % 2 ? m_theme.window : m_theme.panel);
    }
    painter.fillRect(alertRow(), m_theme.window); // the row above lane 0 (panel): they alternate on

    painter.setPen(m_theme.mutedText);
    QFont font = painter.font();
    font.setPixelSize(std::clamp(laneHeight() - 3, 9, 12));
    painter.setFont(font);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane)
        painter.drawText(QRect(4, laneTop(lane), kLaneLabelWidth - 8, laneHeight()), Qt::AlignVCenter | Qt::AlignRight, laneName(lane));
    painter.drawText(QRect(4, kTopMargin, kLaneLabelWidth - 8, laneHeight()), Qt::AlignVCenter | Qt::AlignRight, tr("Alerts"));
    painter.setPen(m_theme.border);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.plot.adjusted(0, 0, -1, -1));
}

void TimelineTrack::drawAxis(QPainter &painter, const TimelineGeometry &g) const
{
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    const QFontMetrics fm(font);
    const qint64 step = g.labelStepMs(fm.horizontalAdvance(QStringLiteral("00:00:00")) + 24);
    const QString format = step >= 86'400'000 ? QStringLiteral("MM-dd") : step >= 60'000 ? QStringLiteral("HH:mm")
                                                                                         : QStringLiteral("HH:mm:ss");
    const int baseline = g.plot.bottom() + 2;
    // The first round time at or after the start (round in UTC: steps divide a day).
    qint64 t = (g.firstMs / step + (g.firstMs % step ? 1 : 0)) * step;
    for (; t <= g.lastMs; t += step) {
        const double x = g.xOf(t);
        painter.setPen(QPen(m_theme.border, 1, Qt::DotLine));
        painter.drawLine(QPointF(x, g.plot.top() + 1), QPointF(x, g.plot.bottom()));
        painter.setPen(m_theme.mutedText);
        painter.drawLine(QPointF(x, baseline - 1), QPointF(x, baseline + 2));
        const QString label = utcText(QDateTime::fromMSecsSinceEpoch(t, Qt::UTC), format);
        const int w = fm.horizontalAdvance(label);
        // Centred on its tick, but never into the lane labels' gutter nor past the right edge.
        const int left = std::clamp(int(x) - w / 2, g.plot.left() - 2, width() - w - 1);
        painter.drawText(QRect(left, baseline + 2, w + 1, kAxisHeight), Qt::AlignHCenter | Qt::AlignTop, label);
    }
    // "UTC" once, in the gutter, so every label need not say it.
    painter.setPen(m_theme.mutedText);
    painter.drawText(QRect(4, baseline + 2, kLaneLabelWidth - 8, kAxisHeight), Qt::AlignRight | Qt::AlignTop, QStringLiteral("UTC"));
}

void TimelineTrack::drawTicks(QPainter &painter, const TimelineGeometry &g) const
{
    if (!m_model || !m_history)
        return;
    // One column per pixel and lane, holding the worst tone of the entries drawn there: a long
    // history of a busy cluster costs the plot's width, not its event count (docs/style.md 11).
    const int w = g.plot.width();
    std::vector<std::array<EventTone, kTimelineLaneCount>> columns(size_t(std::max(1, w)));
    for (auto &c : columns)
        c.fill(EventTone::None);
    for (const auto &entry : m_model->entries()) {
        if (entry.events == 0)
            continue;
        const int x = std::clamp(int(std::lround(g.xOf(entry.timeMs))) - g.plot.left(), 0, w - 1);
        for (int lane = 0; lane < kTimelineLaneCount; ++lane)
            columns[size_t(x)][size_t(lane)] = std::max(columns[size_t(x)][size_t(lane)], entry.lanes[lane]);
    }
    painter.setPen(Qt::NoPen);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane) {
        const int top = laneTop(lane) + 2, h = laneHeight() - 4;
        for (int x = 0; x < w; ++x) {
            const EventTone tone = columns[size_t(x)][size_t(lane)];
            if (tone == EventTone::None)
                continue;
            // Neutral changes are drawn shorter: the eye should go to the coloured ones.
            const int inset = tone == EventTone::Neutral ? h / 4 : 0;
            painter.fillRect(QRect(g.plot.left() + x - 1, top + inset, 3, h - 2 * inset), eventToneColor(tone, m_theme));
        }
    }
}

void TimelineTrack::drawAlertTicks(QPainter &painter, const TimelineGeometry &g, double nearX) const
{
    if (!m_alertTicks || m_alertTicks->isEmpty())
        return;
    // As the lanes: the most severe alert per pixel column, so the cost is the plot's width.
    const int w = g.plot.width();
    std::vector<int> worst(size_t(std::max(1, w)), -1);
    for (const AlertTick &t : m_alertTicks->ticks()) {
        const double at = g.xOf(t.timeMs);
        if (!std::isnan(nearX) && std::abs(at - nearX) > 2 * kAlertHitPx)
            continue;
        const int x = std::clamp(int(std::lround(at)) - g.plot.left(), 0, w - 1);
        worst[size_t(x)] = std::max(worst[size_t(x)], int(t.severity));
    }
    // A downward triangle pointing at the lanes: a shape no change mark has. Outlined in the
    // panel colour so neighbours stay apart; the most severe drawn last, on top.
    const QRect row = alertRow();
    const double top = row.top() + 1.5, bottom = row.bottom() - 0.5;
    const double half = std::clamp((bottom - top) * 0.55, 3.0, 6.0);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(m_theme.panel, 1));
    for (int severity = int(AlertSeverity::Info); severity <= int(AlertSeverity::Critical); ++severity) {
        painter.setBrush(alertSeverityColor(AlertSeverity(severity), m_theme));
        for (int x = 0; x < w; ++x) {
            if (worst[size_t(x)] != severity)
                continue;
            const double cx = g.plot.left() + x + 0.5;
            painter.drawPolygon(QPolygonF{QPointF(cx - half, top), QPointF(cx + half, top), QPointF(cx, bottom)});
        }
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
}

QList<int> TimelineTrack::alertTicksNear(double x) const
{
    if (!m_alertTicks)
        return {};
    const TimelineGeometry g = geometry();
    const auto &ticks = m_alertTicks->ticks();
    struct Near {
        double distance;
        int severity;
        int index;
    };
    std::vector<Near> near;
    for (int i = 0; i < int(ticks.size()); ++i) {
        // From where the tick is drawn (its pixel column's centre), not where its time falls.
        const double distance = std::abs(double(std::lround(g.xOf(ticks[size_t(i)].timeMs))) + 0.5 - x);
        if (distance <= kAlertHitPx)
            near.push_back({distance, -int(ticks[size_t(i)].severity), i});
    }
    std::sort(near.begin(), near.end(), [](const Near &a, const Near &b) {
        return std::tie(a.distance, a.severity, a.index) < std::tie(b.distance, b.severity, b.index);
    });
    QList<int> out;
    out.reserve(qsizetype(near.size()));
    for (const Near &n : near)
        out << n.index;
    return out;
}

int TimelineTrack::alertTickAt(const QPointF &pos) const
{
    const QRectF row = QRectF(alertRow()).adjusted(-kAlertHitPx, -2, kAlertHitPx, 1);
    if (!row.contains(pos))
        return -1;
    const QList<int> near = alertTicksNear(pos.x());
    return near.isEmpty() ? -1 : near.first();
}

QString TimelineTrack::alertToolTip(const QPointF &pos) const
{
    if (alertTickAt(pos) < 0)
        return {};
    const QList<int> near = alertTicksNear(pos.x());
    const auto &ticks = m_alertTicks->ticks();
    const AlertTick &nearest = ticks[size_t(near.first())];
    QStringList lines{tr("<b>%1 UTC</b>: %n alert(s) began", nullptr, int(near.size()))
                          .arg(utcText(QDateTime::fromMSecsSinceEpoch(nearest.timeMs, Qt::UTC), QStringLiteral("yyyy-MM-dd HH:mm:ss")))};
    // The most severe first, whatever their distance: a critical one must not hide in "more".
    QList<int> bySeverity = near;
    std::stable_sort(bySeverity.begin(), bySeverity.end(), [&](int a, int b) { return ticks[size_t(a)].severity > ticks[size_t(b)].severity; });
    for (int k = 0; k < std::min<int>(kAlertToolTipLines, int(bySeverity.size())); ++k) {
        const AlertTick &t = ticks[size_t(bySeverity[k])];
        lines << QStringLiteral("%1 \u00b7 %2: %3").arg(severityText(t.severity), toText(t.kind), t.text.toHtmlEscaped());
    }
    if (bySeverity.size() > kAlertToolTipLines)
        lines << tr("... and %n more", nullptr, int(bySeverity.size()) - kAlertToolTipLines);
    return lines.join(QStringLiteral("<br>"));
}

void TimelineTrack::drawCursor(QPainter &painter, const TimelineGeometry &g) const
{
    if (!m_history || m_cursor < 0 || m_cursor >= m_history->size())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double x = std::round(g.xOf(m_history->time(m_cursor).toMSecsSinceEpoch())) + 0.5;
    const QColor color = m_live ? m_theme.ready : m_theme.selection;
    painter.setPen(QPen(color, 2));
    painter.drawLine(QPointF(x, g.plot.top() - 2), QPointF(x, g.plot.bottom() + 1));
    QPainterPath handle;
    handle.moveTo(x - 6, 1);
    handle.lineTo(x + 6, 1);
    handle.lineTo(x, kTopMargin - 1);
    handle.closeSubpath();
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawPath(handle);
    painter.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineTrack::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    if (const int tick = alertTickAt(event->position()); tick >= 0) {
        Q_EMIT alertTickClicked(tick); // the Timeline moves to its entry: no drag starts here
        return;
    }
    m_dragging = true;
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT scrubbed(i);
}

void TimelineTrack::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT scrubbed(i);
}

void TimelineTrack::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragging || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT released(i);
}

void TimelineTrack::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Left: Q_EMIT keyStep(-1); return;
    case Qt::Key_Right: Q_EMIT keyStep(+1); return;
    case Qt::Key_PageUp: Q_EMIT keyStep(-2); return;
    case Qt::Key_PageDown: Q_EMIT keyStep(+2); return;
    case Qt::Key_Home: Q_EMIT homePressed(); return;
    case Qt::Key_End: Q_EMIT endPressed(); return;
    default: QWidget::keyPressEvent(event);
    }
}

bool TimelineTrack::event(QEvent *event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    // Built at hover time (docs/style.md 12): the entry nearest the mouse and what changed in it.
    auto *help = static_cast<QHelpEvent *>(event);
    const TimelineGeometry g = geometry();
    if (help->pos().x() < g.plot.left()) {
        if (alertRow().top() <= help->pos().y() && help->pos().y() <= alertRow().bottom()) {
            QToolTip::showText(help->globalPos(), alertRowToolTip(), this);
            return true;
        }
        for (int lane = 0; lane < kTimelineLaneCount; ++lane)
            if (help->pos().y() >= laneTop(lane) && help->pos().y() < laneTop(lane) + laneHeight()) {
                QToolTip::showText(help->globalPos(), laneToolTip(lane), this);
                return true;
            }
    }
    if (const QString alerts = alertToolTip(help->pos()); !alerts.isEmpty()) {
        QToolTip::showText(help->globalPos(), alerts, this);
        return true;
    }
    const int i = entryAtX(help->pos().x());
    if (i < 0) {
        QToolTip::hideText();
        return true;
    }
    QStringList lines{QStringLiteral("<b>%1 UTC</b>").arg(utcText(m_history->time(i), QStringLiteral("yyyy-MM-dd HH:mm:ss")))};
    const QList<HistoryEvent> events = m_history->events(i);
    constexpr int kShown = 8;
    for (int k = 0; k < std::min<int>(kShown, int(events.size())); ++k)
        lines << events[k].text.toHtmlEscaped();
    if (events.size() > kShown)
        lines << tr("... and %n more", nullptr, int(events.size()) - kShown);
    if (events.isEmpty())
        lines << tr("nothing changed");
    QToolTip::showText(help->globalPos(), lines.join(QStringLiteral("<br>")), this);
    return true;
}

} // namespace slicescope
