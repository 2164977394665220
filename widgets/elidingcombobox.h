// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A combo box whose long entries (a RayCluster with its context, a worker group with its shape)
// never set the width of the form they sit in, and never show cut words: the shown text is elided
// in the middle, where names of the same family differ least, and the whole text is the tooltip
// and the popup's entry (issue 17: "the composer and scale dialog never cut off their own fields").

#include <QComboBox>
#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace slicescope {

class ElidingComboBox : public QComboBox
{
public:
    explicit ElidingComboBox(QWidget *parent = nullptr)
        : QComboBox(parent)
    {
        setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        setMinimumContentsLength(14);
        connect(this, &QComboBox::currentTextChanged, this, [this](const QString &text) { setToolTip(text); });
    }

    // The text as drawn at the current width: the whole current text when it fits, else elided.
    QString shownText() const
    {
        QStyleOptionComboBox opt;
        initStyleOption(&opt);
        const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
        return fontMetrics().elidedText(currentText(), Qt::ElideMiddle, field.width());
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QStylePainter painter(this);
        QStyleOptionComboBox opt;
        initStyleOption(&opt);
        painter.drawComplexControl(QStyle::CC_ComboBox, opt);
        opt.currentText = shownText();
        painter.drawControl(QStyle::CE_ComboBoxLabel, opt);
    }
};

} // namespace slicescope
