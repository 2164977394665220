// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where captures come from: the demo simulator, a capture file or recording, and (later) live
// Ray/Kubernetes and the relay. Every source emits Captures; buildSnapshot() does the rest.

#include "capture.h"

#include <QObject>

namespace slicescope {

class Source : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // One line for the status bar: "demo cluster", "capture foo.slicescope.json"...
    virtual QString description() const = 0;
    // Begins emitting; the first capture may arrive synchronously or later.
    virtual void start() = 0;

Q_SIGNALS:
    // A new capture, complete (never a partial set of bodies).
    void captureReceived(const slicescope::Capture &capture);
    // Something went wrong; the last good capture stays valid.
    void failed(const QString &message);
};

// A capture file or recording; emits its last capture (time travel arrives with the history).
class CaptureFileSource : public Source
{
    Q_OBJECT
public:
    explicit CaptureFileSource(QString path, QObject *parent = nullptr);
    QString description() const override;
    void start() override;

private:
    QString m_path;
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

} // namespace slicescope
