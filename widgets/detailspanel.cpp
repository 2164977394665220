// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailspanel.h"

#include "externallinks.h"
#include "icons.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QMenu>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace slicescope {

namespace {

QString esc(const QString &s) { return s.toHtmlEscaped(); }

QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td style='padding-right:10px'><b>%1</b></td><td>%2</td></tr>").arg(esc(key), value);
}

QString groupLabel(const ClusterSnapshot &snap, const PlacementGroup &g)
{
    const QString name = snap.groupLabel(g); // an unnamed one by what it is, its job and its id
    // pg_per_slice: one request of several groups, "train_slice_1" is part of "train".
    return g.reservation.isEmpty() ? name
                                   : QStringLiteral("%1 (part of %2, %3 groups)").arg(name, g.reservation).arg(g.reservationSize);
}

} // namespace

DetailsPanel::DetailsPanel(QWidget *parent)
    : QWidget(parent)
    , m_text(new QTextBrowser(this))
{
    const auto makeButton = [this](IconKind kind, const QString &text, const QString &name) {
        auto *b = new QToolButton(this);
        b->setObjectName(name);
        b->setIcon(icon(kind));
        b->setText(text);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setAccessibleName(text); // also when the row is narrow and shows the icon alone
        b->setAutoRaise(true);
        return b;
    };
    m_copy = makeButton(IconKind::Copy, tr("Copy"), QStringLiteral("detailsCopy"));
    m_copy->setPopupMode(QToolButton::InstantPopup);
    m_copy->setMenu(new QMenu(m_copy));
    m_ray = makeButton(IconKind::RayDashboard, tr("Ray"), QStringLiteral("detailsRayDashboard"));
    connect(m_ray, &QToolButton::clicked, this, [this] {
        if (const QUrl url = m_ray->property("url").toUrl(); url.isValid())
            Q_EMIT openRequested(url);
    });
    m_console = makeButton(IconKind::CloudConsole, tr("Console"), QStringLiteral("detailsCloudConsole"));
    m_console->setPopupMode(QToolButton::InstantPopup);
    m_console->setMenu(new QMenu(m_console));
    auto *actions = new QHBoxLayout;
    actions->setContentsMargins(2, 2, 2, 0);
    actions->setSpacing(2);
    actions->addWidget(m_copy);
    actions->addWidget(m_ray);
    actions->addWidget(m_console);
    actions->addStretch(1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(actions);
    layout->addWidget(m_text);
    m_text->setOpenLinks(false);
    m_text->setFrameShape(QFrame::NoFrame);
    setMinimumWidth(200);
    show(nullptr, {});
}

void DetailsPanel::show(const SnapshotPtr &snapshot, const QString &sliceName, int workerId)
{
    m_snapshot = snapshot;
    m_slice = sliceName;
    m_worker = workerId;
    m_text->setHtml(snapshot ? html(*snapshot, sliceName, workerId, m_theme)
                             : tr("<p>Pick a slice in the overview to see its details.</p>"));
    updateActions();
}

void DetailsPanel::setRayDashboard(const QUrl &dashboard)
{
    m_dashboard = dashboard;
    updateActions();
}

void DetailsPanel::updateActions()
{
    const bool known = m_snapshot && m_snapshot->sliceIndex(m_slice) >= 0;
    QMenu *copy = m_copy->menu();
    copy->clear();
    if (known)
        for (const CopyItem &item : copyItems(*m_snapshot, m_slice, m_worker))
            copy->addAction(tr("%1: %2").arg(item.label, item.text.size() > 40 ? item.text.left(39) + u'…' : item.text), this,
                            [this, item] {
                                QGuiApplication::clipboard()->setText(item.text);
                                Q_EMIT notice(tr("Copied %1: %2").arg(item.label.toLower(), item.text));
                            });
    m_copy->setEnabled(!copy->isEmpty());
    m_copy->setToolTip(known ? tr("Copy a name or id, whole") : tr("No slice chosen"));

    const ExternalLink ray = known ? rayDashboardLink(m_dashboard, *m_snapshot, m_slice, m_worker) : ExternalLink{};
    m_ray->setProperty("url", ray.url);
    m_ray->setEnabled(ray.url.isValid());
    m_ray->setToolTip(ray.url.isValid() ? tr("Open %1 in the browser:\n%2").arg(ray.label, ray.url.toDisplayString())
                      : known           ? tr("%1: %2").arg(ray.label, ray.whyNot)
                                        : tr("No slice chosen"));

    QMenu *console = m_console->menu();
    console->clear();
    QStringList whyNot;
    bool any = false;
    if (known)
        for (const ExternalLink &link : cloudConsoleLinks(*m_snapshot, m_slice, m_worker)) {
            QAction *a = console->addAction(link.url.isValid() ? link.label : tr("%1 (%2)").arg(link.label, link.whyNot));
            a->setEnabled(link.url.isValid());
            any = any || link.url.isValid();
            if (!link.url.isValid())
                whyNot << link.whyNot;
            connect(a, &QAction::triggered, this, [this, url = link.url] { Q_EMIT openRequested(url); });
        }
    m_console->setEnabled(any);
    whyNot.removeDuplicates();
    m_console->setToolTip(any     ? tr("Open the Google Cloud console's page of the node pool, node or pod")
                          : known ? tr("Cloud console: %1").arg(whyNot.join(QStringLiteral("; ")))
                                  : tr("No slice chosen"));
}

void DetailsPanel::setTheme(const Theme &theme)
{
    m_theme = theme;
    show(m_snapshot, m_slice, m_worker);
}

QString DetailsPanel::plainText() const
{
    return m_text->toPlainText();
}

QString DetailsPanel::html(const ClusterSnapshot &snap, const QString &sliceName, int workerId, const Theme &theme)
{
    const int si = snap.sliceIndex(sliceName);
    if (si < 0)
        return tr("<p>Pick a slice in the overview to see its details.</p>");
    const Slice &s = snap.slices[si];
    QString out;
    const QColor statusColor = sliceStatusColor(s.status(), theme);
    out += QStringLiteral("<h3 style='margin:0'>%1</h3>").arg(esc(s.name));
    out += QStringLiteral("<p style='margin-top:2px'><span style='color:%1'><b>%2</b></span></p>").arg(statusColor.name(), esc(toText(s.status())));
    out += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    out += row(tr("Generation"), esc(s.generation ? s.generation->displayName : tr("unknown")));
    out += row(tr("Topology"), esc(s.topology.chips() ? QStringLiteral("%1 (%2)").arg(s.topology.toString(), s.podType) : tr("unknown")));
    // A name qualified in a fleet ends with its Ray name; one split inside a cluster does not.
    if (!s.rayName.isEmpty())
        out += row(tr("Ray name"), esc(s.name.endsWith(u'/' + s.rayName) ? tr("%1 (another cluster has a slice of this name)").arg(s.rayName)
                                                                         : tr("%1 (shared with other live hosts)").arg(s.rayName)));
    // In a fleet (several contexts or RayClusters' Rays) the slice says whose it is (issue 16).
    const bool fleet = snap.contexts.size() > 1 || std::count_if(snap.rayViews.cbegin(), snap.rayViews.cend(), [](const RayViewState &v) { return !v.cluster.isEmpty(); }) > 1;
    if (fleet && (!s.context.isEmpty() || !s.rayCluster.isEmpty()))
        out += row(tr("Cluster"), esc(s.context.isEmpty() ? s.rayCluster : s.rayCluster.isEmpty() ? tr("context %1").arg(s.context)
                                                                                                  : tr("%1 (context %2)").arg(s.rayCluster, s.context)));
    out += row(tr("Hosts"), tr("%1 × %2 chips").arg(s.hostCount()).arg(s.chipsPerHost));
    if (s.tpuPerChip > 1)
        out += row(tr("Ray TPU per chip"), esc(tr("%1 (RAY_TPU_RESOURCE_PER_CHIP)").arg(s.tpuPerChip)));
    out += row(tr("Reserved"), tr("%1 of %2 chips").arg(s.reservedChips).arg(s.chips()));
    if (s.headHeldBy >= 0) {
        const PlacementGroup &head = snap.placementGroups[s.headHeldBy];
        if (const PlacementGroup *partner = snap.headPartner(head))
            out += row(tr("Head reserved for"), esc(tr("%1 (head group %2)").arg(partner->name, head.id.left(PlacementGroup::kDisplayIdChars))));
        else
            out += row(tr("Head held by"), esc(groupLabel(snap, head)));
    }
    out += row(tr("Worker group"), esc(s.workerGroup.isEmpty() ? tr("none known") : s.workerGroup));
    out += row(tr("Known from"), esc(toText(s.source)));
    out += QStringLiteral("</table>");
    if (!s.problems.isEmpty()) {
        out += QStringLiteral("<p style='margin-bottom:0'><b>%1</b></p><ul style='margin-top:0'>").arg(tr("Why not intact"));
        for (const QString &p : s.problems)
            out += QStringLiteral("<li>%1</li>").arg(esc(p));
        out += QStringLiteral("</ul>");
    }

    // Who holds chips of this slice.
    QList<int> holders;
    for (const Host &h : s.hosts)
        for (const ChipUse &c : h.chips)
            if (c.placementGroup >= 0 && !holders.contains(c.placementGroup))
                holders << c.placementGroup;
    if (!holders.isEmpty()) {
        out += QStringLiteral("<p style='margin-bottom:0'><b>%1</b></p><ul style='margin-top:0'>").arg(tr("Placement groups"));
        for (int g : std::as_const(holders)) {
            const PlacementGroup &pg = snap.placementGroups[g];
            int chips = 0;
            for (const Host &h : s.hosts)
                for (const ChipUse &c : h.chips)
                    chips += c.placementGroup == g;
            out += QStringLiteral("<li><span style='color:%1'>■</span> %2 · %3 · %4 chips%5</li>")
                       .arg(placementGroupColor(pg.id).name(), esc(groupLabel(snap, pg)), esc(pg.state))
                       .arg(chips)
                       .arg(pg.detached ? tr(" · detached") : QString());
        }
        out += QStringLiteral("</ul>");
    }

    if (workerId >= 0 && workerId < s.hosts.size()) {
        const Host &h = s.hosts[workerId];
        const RayNode *n = h.rayNode >= 0 ? &snap.rayNodes[h.rayNode] : nullptr;
        const Pod *p = h.pod >= 0 ? &snap.pods[h.pod] : nullptr;
        const KubeNode *k = h.kubeNode >= 0 ? &snap.kubeNodes[h.kubeNode] : nullptr;
        out += QStringLiteral("<h4 style='margin-bottom:2px'>%1</h4>").arg(tr("Worker %1").arg(h.workerId));
        out += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
        out += row(tr("State"), QStringLiteral("<span style='color:%1'><b>%2</b></span>").arg(hostStateColor(h.state, theme).name(), toText(h.state)));
        out += row(tr("Ray node"), esc(n ? n->id.left(16) + QStringLiteral("…") : tr("none")));
        if (n && !n->stateMessage.isEmpty())
            out += row(tr("Ray says"), esc(n->stateMessage));
        out += row(tr("IP"), esc(n ? n->ip : p ? p->podIp
                                               : QString()));
        out += row(tr("Pod"), esc(p ? p->qualifiedName() : tr("none")));
        if (p)
            out += row(tr("Pod phase"), esc(p->phase + (p->terminating ? tr(" (terminating)") : QString())));
        if (p && !p->statusText().isEmpty())
            out += row(tr("Pod says"), esc(p->statusText()));
        if (p && !p->megascale.isEmpty())
            out += row(tr("Multislice"), esc(p->megascale.join(QStringLiteral(", "))));
        if (n && !n->subslices.isEmpty())
            out += row(tr("Subslices"), esc(n->subslices.join(QStringLiteral(", "))));
        out += row(tr("Kubernetes node"), esc(k ? k->name : p ? p->nodeName
                                                              : QString()));
        out += row(tr("Node pool"), esc(k ? k->nodePool : QString()));
        out += row(tr("Chips"), tr("%1 reserved of %2").arg(h.reservedChips()).arg(h.chips.size()));
        out += QStringLiteral("</table>");
    }
    return out;
}

void DetailsPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitActions();
}

void DetailsPanel::fitActions()
{
    // A narrow dock (the window at 1024 px) would cut "Console" to "Co...": then every button shows
    // its icon alone, its name in the tooltip and the accessible name, rather than some cut words.
    const QToolButton *buttons[] = {m_copy, m_ray, m_console};
    int wanted = 2 + 2 + 2 * 2; // the row's margins and spacing
    for (const QToolButton *b : buttons) {
        const int iconOnly = b->iconSize().width() + 12 + (b->menu() ? 12 : 0);
        wanted += iconOnly + b->fontMetrics().horizontalAdvance(b->text()) + 8;
    }
    const Qt::ToolButtonStyle style = wanted <= width() ? Qt::ToolButtonTextBesideIcon : Qt::ToolButtonIconOnly;
    for (QToolButton *b : {m_copy, m_ray, m_console})
        if (b->toolButtonStyle() != style)
            b->setToolButtonStyle(style);
}

} // namespace slicescope
