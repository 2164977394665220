// SPDX-License-Identifier: GPL-3.0-or-later
#include "joblogview.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace slicescope {

JobLogView::JobLogView(QWidget *parent)
    : QWidget(parent)
    , m_text(new QPlainTextEdit(this))
    , m_follow(new QCheckBox(tr("Follow"), this))
    , m_pause(new QToolButton(this))
    , m_fullLog(new QPushButton(tr("Full log"), this))
    , m_status(new QLabel(this))
{
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Each line is one block, so the block count bounds the lines kept (oldest go first).
    m_text->setMaximumBlockCount(20000);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the newest line in view"));
    m_pause->setText(tr("Pause"));
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Hold new lines back (the newest are kept and shown on resume)"));
    m_fullLog->setToolTip(tr("Read the whole log so far from Ray"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(m_follow);
    bar->addWidget(m_pause);
    bar->addWidget(m_fullLog);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);

    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        if (on)
            scrollToEndIfFollowing();
    });
    connect(m_pause, &QToolButton::toggled, this, [this](bool paused) {
        m_pause->setText(paused ? tr("Resume") : tr("Pause"));
        Q_EMIT pauseRequested(paused);
    });
    connect(m_fullLog, &QPushButton::clicked, this, &JobLogView::fullLogRequested);
    // Scrolling back in time leaves "follow"; scrolling to the end takes it up again.
    // Only the reader's own actions count (wheel, drag, page keys on the bar), not the moves the
    // pane makes as lines arrive or old ones are dropped.
    connect(m_text->verticalScrollBar(), &QScrollBar::actionTriggered, this, [this] {
        if (m_scrollingProgrammatically)
            return;
        const QScrollBar *bar = m_text->verticalScrollBar();
        m_follow->setChecked(bar->sliderPosition() >= bar->maximum());
    });
}

void JobLogView::setMaximumLines(int lines)
{
    m_text->setMaximumBlockCount(qMax(1, lines));
}

int JobLogView::maximumLines() const
{
    return m_text->maximumBlockCount();
}

bool JobLogView::isFollowing() const
{
    return m_follow->isChecked();
}

bool JobLogView::isPaused() const
{
    return m_pause->isChecked();
}

QString JobLogView::text() const
{
    return m_text->toPlainText();
}

QString JobLogView::status() const
{
    return m_status->text();
}

void JobLogView::appendLines(const QString &lines)
{
    // appendPlainText keeps the scroll position unless we move it: the reader reading back
    // stays where they are.
    m_scrollingProgrammatically = true;
    m_text->appendPlainText(lines);
    m_scrollingProgrammatically = false;
    scrollToEndIfFollowing();
}

void JobLogView::showFullLog(const QString &log)
{
    m_scrollingProgrammatically = true;
    QString text = log;
    if (text.endsWith(u'\n'))
        text.chop(1);
    m_text->setPlainText(text);
    m_scrollingProgrammatically = false;
    scrollToEndIfFollowing();
}

void JobLogView::noteDroppedLines(int count)
{
    appendLines(tr("[%n older line(s) were not kept while paused; \"Full log\" shows them]", nullptr, count));
}

void JobLogView::setStatus(const QString &status)
{
    m_status->setText(status);
}

void JobLogView::setFollowing(bool follow)
{
    m_follow->setChecked(follow);
}

void JobLogView::setPaused(bool paused)
{
    m_pause->setChecked(paused);
}

void JobLogView::clear()
{
    m_text->clear();
    m_status->clear();
}

void JobLogView::scrollToEndIfFollowing()
{
    if (!m_follow->isChecked())
        return;
    m_scrollingProgrammatically = true;
    m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
    m_scrollingProgrammatically = false;
}

} // namespace slicescope
