// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspace.h"

#include "detailspanel.h"
#include "fleetoverview.h"
#include "fleettables.h"
#include "flowlayout.h"
#include "history.h"
#include "icons.h"
#include "messagebar.h"
#include "navrail.h"
#include "searchfield.h"
#include "sliceview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace slicescope {

Workspace::Workspace(QWidget *parent)
    : QWidget(parent)
{
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_pages = new QStackedWidget(m_splitter);
    m_overview = new FleetOverview(m_pages);
    m_tables = new FleetTables(m_pages);
    m_pages->addWidget(makeOverviewPage());
    m_pages->addWidget(makeSlicePage());
    m_pages->addWidget(m_tables);
    // The rail: the pages in the order of Page, then the History toggle.
    m_rail = new NavRail(this);
    m_rail->addPage(IconKind::Overview, tr("Overview"), tr("The whole fleet, slice by slice (Ctrl+1)"))->setObjectName(QStringLiteral("railOverview"));
    m_rail->addPage(IconKind::Slice, tr("Slice"), tr("One slice as its 3D chip grid (Ctrl+2)"))->setObjectName(QStringLiteral("railSlice"));
    m_rail->addPage(IconKind::Tables, tr("Tables"), tr("Slices, hosts, placement groups and worker groups as tables (Ctrl+3)"))
        ->setObjectName(QStringLiteral("railTables"));
    m_historyButton = m_rail->addToggle(IconKind::History, tr("History"), tr("Charts of the fleet over time (the History panel)"));
    m_historyButton->setObjectName(QStringLiteral("railHistory"));
    m_historyButton->setVisible(false);
    connect(m_rail, &NavRail::pageChosen, this, [this](int index) { showPage(Page(index)); });
    m_details = new DetailsPanel(m_splitter);
    m_splitter->addWidget(m_pages);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 4);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({900, 280});
    m_splitter->setCollapsible(0, false);
    m_splitter->setObjectName(QStringLiteral("workspaceSplitter"));

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_rail);
    layout->addWidget(m_splitter, 1);

    connect(m_overview, &FleetOverview::sliceActivated, this, [this](const QString &name) {
        showSlice(name);
        showPage(Page::Slice);
    });
    connect(m_tables, &FleetTables::sliceActivated, this, [this](const QString &name) {
        showSlice(name);
        showPage(Page::Slice);
    });
    connect(m_sliceView, &SliceView::hostSelected, this, &Workspace::onHostSelected);
}

QWidget *Workspace::makeOverviewPage()
{
    auto *page = new QWidget(this);
    m_search = new QLineEdit(page);
    m_search->setObjectName(QStringLiteral("overviewSearch"));
    m_search->setPlaceholderText(tr("Search slices: name, generation, topology, group, holder, status..."));
    makeSearchField(m_search);
    connect(m_search, &QLineEdit::textChanged, m_overview, &FleetOverview::setFilterText);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->setSpacing(6);
    bar->addWidget(m_search, 1);
    // One toggle per status: what an operator filters by first ("show me what is broken").
    for (SliceStatus status : {SliceStatus::Ready, SliceStatus::Reserved, SliceStatus::Degraded, SliceStatus::Provisioning}) {
        auto *b = new QToolButton(page);
        b->setText(toText(status));
        b->setIcon(statusIcon(status));
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setCheckable(true);
        b->setToolTip(tr("Show only %1 slices (combine several)").arg(toText(status)));
        m_statusButtons.append({b, status});
        connect(b, &QToolButton::toggled, this, [this] {
            QList<SliceStatus> shown;
            for (const auto &[button, s] : std::as_const(m_statusButtons))
                if (button->isChecked())
                    shown << s;
            m_overview->setStatusFilter(shown);
        });
        bar->addWidget(b);
    }
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(makeFirstRunHint(page));
    layout->addWidget(m_overview, 1);
    return page;
}

