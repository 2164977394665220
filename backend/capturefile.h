// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Capture files on disk (ARCHITECTURE.md): one capture as a JSON object (`*.slicescope.json`) or
// a recording as JSON Lines, one capture per line (`*.slicescope.jsonl`), read with a bound and
// written atomically; the format itself (bytes to captures and back) is model/capturecodec.h.

#include "capturecodec.h" // the format: parseCapture(), serializeCapture(), ...

#include <QList>
#include <QString>
#include <QStringList>

#include <deque>
#include <memory>

class QFile;

namespace slicescope {

// Reads a file: a recording when it holds more than one non-blank line, else a single capture.
CaptureReadResult readCaptureFile(const QString &path);

// Writes one capture; returns an error sentence or empty. Written atomically (QSaveFile).
[[nodiscard]] QString writeCaptureFile(const QString &path, const Capture &capture);

// Reads a capture file or a recording one capture at a time, so a long recording can feed a
// history without the whole file (or all its captures) in memory. A `*.jsonl` file is read line
// by line; anything else is read whole with readCaptureFile() (a pretty-printed capture spans
// many lines) and then handed out capture by capture. Errors name the file, line and column,
// like parseRecording(); unlike it, the captures before a bad line have been handed out already.
class RecordingReader
{
public:
    explicit RecordingReader(QString path);
    ~RecordingReader();
    RecordingReader(const RecordingReader &) = delete;
    RecordingReader &operator=(const RecordingReader &) = delete;

    // Returns an error sentence or empty.
    [[nodiscard]] QString open();
    // The next capture, or false at the end of the file or on an error (then error() says it).
    bool next(Capture &capture);
    // No capture is left (the rest of the file is blank), or an error stopped the reading.
    bool atEnd() const;
    QString error() const { return m_error; }
    int capturesRead() const { return m_read; }
    qint64 bytesRead() const;
    qint64 size() const { return m_size; }

private:
    bool readLine(QByteArray &line);
    void skipBlankLines();

    QString m_path;
    std::unique_ptr<QFile> m_file;  // a recording read line by line
    QList<Capture> m_whole;         // or a file read whole
    QByteArray m_pending;           // the next non-blank line, read ahead to know atEnd()
    int m_pendingLine = 0;
    int m_line = 0;
    int m_read = 0;
    qint64 m_size = 0;
    bool m_end = true;
    QString m_error;
};

// The raw captures behind a SnapshotHistory, kept on disk rather than in memory, so the window
// can save its history as a recording (File > Save history as recording...). Each capture is
// appended as one JSON Lines record (serializeCapture(), the `record` verb's format) to segment
// files in a cache directory, with its byte offset kept per history serial. Segments are deleted
// as soon as every capture in them is dropped (evicted with the history, or over maxBytes()), so
// the spool never rewrites or copies what it holds. The files are removed with the spool; files a
// crashed process left behind are deleted by the next spool after two days.
// Captures are raw API bodies and large clusters make large ones (about 18 MB for 10k nodes and
// 10k placement groups), so maxBytes() may keep fewer captures than the history keeps snapshots;
// the history's own copy is structurally shared and far smaller.
// Captures hold no credentials (capture.h), so neither does the spool nor what it writes.
class CaptureSpool
{
public:
    static constexpr qint64 kDefaultMaxBytes = qint64(2) << 30;
    static constexpr qint64 kDefaultSegmentBytes = qint64(64) << 20;

    // `directory` empty: the user's cache directory (".../spool"), else the system temp directory.
    explicit CaptureSpool(QString directory = {}, qint64 segmentBytes = kDefaultSegmentBytes);
    ~CaptureSpool();
    CaptureSpool(const CaptureSpool &) = delete;
    CaptureSpool &operator=(const CaptureSpool &) = delete;

    // Appends the capture of history serial `serial` (serials increase). Returns an error
    // sentence or empty; after an error the capture is simply not held.
    [[nodiscard]] QString append(qint64 serial, const Capture &capture);
    bool contains(qint64 serial) const;
    // Reads a capture back. Returns an error sentence or empty.
    [[nodiscard]] QString read(qint64 serial, Capture &capture) const;
    // The record's bytes exactly as written (one JSON Lines record, newline included).
    [[nodiscard]] QString readLine(qint64 serial, QByteArray &line) const;
    // Forgets the captures of serials before `serial` (the history evicted them).
    void dropBefore(qint64 serial);
    void clear();

    // Bound on the bytes held; the oldest captures go first when it is exceeded (the history may
    // then hold entries whose capture can no longer be saved). <= 0: no bound.
    void setMaxBytes(qint64 bytes);
    qint64 maxBytes() const { return m_maxBytes; }

    int count() const { return int(m_records.size()); }
    qint64 bytes() const { return m_bytes; }   // of the captures held (what is on disk, roughly)
    qint64 firstSerial() const;                // -1 when empty
    QString directory() const { return m_directory; }
    QStringList files() const;                 // the segment files on disk now

    // Writes the captures of `serials`, in that order, as a recording (atomically, QSaveFile).
    // Serials the spool no longer holds are skipped; *written says how many were written.
    [[nodiscard]] QString writeRecording(const QString &path, const QList<qint64> &serials, int *written = nullptr) const;

private:
    struct Segment;
    struct Record {
        qint64 serial;
        qint64 segment; // the segment's id: m_segments[segment - m_firstSegment]
        qint64 offset;
        qint64 length;
    };
    const Record *find(qint64 serial) const;
    Segment *segment(qint64 id) const;
    QString startSegment();
    void dropFront();
    void removeCrashLeftovers() const;

    QString m_directory;
    qint64 m_segmentBytes;
    qint64 m_maxBytes = kDefaultMaxBytes;
    std::deque<std::unique_ptr<Segment>> m_segments;
    qint64 m_firstSegment = 0; // the id of m_segments.front()
    std::deque<Record> m_records;
    qint64 m_bytes = 0;
};

} // namespace slicescope
