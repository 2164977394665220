// SPDX-License-Identifier: GPL-3.0-or-later
// The view: its API, its state and the interaction. What a frame draws is built by
// SliceDrawOrder (slicedraworder.h) and painted by the steps of slicepaint.h and slicepanels.h
// from the sprites of slicesprites.h; geometry is SliceProjection's, colours are look.h's.
#include "sliceview.h"

#include "slicedraworder.h"
#include "slicepaint.h"
#include "slicepanels.h"
#include "slicesprites.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace slicescope {

using tpu::ChipCoord;

namespace {
constexpr double kFlatChip = 0.30; // chip height when a slice has one layer: tiles on a board
} // namespace

// ---- Private -----------------------------------------------------------------------------------

struct SliceView::Private {
    SliceView *q = nullptr;

    SliceScene scene; // what is shown, apart from the camera
    SliceProjection projection;
    // While set, the camera frames the whole slice: on open, on every resize, after a turn, a
    // preset, explode, a legend change. Cleared when the user zooms or pans; Home, a double
    // click, a preset or another slice set it again.
    bool autoFit = true;
    bool keyboardFocus = false; // the focus came from the keyboard, or a key was pressed since
    ChipPainting painting = ChipPainting::Sprites;

    // Mouse.
    enum class Drag
    {
        None,
        Rotate,
        Pan
    };
    Drag drag = Drag::None;
    QPoint pressPos, lastPos;
    bool dragMoved = false;

    SliceFrameCache cache; // what one frame keeps for the next: draw orders, sprites, panels

    // ---- Data ----
    void setData(const SnapshotPtr &snap, const QString &name);
    void rebuildChips();
    const Host *hostAt(ChipCoord c) const;
    int workerAt(ChipCoord c) const;
    // The scene with the widget's current font, as painting and framing need it.
    const SliceScene &sceneNow()
    {
        scene.font = q->font();
        return scene;
    }

    // ---- Camera and painting ----
    // `p` framed for `size`: the whole slice (every layer, so browsing layers never moves it)
    // inside the area the title, footer and legend leave.
    void fitTo(SliceProjection &p, QSize size);
    void fitCamera();
    void refitIfAuto()
    {
        if (autoFit)
            fitCamera();
    }
    void cameraChanged(bool userMoved);
    void paint(QPainter &painter, const SliceProjection &p, QSize size)
    {
        slicepaint::frame(painter, sceneNow(), p, size, painting == ChipPainting::Sprites, cache);
    }

    // ---- Interaction ----
    std::optional<ChipCoord> chipAt(QPointF pos);
    void setHovered(std::optional<ChipCoord> chip);
    void pickHost(int workerId);
};

// ---- Data --------------------------------------------------------------------------------------

void SliceView::Private::setData(const SnapshotPtr &snap, const QString &name)
{
    const bool sameSlice = !name.isEmpty() && name == scene.sliceName && scene.slice;
    const tpu::Dims oldDims = projection.dims();
    scene.snapshot = snap;
    scene.sliceName = name;
    if (!sameSlice)
        scene.idle.clear(); // host positions of another slice: never outline a stranger's chips
    scene.slice = nullptr;
    scene.sliceIndex = -1;
    if (scene.snapshot && !name.isEmpty()) {
        const int i = scene.snapshot->sliceIndex(name);
        if (i >= 0) {
            scene.slice = &scene.snapshot->slices[i];
            scene.sliceIndex = i;
        }
    }
    ++scene.dataVersion;
    if (!sameSlice || !scene.slice || !(scene.slice->layout.dims() == oldDims))
        scene.hovered.reset(); // a refresh of the same slice keeps the chip under the mouse outlined
    if (!scene.slice || !scene.slice->layout.isValid()) {
        scene.selected = -1;
        scene.chips = {};
        return;
    }
    const tpu::Dims dims = scene.slice->layout.dims();
    if (!sameSlice || !(dims == oldDims)) {
        // A different slice (or a reshaped one): a fresh camera. Explode is a display setting the
        // user chose, so it carries over.
        const double explode = projection.explode();
        const QSize viewport = projection.viewport();
        projection = SliceProjection(dims);
        projection.setViewport(viewport);
        projection.setChipHeight(dims.z == 1 ? kFlatChip : SliceProjection::kChipSize);
        projection.setExplode(explode);
        projection.applyPreset(SliceProjection::Preset::Isometric);
        if (!sameSlice)
            scene.selected = -1;
        autoFit = true;
        fitCamera();
    }
    if (scene.selected >= scene.slice->hosts.size())
        scene.selected = -1;
    rebuildChips();
}

