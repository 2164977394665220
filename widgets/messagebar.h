// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A message in a coloured box: info, warning, error or success, each in the colours the theme
// gives that kind (look.h, Theme::info and its siblings; never a style sheet of its own). A QLabel,
// so it wraps like one and the panels' tests find it as one.

#include "look.h"

#include <QLabel>

namespace slicescope {

class MessageBar : public QLabel
{
    Q_OBJECT
public:
    enum class Kind
    {
        Info,    // the panel's state: why something is off, what to do next
        Warning, // also an action under way: the cluster is changing
        Error,   // refused, withdrawn, failed
        Success, // done
    };

    explicit MessageBar(QWidget *parent = nullptr);

    void setTheme(const Theme &theme);
    void setKind(Kind kind);
    Kind kind() const { return m_kind; }
    // The kind, the text, and shown.
    void showMessage(Kind kind, const QString &text);
    // The colours drawn now: the theme's for the kind.
    const MessageColors &colors() const { return colorsFor(m_theme, m_kind); }
    static const MessageColors &colorsFor(const Theme &theme, Kind kind);

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void applyColors();

    Theme m_theme = Theme::light();
    Kind m_kind = Kind::Info;
};

} // namespace slicescope
