// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowsettings.h"

#include "mainwindow.h"
#include "fleetoverview.h"
#include "thresholdtext.h"
#include "workspace.h"

#include <QSettings>
#include <QSplitter>

namespace slicescope {

namespace {

const QString kMaxAgeKey = QStringLiteral("history/maxAgeSeconds");
const QString kMaxBytesKey = QStringLiteral("history/maxBytes");

QString thresholdKey(ThresholdField field)
{
    return QStringLiteral("alerts/") + optionName(field);
}

} // namespace

HistoryPolicy readHistoryPolicy()
{
    HistoryPolicy policy;
    QSettings settings;
    policy.maxAgeSeconds = settings.value(kMaxAgeKey, policy.maxAgeSeconds).toLongLong();
    policy.maxBytes = settings.value(kMaxBytesKey, policy.maxBytes).toLongLong();
    return policy;
}

void writeHistoryPolicy(const HistoryPolicy &policy)
{
    QSettings settings;
    settings.setValue(kMaxAgeKey, policy.maxAgeSeconds);
    settings.setValue(kMaxBytesKey, policy.maxBytes);
}

AlertThresholds readAlertThresholds()
{
    AlertThresholds thresholds;
    QSettings settings;
    for (const ThresholdField field : kThresholdFields)
        if (settings.contains(thresholdKey(field)))
            (void)setThreshold(&thresholds, field, settings.value(thresholdKey(field)).toString()); // refused: the default stays
    return thresholds;
}

void writeAlertThresholds(const AlertThresholds &thresholds)
{
    QSettings settings;
    for (const ThresholdField field : kThresholdFields)
        settings.setValue(thresholdKey(field), thresholdText(thresholds, field));
}

void restoreWindowSettings(MainWindow &window)
{
    QSettings settings;
    window.restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    window.restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    window.workspace()->splitter()->restoreState(settings.value(QStringLiteral("window/splitter")).toByteArray());
    if (const auto mode = colorModeFromText(settings.value(QStringLiteral("view/color")).toString()))
        window.workspace()->setColorMode(*mode);
    window.setTheme(Theme::named(settings.value(QStringLiteral("view/theme"), QStringLiteral("light")).toString()));
    window.setNotifyAlerts(settings.value(QStringLiteral("alerts/notify"), false).toBool());
    window.setOverviewOrder(settings.value(QStringLiteral("view/overviewOrder")).toString() == QLatin1String("generation") ? FleetOrder::GenerationFirst
                                                                                                                           : FleetOrder::ContextFirst);
    // Folded groups and sections, by key (a context, a RayCluster, a worker group): bounded, as
    // anything read back from settings is.
    window.workspace()->overview()->setCollapsedKeys(settings.value(QStringLiteral("view/overviewFolded")).toStringList().mid(0, 1024));
    // The first-run hints stay until dismissed (MainWindow writes that at once).
    window.workspace()->setFirstRunHintVisible(!settings.value(QStringLiteral("hints/firstRunDismissed"), false).toBool());
    if (!settings.contains(QStringLiteral("window/geometry")))
        window.resize(1280, 800);
}

void saveWindowSettings(const MainWindow &window)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), window.saveGeometry());
    settings.setValue(QStringLiteral("window/state"), window.saveState());
    settings.setValue(QStringLiteral("window/splitter"), window.workspace()->splitter()->saveState());
    settings.setValue(QStringLiteral("view/color"), toText(window.workspace()->colorMode()));
    settings.setValue(QStringLiteral("alerts/notify"), window.notifyAlerts());
    settings.setValue(QStringLiteral("view/overviewOrder"),
                      window.workspace()->overview()->order() == FleetOrder::GenerationFirst ? QStringLiteral("generation") : QStringLiteral("context"));
    settings.setValue(QStringLiteral("view/overviewFolded"), window.workspace()->overview()->collapsedKeys());
    settings.setValue(QStringLiteral("view/theme"), window.workspace()->theme().isDark ? QStringLiteral("dark") : QStringLiteral("light"));
}

} // namespace slicescope
