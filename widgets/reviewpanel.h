// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one inline confirmation UI, used by the scale dialog and the slice composer: every
// cluster-changing action shows what will change and asks first, in the window, never in a modal
// box (no nested event loop; tests click the buttons people do). From top to bottom:
//   - the review, a frame shown while open: a title, the plain text of what will change, an
//     optional type-the-name field (Confirm stays off until the name is typed exactly), Cancel
//     and Confirm;
//   - the message bar (progress, outcome, why something was refused);
//   - the progress log of the action under way.
// The panel is hidden while all three are, and only an open review takes spare height: a host
// adds it to its layout as one item with stretch 1. Object names (tests find them): reviewArea, reviewTitle, reviewText,
// typeName, confirm, cancel, messageBar, progressLog.

#include "look.h"
#include "messagebar.h"

#include <QWidget>

class QFrame;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QVBoxLayout;

namespace slicescope {

class ReviewPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ReviewPanel(QWidget *parent = nullptr);

    void setTheme(const Theme &theme);
    // The review text's least height (room for a patch to be read).
    void setTextMinimumHeight(int pixels);

    // Opens the review, or replaces the one open: a rich-text title, what will change (plain
    // text), and the confirm button's label. No name to type unless requireTypedName() follows.
    void openReview(const QString &title, const QString &text, const QString &confirmLabel);
    // Confirm needs `name` typed exactly; `prompt` (rich text) stands above the field.
    void requireTypedName(const QString &name, const QString &prompt);
    void closeReview();
    bool isOpen() const { return m_open; }
    // The name the open review asks for (empty: none). Kept until the next openReview().
    QString requiredName() const { return m_requiredName; }
    // What the host asks of Confirm besides the typed name (nothing under way, the source may
    // act...); `why` becomes Confirm's tooltip.
    void setConfirmAllowed(bool allowed, const QString &why = {});
    // Open, allowed by the host, and the name typed when one is asked for.
    bool isConfirmEnabled() const;
    QString confirmLabel() const;

    void showMessage(MessageBar::Kind kind, const QString &text);
    void hideMessage();
    QString messageText() const; // empty while hidden

    // Clears the log, shows it, and writes its first line.
    void startLog(const QString &firstLine);
    void appendLog(const QString &line);
    QString logText() const;

Q_SIGNALS:
    void confirmed(); // Confirm clicked while enabled
    void cancelled(); // Cancel clicked; the review is closed already
    // A message of any kind but Info was shown: an action's progress or outcome.
    void statusMessage(const QString &text);
    // With it: whether that action is still under way (a Warning: the cluster is changing) or
    // ended (an Error or a Success), so the window can show progress in its status bar.
    void actionUnderWay(bool underWay);

private:
    void updateConfirm();
    void updateVisibility();

    bool m_open = false;
    bool m_allowed = false;
    QString m_requiredName;

    QVBoxLayout *m_layout = nullptr;
    QFrame *m_frame = nullptr;
    QLabel *m_title = nullptr;
    QPlainTextEdit *m_text = nullptr;
    QLabel *m_typeNameLabel = nullptr;
    QLineEdit *m_typeName = nullptr;
    QPushButton *m_confirm = nullptr;
    QPushButton *m_cancel = nullptr;
    MessageBar *m_message = nullptr;
    QPlainTextEdit *m_log = nullptr;
};

} // namespace slicescope
