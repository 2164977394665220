// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The SOURCE options shared by the window and every verb: --demo, --capture FILE, and the live
// --ray/--kubeconfig family.

#include "capture.h"

#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <memory>

namespace slicescope {

class Source;

struct SourceSpec {
    enum class Kind { None, Demo, CaptureFile, Live };
    Kind kind = Kind::None;
    QString capturePath;
    quint32 demoSeed = 42;
    qint64 demoAdvanceMs = 0;
    QString rayUrl, rayTokenFile, kubeconfig, context, ns;
    bool allNamespaces = false;
};

void addSourceOptions(QCommandLineParser &parser);
// Reads the options; returns an error sentence (bad usage) or empty.
QString readSourceOptions(const QCommandLineParser &parser, SourceSpec &spec);

// Loads one capture synchronously, for the headless verbs. Returns an error sentence or empty.
QString loadCapture(const SourceSpec &spec, Capture &capture);

// A Source object for the window.
std::unique_ptr<Source> makeSource(const SourceSpec &spec, QString *error);

} // namespace slicescope
