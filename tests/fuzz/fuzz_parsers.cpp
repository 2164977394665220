// SPDX-License-Identifier: GPL-3.0-or-later
// The small text parsers: topologies ("4x4", "2x2x2"), generation spellings and Ray pod types
// ("v6e-16", "TPU-V5LITEPOD", "tpu7x"), chips-per-host tiling with the slice layout, and the slice
// placement driver's result line in a job log. Input lines: topology, accelerator or pod type,
// chips per host, then the job log. (The label selectors and the workers' label values are read
// inside buildSnapshot: fuzz_capture covers them.)
//
// Checked: a valid layout is a bijection between (worker, chip) and chip coordinates.

#include "fuzz_common.h"

#include "slicepgjob.h"
#include "tpu.h"

#include <QJsonObject>

using namespace slicescope;
using namespace slicescope::tpu;

namespace {

void checkLayout(const Generation &gen, const Topology &topology, int chipsPerHost)
{
    (void)hostBlock(gen, topology, chipsPerHost);
    const SliceLayout layout(gen, topology, chipsPerHost);
    if (!layout.isValid())
        return;
    FUZZ_CHECK(layout.chipsPerHost() == chipsPerHost);
    FUZZ_CHECK(qint64(layout.hostCount()) * chipsPerHost == layout.chipCount());
    if (layout.chipCount() > 4096)
        return; // the check below is quadratic-free but the links are not small
    for (int w = 0; w < layout.hostCount(); ++w) {
        for (int c = 0; c < chipsPerHost; ++c) {
            const ChipCoord at = layout.chipPosition(w, c);
            FUZZ_CHECK(at.x >= 0 && at.x < topology.dims.x && at.y >= 0 && at.y < topology.dims.y && at.z >= 0 && at.z < topology.dims.z);
            FUZZ_CHECK(layout.workerAt(at) == w && layout.chipIndexAt(at) == c);
        }
    }
    for (const IciLink &link : layout.iciLinks())
        FUZZ_CHECK(link.axis >= 0 && link.axis < 3);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    const QString text = QString::fromUtf8(fuzz::bytesOf(data, size));
    const QStringList lines = text.split(u'\n');
    const QString topologyText = lines.value(0);
    const QString nameText = lines.value(1);
    bool numberOk = false;
    const int chipsPerHost = lines.value(2).toInt(&numberOk);
    const QString logs = lines.mid(3).join(u'\n');

    const std::optional<Topology> topology = parseTopology(topologyText);
    if (topology) {
        FUZZ_CHECK(topology->rank == 2 || topology->rank == 3);
        FUZZ_CHECK(parseTopology(topology->toString()) == topology);
    }
    int tensorCores = 0;
    const Generation *ofPodType = generationOfPodType(nameText, &tensorCores);
    const Generation *named = findGeneration(nameText);
    for (const Generation *gen : {ofPodType, named}) {
        if (!gen)
            continue;
        FUZZ_CHECK(findGeneration(gen->name) == gen);
        (void)generationOrder(gen);
        if (!topology)
            continue;
        const QString problem = topologyProblem(*gen, *topology);
        (void)topologyNote(*gen, *topology);
        (void)wrapAxes(*gen, *topology);
        if (problem.isEmpty())
            FUZZ_CHECK(generationOfPodType(podType(*gen, *topology)) == gen);
        // Layouts of shapes Ray would refuse too: GKE labels can name them.
        checkLayout(*gen, *topology, defaultChipsPerHost(*gen, *topology));
        if (numberOk)
            checkLayout(*gen, *topology, chipsPerHost);
    }
    if (numberOk)
        (void)isValidTpuRequest(chipsPerHost);

    QJsonObject result;
    (void)parseDriverResult(logs, result);
    return 0;
}
