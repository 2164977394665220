// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The capture file contract's format (ARCHITECTURE.md), bytes only: one capture as a JSON object
// (`*.slicescope.json`) or a recording as JSON Lines, one capture per line (`*.slicescope.jsonl`).
// Bodies are stored verbatim, as JSON values. Reading and writing files: backend/capturefile.h.

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
// `firstLine`: the line of its file `bytes` starts on (a record of a recording), so errors name
// places in the file.
[[nodiscard]] CaptureReadResult parseCapture(const QByteArray &bytes, const QString &origin, int firstLine = 1);
// A JSON Lines recording; blank lines are skipped.
[[nodiscard]] CaptureReadResult parseRecording(const QByteArray &bytes, const QString &origin);
// What readCaptureFile() makes of a file's bytes: a recording when `namedRecording` (a *.jsonl
// name) or when the first line alone is a whole capture, else one capture; empty bytes are an error.
[[nodiscard]] CaptureReadResult parseCaptureOrRecording(const QByteArray &bytes, const QString &origin, bool namedRecording);

// The capture as one line of JSON (newlines inside bodies are whitespace and become spaces).
QByteArray serializeCapture(const Capture &capture);

} // namespace slicescope