void SliceView::Private::rebuildChips()
{
    ++scene.dataVersion;
    const bool laidOut = scene.slice && scene.slice->layout.isValid();
    scene.chips = laidOut ? SliceChips::build(*scene.snapshot, *scene.slice, scene.mode, scene.theme, scene.metric) : SliceChips{};
    if (!laidOut)
        return;
    const tpu::SliceLayout &layout = scene.slice->layout;
    for (const IdleChip &idle : std::as_const(scene.idle)) {
        if (idle.host < 0 || idle.host >= scene.slice->hosts.size() || idle.chip < 0 || idle.chip >= layout.chipsPerHost())
            continue;
        const int worker = scene.slice->hosts[idle.host].workerId;
        if (worker < 0 || worker >= layout.hostCount())
            continue;
        SliceChips::Chip &chip = scene.chips.chips[size_t(scene.chips.indexOf(layout.chipPosition(worker, idle.chip)))];
        if (chip.host == idle.host && !chip.ghost)
            chip.idle = true;
    }
}

const Host *SliceView::Private::hostAt(ChipCoord c) const
{
    if (!scene.slice || scene.chips.isEmpty() || !projection.isVisible(c))
        return nullptr;
    const int h = scene.chips.chips[size_t(scene.chips.indexOf(c))].host;
    return h >= 0 ? &scene.slice->hosts[h] : nullptr;
}

int SliceView::Private::workerAt(ChipCoord c) const
{
    const Host *h = hostAt(c);
    return h ? h->workerId : -1;
}

// ---- Camera ------------------------------------------------------------------------------------

void SliceView::Private::fitTo(SliceProjection &p, QSize size)
{
    if (size.isEmpty())
        return;
    const SliceScene &s = sceneNow();
    SliceProjection whole = p;
    whole.setViewport(size);
    whole.setLayerRange(0, p.dims().z - 1);
    whole.fit(slicepaint::sceneArea(s, size, q->fontMetrics()), slicepaint::fitExtent(s));
    p.setScale(whole.scale());
    p.setPan(whole.pan());
}

void SliceView::Private::fitCamera()
{
    fitTo(projection, projection.viewport());
}

void SliceView::Private::cameraChanged(bool userMoved)
{
    if (userMoved)
        autoFit = false;
    q->update();
    Q_EMIT q->projectionChanged();
}

// ---- Interaction -------------------------------------------------------------------------------

std::optional<ChipCoord> SliceView::Private::chipAt(QPointF pos)
{
    if (!scene.slice || scene.chips.isEmpty())
        return std::nullopt;
    // Only chips the picture shows: a chip skipped as hidden must not answer through a gap.
    const SliceDrawOrder &shown = cache.order(scene, projection, painting == ChipPainting::Sprites);
    return projection.hitTest(pos, [&](ChipCoord c) { return bool(shown.drawn()[size_t(scene.chips.indexOf(c))]); });
}

void SliceView::Private::setHovered(std::optional<ChipCoord> chip)
{
    if (chip == scene.hovered)
        return;
    scene.hovered = chip;
    q->update();
}

void SliceView::Private::pickHost(int workerId)
{
    if (workerId == scene.selected)
        return;
    scene.selected = workerId;
    q->update();
    Q_EMIT q->hostSelected(scene.sliceName, workerId);
}

// ---- SliceView ---------------------------------------------------------------------------------

SliceView::SliceView(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent); // every pixel is painted: skip Qt's background fill
    setMinimumSize(240, 180);
}

SliceView::~SliceView() = default;

void SliceView::setSlice(const SnapshotPtr &snapshot, const QString &sliceName)
{
    const SliceProjection before = d->projection;
    d->setData(snapshot, sliceName);
    d->refitIfAuto(); // a newer snapshot may change the legend beside the slice
    update();
    if (!(before == d->projection))
        Q_EMIT projectionChanged();
}

QString SliceView::sliceName() const
{
    return d->scene.sliceName;
}

void SliceView::setColorMode(ColorMode mode)
{
    if (d->scene.mode == mode)
        return;
    d->scene.mode = mode;
    d->rebuildChips();
    d->refitIfAuto(); // the legend beside the slice changes with the mode
    update();
}

ColorMode SliceView::colorMode() const
{
    return d->scene.mode;
}

