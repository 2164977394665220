// SPDX-License-Identifier: GPL-3.0-or-later
// The activity table (model/activity.h): its accessors and builder. The join of the captured
// bodies to the chips is activityjoin.cpp.
#include "activity.h"

#include "snapshot.h"

#include <cstring>
#include <vector>

namespace slicescope {

QString toText(ActivitySource source)
{
    switch (source) {
    case ActivitySource::None: return QStringLiteral("none");
    case ActivitySource::RayNodeSummary: return QStringLiteral("ray-node-summary");
    case ActivitySource::RayMetrics: return QStringLiteral("ray-metrics");
    case ActivitySource::DevicePlugin: return QStringLiteral("device-plugin");
    }
    return QStringLiteral("none");
}

qint64 ChipActivity::ageSeconds(const QDateTime &at) const
{
    if (sampledAtMs <= 0 || !at.isValid())
        return -1;
    return std::max<qint64>(0, (at.toMSecsSinceEpoch() - sampledAtMs) / 1000);
}

namespace {
template<typename T>
bool sameNumber(T a, T b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}
} // namespace

bool operator==(const ChipActivity &a, const ChipActivity &b)
{
    return sameNumber(a.dutyCycle, b.dutyCycle) && sameNumber(a.tensorcoreUtilization, b.tensorcoreUtilization)
           && sameNumber(a.hbmBandwidthUtilization, b.hbmBandwidthUtilization) && sameNumber(a.hbmUsedBytes, b.hbmUsedBytes)
           && sameNumber(a.hbmTotalBytes, b.hbmTotalBytes) && sameNumber(a.windowMaxDutyCycle, b.windowMaxDutyCycle)
           && a.windowSeconds == b.windowSeconds && a.windowCovered == b.windowCovered && a.sampledAtMs == b.sampledAtMs && a.source == b.source;
}

void ActivityCounts::add(const ChipActivity &a)
{
    ++chips;
    if (!a.reports())
        return;
    ++reporting;
    if (a.hasDutyCycle()) {
        ++withDutyCycle;
        dutyCycleSum += a.dutyCycle;
    }
    if (!std::isnan(a.hbmUsedBytes) && !std::isnan(a.hbmTotalBytes) && a.hbmTotalBytes > 0) {
        hbmUsedBytes += a.hbmUsedBytes;
        hbmTotalBytes += a.hbmTotalBytes;
    }
}

const ChipActivity *ActivityTable::chip(int slice, int host, int chip) const
{
    if (slice < 0 || slice + 1 >= m_sliceFirstHost.size())
        return nullptr;
    const qint32 h = m_sliceFirstHost[slice] + host;
    if (host < 0 || h >= m_sliceFirstHost[slice + 1])
        return nullptr;
    const qint32 c = m_hostFirstChip[h] + chip;
    if (chip < 0 || c >= m_hostFirstChip[h + 1])
        return nullptr;
    return &m_chips[c];
}

QString ActivityTable::unknownReason(int slice, int host) const
{
    if (slice < 0 || slice + 1 >= m_sliceFirstHost.size())
        return {};
    const qint32 h = m_sliceFirstHost[slice] + host;
    if (host < 0 || h >= m_sliceFirstHost[slice + 1] || m_hostReason[h] < 0)
        return {};
    return m_reasons.value(m_hostReason[h]);
}

ActivityCounts ActivityTable::hostCounts(int slice, int host) const
{
    ActivityCounts counts;
    if (slice < 0 || slice + 1 >= m_sliceFirstHost.size())
        return counts;
    const qint32 h = m_sliceFirstHost[slice] + host;
    if (host < 0 || h >= m_sliceFirstHost[slice + 1])
        return counts;
    for (qint32 c = m_hostFirstChip[h]; c < m_hostFirstChip[h + 1]; ++c)
        counts.add(m_chips[c]);
    return counts;
}

void ActivityCounts::merge(const ActivityCounts &o)
{
    chips += o.chips;
    reporting += o.reporting;
    withDutyCycle += o.withDutyCycle;
    dutyCycleSum += o.dutyCycleSum;
    hbmUsedBytes += o.hbmUsedBytes;
    hbmTotalBytes += o.hbmTotalBytes;
}

ActivityCounts ActivityTable::sliceCounts(int slice) const
{
    ActivityCounts counts;
    if (slice < 0 || slice + 1 >= m_sliceFirstHost.size())
        return counts;
    for (qint32 c = m_hostFirstChip[m_sliceFirstHost[slice]]; c < m_hostFirstChip[m_sliceFirstHost[slice + 1]]; ++c)
        counts.add(m_chips[c]);
    return counts;
}

qint64 ActivityTable::bytes() const
{
    qint64 n = qint64(sizeof(ActivityTable)) + qint64(m_chips.size()) * qint64(sizeof(ChipActivity))
               + qint64(m_sliceFirstHost.size() + m_hostFirstChip.size() + m_hostReason.size()) * 4;
    for (const QString &r : m_reasons)
        n += 32 + r.size() * 2;
    for (const QString &t : sources)
        n += 32 + t.size() * 2;
    for (const QString &t : problems)
        n += 32 + t.size() * 2;
    for (const SourceError &e : sourceErrors)
        n += 64 + (e.source.size() + e.message.size()) * 2;
    return n;
}

ActivityTableBuilder::ActivityTableBuilder(const ClusterSnapshot &snapshot)
    : m_snapshot(snapshot)
{
    qint32 hosts = 0, chips = 0;
    m_table.m_sliceFirstHost.reserve(snapshot.slices.size() + 1);
    for (const Slice &s : snapshot.slices) {
        m_table.m_sliceFirstHost.append(hosts);
        for (const Host &h : s.hosts) {
            m_table.m_hostFirstChip.append(chips);
            chips += qint32(h.chips.size());
            ++hosts;
        }
    }
    m_table.m_sliceFirstHost.append(hosts);
    m_table.m_hostFirstChip.append(chips);
    m_table.m_hostReason.fill(-1, hosts);
    m_table.m_chips.resize(chips);
}

ChipActivity *ActivityTableBuilder::chip(int slice, int host, int chip)
{
    const ChipActivity *c = m_table.chip(slice, host, chip);
    return c ? &m_table.m_chips[c - m_table.m_chips.constData()] : nullptr;
}

void ActivityTableBuilder::setUnknownReason(int slice, int host, const QString &reason)
{
    if (slice < 0 || slice + 1 >= m_table.m_sliceFirstHost.size())
        return;
    const qint32 h = m_table.m_sliceFirstHost[slice] + host;
    if (host < 0 || h >= m_table.m_sliceFirstHost[slice + 1])
        return;
    qsizetype at = m_table.m_reasons.indexOf(reason);
    if (at < 0) {
        at = m_table.m_reasons.size();
        m_table.m_reasons.append(reason);
    }
    m_table.m_hostReason[h] = qint32(at);
}

std::shared_ptr<const ActivityTable> ActivityTableBuilder::finish()
{
    m_table.m_reporting = 0;
    qint64 newest = 0;
    for (const ChipActivity &c : std::as_const(m_table.m_chips)) {
        if (c.reports())
            ++m_table.m_reporting;
        newest = std::max(newest, c.sampledAtMs);
    }
    // The summaries the charts and tiles read without walking chips. A placement group's counts
    // are summed in a list first, keyed by its id once per group rather than once per chip (39k
    // chips of a 10k-node cluster); the map is filled in the order its keys were first met.
    const ClusterSnapshot &s = m_snapshot;
    std::vector<int> groupSlot(size_t(s.placementGroups.size()), -1); // per group, its place in groupCounts
    QHash<QString, int> slotOfId;
    std::vector<ActivityCounts> groupCounts;
    std::vector<QString> groupIds;
    for (int si = 0; si < s.slices.size(); ++si) {
        const Slice &slice = s.slices[si];
        ActivityCounts sliceCounts;
        for (int hi = 0; hi < slice.hosts.size(); ++hi) {
            const Host &h = slice.hosts[hi];
            for (int c = 0; c < h.chips.size(); ++c) {
                const ChipActivity *a = m_table.chip(si, hi, c);
                if (!a) continue;
                sliceCounts.add(*a);
                const int g = h.chips[c].placementGroup;
                if (g < 0 || g >= s.placementGroups.size()) continue;
                int &slot = groupSlot[size_t(g)];
                if (slot < 0) {
                    const QString &id = s.placementGroups[g].id;
                    const auto it = slotOfId.constFind(id);
                    if (it != slotOfId.cend()) {
                        slot = *it;
                    } else {
                        slot = int(groupCounts.size());
                        slotOfId.insert(id, slot);
                        groupCounts.emplace_back();
                        groupIds.push_back(id);
                    }
                }
                groupCounts[size_t(slot)].add(*a);
            }
        }
        m_table.fleet.merge(sliceCounts);
        if (!slice.workerGroup.isEmpty())
            m_table.byWorkerGroup[slice.workerGroup].merge(sliceCounts);
        m_table.bySlice.insert(slice.name, sliceCounts);
    }
    for (size_t i = 0; i < groupCounts.size(); ++i)
        m_table.byPlacementGroup.insert(groupIds[i], groupCounts[i]);
    if (newest > 0)
        m_table.newestSampleAt = QDateTime::fromMSecsSinceEpoch(newest, Qt::UTC);
    return std::make_shared<const ActivityTable>(std::move(m_table));
}

namespace promql {
QString windowMaxQuery(int seconds)
{
    return QStringLiteral("max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[%1s]) and ray_tpu_duty_cycle offset %1s)").arg(seconds);
}

int windowOfQuery(const QString &query, bool *covered)
{
    static const QString legacyPrefix = QStringLiteral("max_over_time(ray_tpu_duty_cycle[");
    static const QString prefix = QStringLiteral("max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[");
    const bool current = query.startsWith(prefix);
    if (!current && !query.startsWith(legacyPrefix))
        return 0;
    const qsizetype from = current ? prefix.size() : legacyPrefix.size();
    const qsizetype close = query.indexOf(QLatin1String("s])"), from);
    if (close < 0)
        return 0;
    bool ok = false;
    const int seconds = query.mid(from, close - from).toInt(&ok);
    if (!ok || seconds <= 0 || seconds > 7 * 24 * 3600)
        return 0;
    // Exactly the query asked, nothing more or less: a capture's other PromQL is not ours to read.
    if (query != (current ? windowMaxQuery(seconds) : QStringLiteral("max_over_time(ray_tpu_duty_cycle[%1s])").arg(seconds)))
        return 0;
    if (covered)
        *covered = current;
    return seconds;
}
} // namespace promql

} // namespace slicescope
