// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading and writing the capture file contract (ARCHITECTURE.md): one capture as a JSON object
// (`*.slicescope.json`) or a recording as JSON Lines, one capture per line (`*.slicescope.jsonl`).
// Bodies are stored verbatim, as JSON values.

#include "capture.h"

#include <QList>
#include <QString>

namespace slicescope {

struct CaptureReadResult {
    QList<Capture> captures;   // one for a capture file, one per line for a recording
    QString error;             // "<file>: line L, column C: <what>: <problem>"; empty on success
    bool ok() const { return error.isEmpty(); }
};

inline constexpr QLatin1StringView kCaptureFormat{"slicescope-capture/1"};

// One capture object. `origin` names the input in error messages.
CaptureReadResult parseCapture(const QByteArray &bytes, const QString &origin);
// A JSON Lines recording; blank lines are skipped.
CaptureReadResult parseRecording(const QByteArray &bytes, const QString &origin);
// Reads a file: a recording when it holds more than one non-blank line, else a single capture.
CaptureReadResult readCaptureFile(const QString &path);

// The capture as one line of JSON (newlines inside bodies are whitespace and become spaces).
QByteArray serializeCapture(const Capture &capture);
// Writes one capture; returns an error sentence or empty. Written atomically (QSaveFile).
QString writeCaptureFile(const QString &path, const Capture &capture);

} // namespace slicescope