void SliceView::setActivityMetric(ActivityMetric metric)
{
    if (d->scene.metric == metric)
        return;
    d->scene.metric = metric;
    d->rebuildChips();
    d->refitIfAuto();
    update();
}

ActivityMetric SliceView::activityMetric() const
{
    return d->scene.metric;
}

void SliceView::setIdleChips(const QList<IdleChip> &chips)
{
    if (d->scene.idle == chips)
        return;
    d->scene.idle = chips;
    d->rebuildChips();
    d->refitIfAuto(); // the legend counts idle chips
    update();
}

QList<IdleChip> SliceView::idleChips() const
{
    return d->scene.idle;
}

void SliceView::setTheme(const Theme &theme)
{
    d->scene.theme = theme;
    d->rebuildChips(); // colours come from the theme; sprites follow via their key
    update();
}

void SliceView::setPreset(Preset preset)
{
    switch (preset) {
    case Preset::Isometric: d->projection.applyPreset(SliceProjection::Preset::Isometric); break;
    case Preset::Top: d->projection.applyPreset(SliceProjection::Preset::Top); break;
    case Preset::Front: d->projection.applyPreset(SliceProjection::Preset::Front); break;
    }
    d->autoFit = true;
    d->fitCamera();
    d->cameraChanged(false);
}

void SliceView::resetView()
{
    d->projection.applyPreset(SliceProjection::Preset::Isometric);
    d->projection.setLayerRange(0, d->projection.dims().z - 1);
    d->autoFit = true;
    d->fitCamera();
    d->cameraChanged(false);
}

const SliceProjection &SliceView::projection() const
{
    return d->projection;
}

void SliceView::setProjection(const SliceProjection &projection)
{
    SliceProjection p = projection;
    p.setDims(d->projection.dims());
    p.setViewport(d->projection.viewport());
    if (p == d->projection)
        return;
    d->projection = p;
    d->cameraChanged(true);
}

void SliceView::setExplode(double gap)
{
    const double before = d->projection.explode();
    d->projection.setExplode(gap);
    if (d->projection.explode() == before)
        return;
    // Exploding makes a 3D slice taller: reframe unless the user placed the camera.
    d->refitIfAuto();
    d->cameraChanged(false);
}

double SliceView::explode() const
{
    return d->projection.explode();
}

void SliceView::setLayerRange(int zFirst, int zLast)
{
    const int first = d->projection.layerFirst(), last = d->projection.layerLast();
    d->projection.setLayerRange(zFirst, zLast);
    if (first == d->projection.layerFirst() && last == d->projection.layerLast())
        return;
    d->cameraChanged(false);
}

int SliceView::layerFirst() const
{
    return d->projection.layerFirst();
}

int SliceView::layerLast() const
{
    return d->projection.layerLast();
}

void SliceView::setLinksVisible(bool visible)
{
    if (d->scene.linksVisible == visible)
        return;
    d->scene.linksVisible = visible;
    update();
}

bool SliceView::linksVisible() const
{
    return d->scene.linksVisible;
}

void SliceView::setLegendVisible(bool visible)
{
    if (d->scene.legendVisible == visible)
        return;
    d->scene.legendVisible = visible;
    d->refitIfAuto();
    update();
}

void SliceView::selectHost(int workerId)
{
    if (!d->scene.slice || workerId < 0 || workerId >= d->scene.slice->hosts.size())
        workerId = -1;
    if (d->scene.selected == workerId)
        return;
    d->scene.selected = workerId;
    update();
}

int SliceView::selectedHost() const
{
    return d->scene.selected;
}

void SliceView::setHighlightedHosts(const QList<int> &workerIds)
{
    if (d->scene.highlighted == workerIds)
        return;
    d->scene.highlighted = workerIds;
    d->refitIfAuto(); // the legend beside the slice names the plan
    update();
}

QList<int> SliceView::highlightedHosts() const
{
    return d->scene.highlighted;
}

QRectF SliceView::legendRect() const
{
    return slicepaint::legendRect(d->scene, size(), fontMetrics());
}

QStringList SliceView::legendTexts() const
{
    QStringList texts;
    if (!d->scene.slice || !d->scene.snapshot)
        return texts;
    for (const LegendEntry &e : slicepaint::legendEntries(d->scene))
        texts << e.label;
    return texts;
}

QString SliceView::tooltipAt(QPoint position) const
{
    const auto chip = d->chipAt(position);
    return chip ? slicepaint::chipTooltip(d->scene, *chip) : QString();
}

