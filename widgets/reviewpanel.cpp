// SPDX-License-Identifier: GPL-3.0-or-later
#include "reviewpanel.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace slicescope {

ReviewPanel::ReviewPanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("reviewPanel"));
    // The host's spacing between the parts too, as if they were laid out in the host itself.
    auto *layout = m_layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    m_frame = new QFrame(this);
    m_frame->setObjectName(QStringLiteral("reviewArea"));
    m_frame->setFrameShape(QFrame::StyledPanel);
    auto *reviewLayout = new QVBoxLayout(m_frame);
    m_title = new QLabel(m_frame);
    m_title->setObjectName(QStringLiteral("reviewTitle"));
    m_title->setWordWrap(true);
    m_title->setTextFormat(Qt::RichText);
    m_text = new QPlainTextEdit(m_frame);
    m_text->setObjectName(QStringLiteral("reviewText"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_typeNameLabel = new QLabel(m_frame);
    m_typeNameLabel->setWordWrap(true);
    m_typeName = new QLineEdit(m_frame);
    m_typeName->setObjectName(QStringLiteral("typeName"));
    auto *buttons = new QHBoxLayout;
    m_cancel = new QPushButton(tr("Cancel"), m_frame);
    m_cancel->setObjectName(QStringLiteral("cancel"));
    m_cancel->setAutoDefault(false); // Return in a dialog never confirms by itself
    m_confirm = new QPushButton(tr("Confirm"), m_frame);
    m_confirm->setObjectName(QStringLiteral("confirm"));
    m_confirm->setAutoDefault(false);
    buttons->addStretch(1);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_confirm);
    reviewLayout->addWidget(m_title);
    reviewLayout->addWidget(m_text, 1);
    reviewLayout->addWidget(m_typeNameLabel);
    reviewLayout->addWidget(m_typeName);
    reviewLayout->addLayout(buttons);
    m_frame->hide();
    layout->addWidget(m_frame, 1);

    m_message = new MessageBar(this);
    m_message->setObjectName(QStringLiteral("messageBar"));
    m_message->hide();
    layout->addWidget(m_message);

    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("progressLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumHeight(72);
    m_log->hide();
    layout->addWidget(m_log);
    layout->addStretch(1); // the panel's spare height while the review is closed

    connect(m_confirm, &QPushButton::clicked, this, [this] {
        if (isConfirmEnabled())
            Q_EMIT confirmed();
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        closeReview();
        Q_EMIT cancelled();
    });
    connect(m_typeName, &QLineEdit::textChanged, this, &ReviewPanel::updateConfirm);
    updateConfirm();
    updateVisibility();
}

void ReviewPanel::setTheme(const Theme &theme)
{
    m_message->setTheme(theme);
}

void ReviewPanel::setTextMinimumHeight(int pixels)
{
    m_text->setMinimumHeight(pixels);
}

void ReviewPanel::openReview(const QString &title, const QString &text, const QString &confirmLabel)
{
    m_open = true;
    m_title->setText(title);
    m_text->setPlainText(text);
    m_requiredName.clear();
    m_typeNameLabel->hide();
    m_typeName->hide();
    m_typeName->clear();
    m_confirm->setText(confirmLabel);
    m_frame->show();
    updateConfirm();
    updateVisibility();
}

void ReviewPanel::requireTypedName(const QString &name, const QString &prompt)
{
    m_requiredName = name;
    m_typeNameLabel->setText(prompt);
    m_typeName->clear();
    m_typeNameLabel->setVisible(!name.isEmpty());
    m_typeName->setVisible(!name.isEmpty());
    updateConfirm();
}

void ReviewPanel::closeReview()
{
    m_open = false;
    m_frame->hide();
    updateConfirm();
    updateVisibility();
}

void ReviewPanel::setConfirmAllowed(bool allowed, const QString &why)
{
    m_allowed = allowed;
    m_confirm->setToolTip(why);
    updateConfirm();
}

bool ReviewPanel::isConfirmEnabled() const
{
    return m_open && m_allowed && (m_requiredName.isEmpty() || m_typeName->text() == m_requiredName);
}

QString ReviewPanel::confirmLabel() const
{
    return m_confirm->text();
}

void ReviewPanel::updateConfirm()
{
    m_confirm->setEnabled(isConfirmEnabled());
}

void ReviewPanel::showMessage(MessageBar::Kind kind, const QString &text)
{
    m_message->showMessage(kind, text);
    updateVisibility();
    if (kind != MessageBar::Kind::Info) { // the status bar tells of actions, not of a panel's state
        Q_EMIT statusMessage(text);
        Q_EMIT actionUnderWay(kind == MessageBar::Kind::Warning);
    }
}

void ReviewPanel::hideMessage()
{
    m_message->hide();
    updateVisibility();
}

QString ReviewPanel::messageText() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void ReviewPanel::startLog(const QString &firstLine)
{
    m_log->clear();
    m_log->show();
    appendLog(firstLine);
    updateVisibility();
}

void ReviewPanel::appendLog(const QString &line)
{
    m_log->appendPlainText(line);
}

QString ReviewPanel::logText() const
{
    return m_log->toPlainText();
}

void ReviewPanel::updateVisibility()
{
    // isHidden(), not isVisible(): what the panel asked for, whether or not the host is shown yet.
    setVisible(!m_frame->isHidden() || !m_message->isHidden() || !m_log->isHidden());
    // Only an open review grows; a message or a log alone keeps its own height at the top, as it
    // would directly in the host's layout, and the room below stays empty.
    m_layout->setStretch(m_layout->count() - 1, m_frame->isHidden() ? 1 : 0);
}

} // namespace slicescope