QWidget *Workspace::makeFirstRunHint(QWidget *parent)
{
    m_hint = new QWidget(parent);
    m_hint->setObjectName(QStringLiteral("firstRunHint"));
    m_hintText = new MessageBar(m_hint);
    m_hintText->setObjectName(QStringLiteral("firstRunHintText"));
    m_hintText->setTextFormat(Qt::RichText);
    m_hintText->setText(tr("<b>New here?</b> Three things to try: <a href=\"slice\">open a slice</a> as its 3D chip grid (or click a tile), "
                           "<a href=\"palette\">find any slice, group or action</a> with Ctrl+K, and "
                           "<a href=\"reserve\">reserve slices</a> with a what-if preview first (Ctrl+R). Press ? for every key."));
    connect(m_hintText, &QLabel::linkActivated, this, &Workspace::hintLinkActivated);
    auto *close = new QToolButton(m_hint);
    close->setObjectName(QStringLiteral("firstRunHintClose"));
    close->setAutoRaise(true);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss these hints (Help > Getting started shows them again)"));
    connect(close, &QToolButton::clicked, this, [this] {
        m_hint->hide();
        Q_EMIT firstRunHintDismissed();
    });
    auto *row = new QHBoxLayout(m_hint);
    row->setContentsMargins(6, 0, 6, 4);
    row->setSpacing(2);
    row->addWidget(m_hintText, 1);
    row->addWidget(close, 0, Qt::AlignTop);
    m_hint->hide();
    return m_hint;
}

void Workspace::setFirstRunHintVisible(bool visible)
{
    m_hint->setVisible(visible);
}

bool Workspace::isFirstRunHintVisible() const
{
    return !m_hint->isHidden();
}

QWidget *Workspace::makeSlicePage()
{
    auto *page = new QWidget(this);
    m_sliceView = new SliceView(page);
    m_sliceCombo = new QComboBox(page);
    m_sliceCombo->setMinimumContentsLength(11);
    m_sliceCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_colorCombo = new QComboBox(page);
    m_colorCombo->addItem(tr("Worker id"), int(ColorMode::WorkerId));
    m_colorCombo->addItem(tr("Bundles"), int(ColorMode::Bundle));
    m_colorCombo->addItem(tr("State"), int(ColorMode::State));
    m_colorCombo->addItem(tr("Activity"), int(ColorMode::Activity));
    m_colorCombo->setCurrentIndex(1);
    m_activityCombo = new QComboBox(page);
    m_activityCombo->setObjectName(QStringLiteral("activityMetric"));
    m_activityCombo->addItem(tr("Duty cycle"), int(ActivityMetric::DutyCycle));
    m_activityCombo->addItem(tr("HBM used"), int(ActivityMetric::HbmUsed));
    m_activityCombo->setToolTip(tr("What the activity colours show: duty cycle, or HBM used of the chip's HBM"));
    m_activityCombo->setVisible(false);
    m_explode = new QSlider(Qt::Horizontal, page);
    m_explode->setRange(0, 20);
    m_explode->setFixedWidth(70);
    m_explode->setToolTip(tr("Gap between z-layers, to see inside 3D slices (E)"));
    m_zFirst = new QSpinBox(page);
    m_zLast = new QSpinBox(page);
    for (QSpinBox *box : {m_zFirst, m_zLast})
        box->setToolTip(tr("Show only these z-layers (PageUp / PageDown)"));
    m_links = new QCheckBox(tr("Links"), page);
    m_links->setToolTip(tr("Neighbour links; wrap-around links where the generation has them (L)"));

    // Camera presets sit behind one button so the bar fits a 900 px window.
    auto *camera = new QToolButton(page);
    camera->setText(tr("Camera"));
    camera->setToolTip(tr("Preset views (1, 2, 3) and reset (Home, or double-click)"));
    camera->setPopupMode(QToolButton::InstantPopup);
    auto *cameraMenu = new QMenu(camera);
    cameraMenu->addAction(tr("Isometric (1)"), m_sliceView, [this] { m_sliceView->setPreset(SliceView::Preset::Isometric); });
    cameraMenu->addAction(tr("Top (2)"), m_sliceView, [this] { m_sliceView->setPreset(SliceView::Preset::Top); });
    cameraMenu->addAction(tr("Front (3)"), m_sliceView, [this] { m_sliceView->setPreset(SliceView::Preset::Front); });
    cameraMenu->addSeparator();
    cameraMenu->addAction(tr("Reset (Home)"), m_sliceView, &SliceView::resetView);
    camera->setMenu(cameraMenu);

    m_sliceCombo->setToolTip(tr("The slice shown"));
    m_colorCombo->setToolTip(tr("What the chip colours mean"));
    // The bar wraps rather than squeezes (issue 17): at 1024x700 with the composer open the page
    // is about 390 px wide, and a one-row bar cut its combos to "v6" and "Bu". Each control keeps
    // its size hint; the labelled groups (Gap and its slider, z and its range) wrap as one.
    auto group = [page](std::initializer_list<QWidget *> widgets) {
        auto *box = new QWidget(page);
        auto *row = new QHBoxLayout(box);
        row->setContentsMargins(0, 0, 0, 0);
        row->setSpacing(4);
        for (QWidget *w : widgets)
            row->addWidget(w);
        return box;
    };
    auto *bar = new QWidget(page);
    bar->setObjectName(QStringLiteral("sliceBar"));
    auto *flow = new FlowLayout(bar, 6, 4);
    flow->setContentsMargins(6, 4, 6, 4);
    flow->setLastItemTrailing(true);
    flow->addWidget(m_sliceCombo);
    flow->addWidget(m_colorCombo);
    flow->addWidget(m_activityCombo);
    flow->addWidget(group({new QLabel(tr("Gap"), page), m_explode}));
    flow->addWidget(group({new QLabel(tr("z"), page), m_zFirst, new QLabel(QStringLiteral("–"), page), m_zLast}));
    flow->addWidget(m_links);
    flow->addWidget(camera);

    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(bar);
    layout->addWidget(m_sliceView, 1);

    connect(m_sliceCombo, &QComboBox::activated, this, [this](int index) { showSlice(m_sliceCombo->itemText(index)); });
    connect(m_colorCombo, &QComboBox::activated, this, [this](int index) { setColorMode(ColorMode(m_colorCombo->itemData(index).toInt())); });
    connect(m_activityCombo, &QComboBox::activated, this, [this](int index) {
        m_sliceView->setActivityMetric(ActivityMetric(m_activityCombo->itemData(index).toInt()));
    });
    connect(m_explode, &QSlider::valueChanged, m_sliceView, [this](int v) { m_sliceView->setExplode(v / 10.0); });
    connect(m_zFirst, &QSpinBox::valueChanged, this, [this] {
        m_sliceView->setLayerRange(m_zFirst->value(), std::max(m_zFirst->value(), m_zLast->value()));
    });
    connect(m_zLast, &QSpinBox::valueChanged, this, [this] {
        m_sliceView->setLayerRange(std::min(m_zFirst->value(), m_zLast->value()), m_zLast->value());
    });
    connect(m_links, &QCheckBox::toggled, m_sliceView, &SliceView::setLinksVisible);
    // Keyboard and mouse on the view change these too: keep the controls honest.
    connect(m_sliceView, &SliceView::projectionChanged, this, &Workspace::syncLayerControls);
    m_sliceView->setColorMode(ColorMode::Bundle);
    m_links->setChecked(m_sliceView->linksVisible());
    return page;
}