void SliceView::render(QPainter &painter, QSize size)
{
    SliceProjection p = d->projection;
    if (p.viewport() != size) {
        const QSize old = p.viewport();
        p.setViewport(size);
        if (old.isEmpty() || d->autoFit) {
            // Not yet laid out (a hidden widget, a headless render), or framed by the view:
            // frame the slice for `size`.
            d->fitTo(p, size);
        } else {
            const double k = std::min(double(size.width()) / old.width(), double(size.height()) / old.height());
            p.setScale(p.scale() * k);
            p.setPan(p.pan() * k);
        }
    }
    d->paint(painter, p, size);
}

void SliceView::setChipPainting(ChipPainting painting)
{
    if (d->painting == painting)
        return;
    d->painting = painting;
    update();
}

SliceView::ChipPainting SliceView::chipPainting() const
{
    return d->painting;
}

QSize SliceView::sizeHint() const
{
    return QSize(900, 640);
}

void SliceView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (d->projection.viewport() != size())
        d->projection.setViewport(size());
    d->paint(painter, d->projection, size());
    if (showsFocusRing()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(d->scene.theme.selection, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRoundedRect(QRectF(rect()).adjusted(2, 2, -2, -2), 4, 4);
    }
}

bool SliceView::showsFocusRing() const
{
    return hasFocus() && d->keyboardFocus;
}

void SliceView::focusInEvent(QFocusEvent *event)
{
    d->keyboardFocus = event->reason() != Qt::MouseFocusReason;
    QWidget::focusInEvent(event);
    update();
}

void SliceView::focusOutEvent(QFocusEvent *event)
{
    QWidget::focusOutEvent(event);
    update();
}

void SliceView::resizeEvent(QResizeEvent *)
{
    const QSize old = d->projection.viewport();
    d->projection.setViewport(size());
    if (d->autoFit || old.isEmpty())
        d->fitCamera();
    // Otherwise pan is relative to the centre: the slice stays where it was relative to it.
}

void SliceView::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    d->pressPos = d->lastPos = event->position().toPoint();
    d->dragMoved = false;
    const bool pan = event->button() == Qt::RightButton || event->button() == Qt::MiddleButton
                     || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    d->drag = pan ? Private::Drag::Pan : event->button() == Qt::LeftButton ? Private::Drag::Rotate
                                                                           : Private::Drag::None;
    event->accept();
}

void SliceView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (d->drag == Private::Drag::None) {
        d->setHovered(d->chipAt(pos));
        return;
    }
    if (!d->dragMoved && (pos - d->pressPos).manhattanLength() < QApplication::startDragDistance())
        return;
    if (!d->dragMoved) {
        d->dragMoved = true;
        QToolTip::hideText();
        d->setHovered(std::nullopt);
    }
    const QPoint delta = pos - d->lastPos;
    d->lastPos = pos;
    if (d->drag == Private::Drag::Rotate) {
        // Half a degree per pixel: a drag across a typical view turns the slice about once.
        d->projection.rotateBy(delta.x() * 0.5, delta.y() * 0.5);
        d->refitIfAuto(); // a turned slice covers another shape: keep all of it in view
        d->cameraChanged(false);
    } else {
        d->projection.setPan(d->projection.pan() + QPointF(delta));
        d->cameraChanged(true);
    }
}

void SliceView::mouseReleaseEvent(QMouseEvent *event)
{
    const bool click = !d->dragMoved && d->drag != Private::Drag::None && event->button() == Qt::LeftButton
                       && !(event->modifiers() & Qt::ShiftModifier);
    d->drag = Private::Drag::None;
    if (click)
        if (const auto chip = d->chipAt(event->position())) {
            const int w = d->workerAt(*chip);
            if (w >= 0)
                d->pickHost(w);
        }
    d->setHovered(d->chipAt(event->position()));
}

void SliceView::wheelEvent(QWheelEvent *event)
{
    const QPoint steps = event->angleDelta();
    if (steps.y() == 0) {
        event->ignore();
        return;
    }
    // One notch (120) zooms by about 19%, about the point under the cursor.
    d->projection.zoomAbout(event->position(), std::pow(2.0, steps.y() / 480.0));
    d->setHovered(std::nullopt);
    d->cameraChanged(true);
    event->accept();
}

