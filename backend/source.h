// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where captures come from: the demo simulator, a capture file or recording, and (later) live
// Ray/Kubernetes and the relay. Every source emits Captures; buildSnapshot() does the rest.

#include "capture.h"

#include <QObject>
#include <QUrl>

#include <memory>

class QTimer;

namespace slicescope {

class ClusterActions;

class Source : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // One line for the status bar: "demo cluster", "capture foo.slicescope.json"...
    virtual QString description() const = 0;
    // Begins emitting; the first capture may arrive synchronously or later.
    virtual void start() = 0;
    // The Ray dashboard a person can open in a browser for what this source shows (without
    // credentials); empty when the source is no dashboard URL (a file, the demo, Kubernetes).
    virtual QUrl rayDashboardUrl() const { return {}; }

Q_SIGNALS:
    // A new capture, complete (never a partial set of bodies).
    void captureReceived(const slicescope::Capture &capture);
    // Something went wrong; the last good capture stays valid.
    void failed(const QString &message);
};

class RecordingReader;

// A capture file or a recording. Emits every capture of the file in order, oldest first, so a
// window's history holds the whole recording and can be scrubbed through. A long recording is
// read in slices of a few milliseconds per event-loop turn (the first slice inside start()), one
// line at a time, so neither the file nor its captures are held in memory and the window stays
// responsive. A bad line stops the reading: the captures before it have been emitted, failed()
// names the line.
class CaptureFileSource : public Source
{
    Q_OBJECT
public:
    explicit CaptureFileSource(QString path, QObject *parent = nullptr);
    ~CaptureFileSource() override;
    QString description() const override;
    void start() override;

    QString path() const { return m_path; }
    // True from start() until the last capture has been emitted (or reading failed). While it is
    // true during captureReceived(), more captures follow: a window may skip showing that one.
    bool isLoading() const { return m_loading; }
    int capturesEmitted() const { return m_emitted; }

Q_SIGNALS:
    // After each slice of reading: captures emitted so far and how far into the file (0-100).
    void progressChanged(int captures, int percent);
    // Every capture of the file has been emitted (not emitted after failed()).
    void loadingFinished(int captures);

private:
    void readSlice();

    QString m_path;
    std::unique_ptr<RecordingReader> m_reader;
    QTimer *m_pump = nullptr;
    bool m_loading = false;
    int m_emitted = 0;
};

// One capture held in memory (screenshots, tests, a capture the window already has).
class StaticSource : public Source
{
    Q_OBJECT
public:
    StaticSource(Capture capture, QString description, QObject *parent = nullptr);
    QString description() const override { return m_description; }
    void start() override;

private:
    Capture m_capture;
    QString m_description;
};

// What carries out actions for `source`: the demo simulator, Ray jobs, Kubernetes patches (not in
// the browser build), or the relay the source reads from. Null for a capture file, with `reason`
// saying why.
std::unique_ptr<ClusterActions> makeClusterActions(Source *source, QString *reason);

} // namespace slicescope