void Workspace::syncLayerControls()
{
    const QSignalBlocker b1(m_explode), b2(m_zFirst), b3(m_zLast), b4(m_links);
    m_explode->setValue(int(m_sliceView->explode() * 10 + 0.5));
    m_zFirst->setValue(m_sliceView->layerFirst());
    m_zLast->setValue(m_sliceView->layerLast());
    m_links->setChecked(m_sliceView->linksVisible());
}

void Workspace::setSnapshot(const SnapshotPtr &snapshot)
{
    m_snapshot = snapshot;
    m_overview->setSnapshot(snapshot);
    updateActivityHistory();
    m_tables->setSnapshot(snapshot);
    // The slice picker is refilled only when the slices themselves changed (most snapshots keep
    // them all; refilling thousands of items on every poll or scrub step costs tens of ms).
    QStringList names;
    if (snapshot) {
        names.reserve(snapshot->slices.size());
        for (const Slice &s : snapshot->slices)
            names.append(s.name);
    }
    if (names != m_sliceNames) {
        const QSignalBlocker blocker(m_sliceCombo);
        m_sliceCombo->clear();
        m_sliceCombo->addItems(names);
        m_sliceNames = names;
    }
    // Keep showing the same slice in the newer snapshot; else the first one.
    QString slice = m_slice;
    if (!snapshot || snapshot->sliceIndex(slice) < 0)
        slice = snapshot && !snapshot->slices.isEmpty() ? snapshot->slices.first().name : QString();
    const int selected = slice == m_slice ? m_sliceView->selectedHost() : -1;
    m_slice.clear();
    showSlice(slice);
    if (selected >= 0)
        selectHost(selected);
}

void Workspace::showPage(Page page)
{
    m_pages->setCurrentIndex(int(page));
    m_rail->setCurrentPage(int(page));
    if (page == Page::Tables)
        m_tables->refreshVisible(); // also when the window is not shown (screenshots)
}

Workspace::Page Workspace::page() const
{
    return Page(m_pages->currentIndex());
}