void SliceView::keyPressEvent(QKeyEvent *event)
{
    if (!d->keyboardFocus) {
        d->keyboardFocus = true;
        update();
    }
    SliceProjection &p = d->projection;
    constexpr double kTurn = 15;
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    // Arrows turn the slice the way dragging in that direction does.
    case Qt::Key_Left:
        p.rotateBy(-kTurn, 0);
        d->refitIfAuto();
        d->cameraChanged(false);
        break;
    case Qt::Key_Right:
        p.rotateBy(kTurn, 0);
        d->refitIfAuto();
        d->cameraChanged(false);
        break;
    case Qt::Key_Up:
        p.rotateBy(0, -kTurn);
        d->refitIfAuto();
        d->cameraChanged(false);
        break;
    case Qt::Key_Down:
        p.rotateBy(0, kTurn);
        d->refitIfAuto();
        d->cameraChanged(false);
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        p.zoomAbout(centre, 1.25);
        d->cameraChanged(true);
        break;
    case Qt::Key_Minus:
    case Qt::Key_Underscore:
        p.zoomAbout(centre, 1 / 1.25);
        d->cameraChanged(true);
        break;
    case Qt::Key_1: setPreset(Preset::Isometric); break;
    case Qt::Key_2: setPreset(Preset::Top); break;
    case Qt::Key_3: setPreset(Preset::Front); break;
    case Qt::Key_Home: resetView(); break;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        // Browse layers: from the whole slice, PageDown shows the top layer alone and PageUp the
        // bottom one; after that both move the shown range by one layer, keeping its width.
        const int z = p.dims().z;
        if (z <= 1)
            break;
        const bool down = event->key() == Qt::Key_PageDown;
        if (p.isFullLayerRange()) {
            setLayerRange(down ? z - 1 : 0, down ? z - 1 : 0);
        } else {
            const int shift = down ? -1 : 1;
            if (p.layerFirst() + shift >= 0 && p.layerLast() + shift < z)
                setLayerRange(p.layerFirst() + shift, p.layerLast() + shift);
        }
        break;
    }
    case Qt::Key_E: setExplode(p.explode() > 0 ? 0.0 : 1.0); break;
    case Qt::Key_L: setLinksVisible(!d->scene.linksVisible); break;
    case Qt::Key_BracketRight:
    case Qt::Key_BracketLeft: {
        if (!d->scene.slice || d->scene.slice->hosts.isEmpty())
            break;
        const int n = int(d->scene.slice->hosts.size());
        const int step = event->key() == Qt::Key_BracketRight ? 1 : -1;
        d->pickHost(d->scene.selected < 0 ? (step > 0 ? 0 : n - 1) : ((d->scene.selected + step) % n + n) % n);
        break;
    }
    case Qt::Key_Escape:
        if (d->scene.selected >= 0)
            d->pickHost(-1);
        else
            event->ignore();
        break;
    default: QWidget::keyPressEvent(event); return;
    }
}

bool SliceView::event(QEvent *event)
{
    switch (event->type()) {
    case QEvent::ToolTip: {
        // Built only now, for the one chip under the cursor.
        auto *help = static_cast<QHelpEvent *>(event);
        const auto chip = d->chipAt(help->pos());
        if (!chip) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        // The tooltip stays while the cursor is on this chip's outline.
        QToolTip::showText(help->globalPos(), slicepaint::chipTooltip(d->scene, *chip), this, d->projection.chipOutline(*chip).boundingRect().toAlignedRect());
        return true;
    }
    case QEvent::KeyPress: {
        // Tab moves the selection between hosts rather than focus between widgets.
        auto *key = static_cast<QKeyEvent *>(event);
        if ((key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab) && !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier))
            && d->scene.slice && !d->scene.slice->hosts.isEmpty()) {
            const bool back = key->key() == Qt::Key_Backtab || (key->modifiers() & Qt::ShiftModifier);
            QKeyEvent bracket(QEvent::KeyPress, back ? Qt::Key_BracketLeft : Qt::Key_BracketRight, Qt::NoModifier);
            keyPressEvent(&bracket);
            return true;
        }
        break;
    }
    case QEvent::MouseButtonDblClick:
        if (static_cast<QMouseEvent *>(event)->button() == Qt::LeftButton) {
            resetView();
            return true;
        }
        break;
    case QEvent::Leave:
        d->setHovered(std::nullopt);
        break;
    case QEvent::FontChange: // the title, footer and legend take another room
        d->refitIfAuto();
        break;
    default: break;
    }
    return QWidget::event(event);
}

} // namespace slicescope