// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A Ray job's log as it arrives: a read-only text pane that follows the end (until the reader
// scrolls back, docs/style.md 9), a pause that holds new lines back, a "Full log" button, and a bound
// on the lines kept so a chatty job cannot eat the memory. It knows nothing of Ray: app/ feeds it
// lines through its slots and acts on its signals (JobLogTail in backend/ does the talking).

#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace slicescope {

class JobLogView : public QWidget
{
    Q_OBJECT
public:
    explicit JobLogView(QWidget *parent = nullptr);

    // Lines beyond this are dropped from the top (default 20000).
    void setMaximumLines(int lines);
    int maximumLines() const;
    bool isFollowing() const;
    bool isPaused() const;
    QString text() const;
    QString status() const;
    // The text pane, for tests that scroll it.
    QPlainTextEdit *textPane() const { return m_text; }

public Q_SLOTS:
    // Complete lines, without the final newline (JobLogTail::linesReceived).
    void appendLines(const QString &lines);
    // Replaces what is shown with the whole log (JobLogTail::fullLogReceived).
    void showFullLog(const QString &log);
    // Lines that were not kept while paused (JobLogTail::linesDropped).
    void noteDroppedLines(int count);
    // One line above the text: "following job x", "reconnecting...", "finished", an error.
    void setStatus(const QString &status);
    void setFollowing(bool follow);
    void setPaused(bool paused);
    void clear();

Q_SIGNALS:
    // The reader paused or resumed; the tail holds lines back meanwhile.
    void pauseRequested(bool paused);
    // The reader wants the whole log so far.
    void fullLogRequested();

private:
    void scrollToEndIfFollowing();

    QPlainTextEdit *m_text;
    QCheckBox *m_follow;
    QToolButton *m_pause;
    QPushButton *m_fullLog;
    QLabel *m_status;
    bool m_scrollingProgrammatically = false;
};

} // namespace slicescope