bool Workspace::showSlice(const QString &sliceName)
{
    if (!m_snapshot || m_snapshot->sliceIndex(sliceName) < 0) {
        m_sliceView->setSlice(m_snapshot, QString());
        m_details->show(m_snapshot, QString());
        return false;
    }
    const bool changed = sliceName != m_slice;
    m_slice = sliceName;
    m_sliceView->setSlice(m_snapshot, sliceName);
    m_sliceView->setIdleChips(m_idleChips.value(sliceName));
    m_overview->setCurrentSlice(sliceName);
    {
        const QSignalBlocker blocker(m_sliceCombo);
        m_sliceCombo->setCurrentText(sliceName);
        // Wide enough for the name shown (a fleet's qualified names are long), counted in the
        // narrow 'x' so it errs wide; never narrower than a demo name, never the whole bar.
        const QFontMetricsF fm(m_sliceCombo->font());
        const int chars = int(std::ceil(fm.horizontalAdvance(sliceName) / fm.horizontalAdvance(QLatin1Char('x'))));
        m_sliceCombo->setMinimumContentsLength(std::clamp(chars, 11, 48));
    }
    const Slice &s = m_snapshot->slices[m_snapshot->sliceIndex(sliceName)];
    const int layers = std::max(1, s.topology.dims.z);
    {
        const QSignalBlocker b1(m_zFirst), b2(m_zLast);
        m_zFirst->setRange(0, layers - 1);
        m_zLast->setRange(0, layers - 1);
    }
    m_zFirst->setEnabled(layers > 1);
    m_zLast->setEnabled(layers > 1);
    m_explode->setEnabled(layers > 1);
    syncLayerControls();
    m_details->show(m_snapshot, sliceName, m_sliceView->selectedHost());
    if (changed)
        Q_EMIT currentSliceChanged(sliceName);
    return true;
}

void Workspace::selectHost(int workerId)
{
    m_sliceView->selectHost(workerId);
    m_details->show(m_snapshot, m_slice, workerId);
}

void Workspace::onHostSelected(const QString &sliceName, int workerId)
{
    m_details->show(m_snapshot, sliceName, workerId);
}

void Workspace::setColorMode(ColorMode mode)
{
    m_sliceView->setColorMode(mode);
    m_colorCombo->setCurrentIndex(m_colorCombo->findData(int(mode)));
    // The metric picker is there only in Activity mode.
    m_activityCombo->setVisible(mode == ColorMode::Activity);
}

void Workspace::setActivityMetric(ActivityMetric metric)
{
    m_sliceView->setActivityMetric(metric);
    m_activityCombo->setCurrentIndex(m_activityCombo->findData(int(metric)));
}

ActivityMetric Workspace::activityMetric() const
{
    return m_sliceView->activityMetric();
}

void Workspace::setIdleChips(const QHash<QString, QList<IdleChip>> &bySlice)
{
    m_idleChips = bySlice;
    m_sliceView->setIdleChips(m_idleChips.value(m_slice));
}

void Workspace::setAlertCounts(const QHash<QString, int> &bySlice)
{
    m_overview->setAlertCounts(bySlice);
}

void Workspace::setHistory(const SnapshotHistory *history)
{
    if (m_history == history)
        return;
    disconnect(m_historyCleared);
    m_history = history;
    if (history)
        m_historyCleared = connect(history, &SnapshotHistory::cleared, this, &Workspace::updateActivityHistory);
    updateActivityHistory();
}

const SnapshotHistory *Workspace::history() const
{
    return m_history;
}

void Workspace::updateActivityHistory()
{
    // The shown snapshot's entry: the one at its time, when that entry is this very capture.
    int index = -1;
    if (m_history && m_snapshot && m_snapshot->capturedAt.isValid()) {
        index = m_history->indexAt(m_snapshot->capturedAt);
        if (index >= 0 && m_history->time(index) != m_snapshot->capturedAt)
            index = -1;
    }
    m_overview->setActivityHistory(index >= 0 ? FleetOverview::recentActivity(*m_history, index) : QHash<QString, QList<QPointF>>());
}

ColorMode Workspace::colorMode() const
{
    return m_sliceView->colorMode();
}

void Workspace::setTheme(const Theme &theme)
{
    m_theme = theme;
    m_sliceView->setTheme(theme);
    m_overview->setTheme(theme);
    m_details->setTheme(theme);
    m_tables->setTheme(theme);
    m_rail->setTheme(theme);
    m_hintText->setTheme(theme);
}

} // namespace slicescope
