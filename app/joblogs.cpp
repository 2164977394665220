// SPDX-License-Identifier: GPL-3.0-or-later
#include "joblogs.h"

#include "democluster.h"
#include "relaysource.h"
#include "source.h"

#ifndef Q_OS_WASM // the browser cannot reach Ray or Kubernetes itself (backend/CMakeLists.txt)
#include "kubesource.h"
#include "livesource.h"
#include "logtail.h"
#endif

#include <QCoreApplication>

namespace slicescope {

namespace {

struct JobLogs {
    Q_DECLARE_TR_FUNCTIONS(JobLogs)
};

} // namespace

std::unique_ptr<JobLogSource> makeJobLogSource(Source *source, QString *reason)
{
    QString why;
#ifndef Q_OS_WASM // live Ray and Kubernetes sources are desktop-only
    if (auto *live = qobject_cast<LiveRaySource *>(source))
        return std::make_unique<JobLogTail>(live->client());
    if (qobject_cast<KubeSource *>(source)) {
        why = JobLogs::tr("Job logs are not followed through the Kubernetes service proxy yet. "
                          "Add --ray URL (a port-forward to the head's dashboard) to follow a job's log.");
    } else
#endif
        if (qobject_cast<RelaySource *>(source)) {
        why = JobLogs::tr("Job logs are not carried by the relay yet: follow them where the relay runs (--ray URL).");
    } else if (qobject_cast<DemoSource *>(source)) {
        why = JobLogs::tr("The demo cluster runs no Ray jobs, so there are no logs to follow. "
                          "Connect to a live Ray (--ray URL) to follow a job's log.");
    } else if (source) {
        why = JobLogs::tr("%1 is a recording: it lists jobs but holds none of their logs. "
                          "Connect to the live Ray (--ray URL) to follow a job's log.")
                  .arg(source->description());
    } else {
        why = JobLogs::tr("No source. Connect to a live Ray (--ray URL) to follow a job's log.");
    }
    if (reason)
        *reason = why;
    return nullptr;
}

} // namespace slicescope
