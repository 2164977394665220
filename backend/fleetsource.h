// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Many Kubernetes contexts at once (issue 16: --context A --context B, --all-contexts): one
// KubeSource per context, each with its own credentials (exec plugins included) and its own
// RayClusters' Ray views, and one fleet Capture (Capture::fleet) made of each context's newest.
// A context whose server is down or whose credential fails is carried with its error, never
// blanking the others; its last good bodies stay until it answers again.

#include "kubesource.h"
#include "source.h"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

namespace slicescope {

class FleetSource : public Source
{
    Q_OBJECT
public:
    // Sources made from each context's config, in the order given (the first capture waits for
    // each to answer once, either way).
    explicit FleetSource(std::vector<std::unique_ptr<KubeSource>> contexts, QObject *parent = nullptr);
    ~FleetSource() override;

    QString description() const override; // "3 Kubernetes contexts (a, b, c)"
    void start() override;
    void stop();

    int contextCount() const { return int(m_contexts.size()); }
    KubeSource *context(int i) const { return m_contexts[size_t(i)].source.get(); }
    // The source watching that context, null when none does.
    KubeSource *contextNamed(const QString &name) const;
    int capturesEmitted() const { return m_emitted; }
    // Fleet captures come at most this often (after the first): each context's change still shows
    // within it, and the merge of every context (model/snapshotmerge_p.h) runs about twice per 2 s
    // poll cycle instead of once per context that answered (about 3 times at 20 contexts).
    static constexpr int kMinIntervalMs = 1000;
    void setMinInterval(int ms) { m_minIntervalMs = std::max(0, ms); }

private:
    struct Context {
        std::unique_ptr<KubeSource> source;
        QString name;
        Capture last;       // its newest capture (empty until one came)
        QString problem;    // its newest failure, until a capture comes
        bool answered = false;
    };
    void scheduleEmit();
    void emitCapture();

    std::vector<Context> m_contexts;
    QTimer m_emitTimer;
    QElapsedTimer m_sinceEmit; // since the last capture went out
    int m_minIntervalMs = kMinIntervalMs;
    int m_emitted = 0;
};

} // namespace slicescope
