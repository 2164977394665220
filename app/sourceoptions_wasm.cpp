// SPDX-License-Identifier: GPL-3.0-or-later
// sourceoptions.h for the browser build, which has no command line and only the sources a page
// can read by itself: the demo, capture files and the relay (live Ray and Kubernetes stay with
// sourceoptions.cpp, natively: a browser cannot reach them, FACTS.md 1.4).

#include "sourceoptions.h"

#include "democluster.h"
#include "democlusteractions.h"
#include "relaysource.h"
#include "source.h"

namespace slicescope {

std::unique_ptr<ClusterActions> makeClusterActions(Source *source, QString *reason)
{
    if (auto *demo = qobject_cast<DemoSource *>(source))
        return std::make_unique<DemoClusterActions>(demo);
    if (auto *relay = qobject_cast<RelaySource *>(source))
        return std::make_unique<RelayClusterActions>(relay);
    if (reason)
        *reason = source ? QStringLiteral("%1 is a recording: it cannot be changed").arg(source->description()) : QStringLiteral("no source");
    return nullptr;
}

} // namespace slicescope
