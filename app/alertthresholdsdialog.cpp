// SPDX-License-Identifier: GPL-3.0-or-later
#include "alertthresholdsdialog.h"

#include "messagebar.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace slicescope {

namespace {

QString fieldLabel(ThresholdField field)
{
    switch (field) {
    case ThresholdField::IdleBelow: return AlertThresholdsDialog::tr("Idle below (duty cycle %)");
    case ThresholdField::IdleAfter: return AlertThresholdsDialog::tr("Idle after");
    case ThresholdField::PendingAfter: return AlertThresholdsDialog::tr("Pending after");
    case ThresholdField::MetricsMissingAfter: return AlertThresholdsDialog::tr("Metrics missing after");
    case ThresholdField::ClearHold: return AlertThresholdsDialog::tr("Clear hold");
    case ThresholdField::MaxPerKind: return AlertThresholdsDialog::tr("Max per kind");
    }
    Q_UNREACHABLE();
}

// What each threshold does, in the words of the `alerts` verb's --help.
QString fieldHelp(ThresholdField field)
{
    switch (field) {
    case ThresholdField::IdleBelow: return AlertThresholdsDialog::tr("A duty cycle under this percentage is idle (default 5).");
    case ThresholdField::IdleAfter: return AlertThresholdsDialog::tr("Reserved chips idle this long alert (default 10m; 0s: now).");
    case ThresholdField::PendingAfter:
        return AlertThresholdsDialog::tr("Placement groups pending this long alert; also the grace of a head reservation (default 5m).");
    case ThresholdField::MetricsMissingAfter: return AlertThresholdsDialog::tr("A slice reporting no activity this long alerts (default 1m).");
    case ThresholdField::ClearHold: return AlertThresholdsDialog::tr("An alert clears after its condition was false this long (default 1m).");
    case ThresholdField::MaxPerKind: return AlertThresholdsDialog::tr("Alerts listed per kind before a \"+N more\" entry (default 50).");
    }
    Q_UNREACHABLE();
}

} // namespace

AlertThresholdsDialog::AlertThresholdsDialog(const AlertThresholds &current, const Theme &theme, QWidget *parent)
    : QDialog(parent)
    , m_current(current)
{
    setObjectName(QStringLiteral("alertThresholdsDialog"));
    setWindowTitle(tr("Alert thresholds"));
    auto *form = new QFormLayout;
    for (const ThresholdField f : kThresholdFields) {
        auto *edit = new QLineEdit(this);
        edit->setObjectName(optionName(f));
        edit->setToolTip(fieldHelp(f) + u' ' + tr("The same as `slicescope alerts --%1`.").arg(optionName(f)));
        m_fields.insert(int(f), edit);
        form->addRow(fieldLabel(f), edit);
    }
    auto *hint = new QLabel(tr("Times as the alerts verb reads them: 0s (now), 90s, 10m, 1h. They apply from the next capture on."), this);
    hint->setWordWrap(true);
    m_message = new MessageBar(this);
    m_message->setObjectName(QStringLiteral("alertThresholdsMessage"));
    m_message->setTheme(theme);
    m_message->hide();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] { fill(AlertThresholds()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, &AlertThresholdsDialog::tryAccept);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    fill(current);
    resize(460, sizeHint().height());
}

void AlertThresholdsDialog::fill(const AlertThresholds &thresholds)
{
    for (const ThresholdField f : kThresholdFields)
        field(f)->setText(thresholdText(thresholds, f));
    m_message->hide();
}

void AlertThresholdsDialog::tryAccept()
{
    // Every field read into a copy: one bad field hands nothing over, and each bad one is named.
    AlertThresholds chosen = m_current;
    QStringList problems;
    QLineEdit *firstBad = nullptr;
    for (const ThresholdField f : kThresholdFields) {
        if (const QString why = setThreshold(&chosen, f, field(f)->text()); !why.isEmpty()) {
            problems << tr("%1 %2.").arg(fieldLabel(f), why);
            if (!firstBad)
                firstBad = field(f);
        }
    }
    if (firstBad) {
        m_message->showMessage(MessageBar::Kind::Error, problems.join(u'\n'));
        firstBad->setFocus();
        firstBad->selectAll();
        return;
    }
    Q_EMIT thresholdsChosen(chosen);
    accept();
}

} // namespace slicescope
