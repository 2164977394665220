// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The seam through which the "Job log" dock follows a job's log without knowing who reads it.
// It lives in model/ for the same reason as ClusterActions: both sides need it and it does no
// I/O itself. backend/ implements it (JobLogTail: a live Ray's log tail), app/ picks it for the
// source (app/joblogs.h), widgets only call it and listen.

#include <QObject>
#include <QString>

namespace slicescope {

class JobLogSource : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Starts following job `submissionId` (a submission id or job id), from the first line.
    virtual void start(const QString &submissionId) = 0;
    virtual QString submissionId() const = 0;
    // False before start() and once the job finished or the source gave up.
    virtual bool isRunning() const = 0;
    // While paused, lines are held back; resuming delivers them as one chunk.
    virtual void setPaused(bool paused) = 0;
    // Reads the whole log so far; ends in fullLogReceived or fullLogFailed.
    virtual void fetchFullLog() = 0;

Q_SIGNALS:
    // One or more complete log lines, in order, without the final newline.
    void linesReceived(const QString &lines);
    // While paused the buffer overflowed: `count` older lines were not kept (the full log has them).
    void linesDropped(int count);
    // Connected (true), or the connection dropped before the job finished (false): a status line shows it.
    void connectedChanged(bool connected);
    // The job finished and every line of it was delivered (the last one even without a newline).
    void finished();
    // One line: why the source stopped following (token refused, no such job, reconnects exhausted).
    void failed(const QString &message);
    // The whole log so far, on request.
    void fullLogReceived(const QString &log);
    void fullLogFailed(const QString &message);
};

} // namespace slicescope
