// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetsource.h"

#include "kubeconfig.h"

namespace slicescope {

FleetSource::FleetSource(std::vector<std::unique_ptr<KubeSource>> contexts, QObject *parent)
    : Source(parent)
{
    m_emitTimer.setSingleShot(true);
    connect(&m_emitTimer, &QTimer::timeout, this, &FleetSource::emitCapture);
    m_contexts.reserve(contexts.size());
    for (auto &source : contexts) {
        Context c;
        c.name = source->client()->config().contextName;
        c.source = std::move(source);
        m_contexts.push_back(std::move(c));
    }
    for (size_t i = 0; i < m_contexts.size(); ++i) {
        KubeSource *source = m_contexts[i].source.get();
        connect(source, &Source::captureReceived, this, [this, i](const Capture &capture) {
            Context &c = m_contexts[i];
            c.last = capture;
            c.problem.clear();
            c.answered = true;
            scheduleEmit();
        });
        connect(source, &Source::failed, this, [this, i](const QString &message) {
            Context &c = m_contexts[i];
            c.problem = message;
            c.answered = true;
            // The other contexts go on; this one's problem is carried in the capture (and its tiles).
            scheduleEmit();
        });
    }
}

FleetSource::~FleetSource()
{
    stop();
}

QString FleetSource::description() const
{
    QStringList names, failing;
    for (const Context &c : m_contexts) {
        names << c.name;
        if (!c.problem.isEmpty()) failing << c.name;
    }
    QString text = tr("%n Kubernetes context(s) (%1)", nullptr, int(m_contexts.size())).arg(names.join(QStringLiteral(", ")));
    if (!failing.isEmpty()) text += tr("; not answering: %1").arg(failing.join(QStringLiteral(", ")));
    return text;
}

KubeSource *FleetSource::contextNamed(const QString &name) const
{
    for (const Context &c : m_contexts)
        if (c.name == name) return c.source.get();
    return nullptr;
}

void FleetSource::start()
{
    for (Context &c : m_contexts)
        c.source->start();
}

void FleetSource::stop()
{
    m_emitTimer.stop();
    for (Context &c : m_contexts)
        c.source->stop();
}

void FleetSource::scheduleEmit()
{
    if (m_emitTimer.isActive())
        return;
    // 25 ms gathers the contexts that answer together; after a capture, the next waits out the
    // minimum interval.
    int delay = 25;
    if (m_emitted > 0 && m_sinceEmit.isValid())
        delay = std::max<qint64>(delay, m_minIntervalMs - m_sinceEmit.elapsed());
    m_emitTimer.start(delay);
}

void FleetSource::emitCapture()
{
    bool anyCapture = false;
    for (const Context &c : m_contexts) {
        if (!c.answered) return; // the first capture waits for every context's first answer (either way)
        anyCapture = anyCapture || c.last.capturedAt.isValid();
    }
    if (!anyCapture) {
        // Nothing to show yet: say why, every context's reason.
        QStringList reasons;
        for (const Context &c : m_contexts)
            reasons << QStringLiteral("%1: %2").arg(c.name, c.problem);
        Q_EMIT failed(tr("no Kubernetes context answered: %1").arg(reasons.join(QStringLiteral("; "))));
        return;
    }
    Capture fleet;
    fleet.capturedAt = QDateTime::currentDateTimeUtc();
    for (const Context &c : m_contexts) {
        Capture member = c.last; // older bodies when the context fails now
        member.kubeContext = c.name;
        member.kubeError = c.problem;
        if (!member.capturedAt.isValid()) member.capturedAt = fleet.capturedAt;
        fleet.fleet.append(std::move(member));
    }
    ++m_emitted;
    m_sinceEmit.start();
    Q_EMIT captureReceived(fleet);
}

} // namespace slicescope
