// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// View > Alert thresholds...: the AlertEngine's thresholds (model/alerts.h) as six fields typed
// like the `alerts` verb's options ("10m", "90s", "0s" = now; thresholdtext.h reads both), with
// OK / Cancel / Restore defaults. A value that cannot be read is refused in the dialog's message
// bar, naming the field, and nothing is handed over; OK with every field good hands the
// thresholds to whoever opened it (thresholdsChosen) and closes.

#include "alerts.h"
#include "look.h"
#include "thresholdtext.h"

#include <QDialog>
#include <QHash>

class QLineEdit;

namespace slicescope {

class MessageBar;

class AlertThresholdsDialog : public QDialog
{
    Q_OBJECT
public:
    // Named "alertThresholdsDialog"; its fields are named after the CLI options ("idle-after"),
    // its message bar "alertThresholdsMessage".
    explicit AlertThresholdsDialog(const AlertThresholds &current, const Theme &theme = Theme::light(), QWidget *parent = nullptr);

    QLineEdit *field(ThresholdField field) const { return m_fields.value(int(field)); }
    // Fills the fields with `thresholds` (what Restore defaults does with AlertThresholds()).
    void fill(const AlertThresholds &thresholds);

Q_SIGNALS:
    // OK, every field read: the thresholds chosen (the dialog then closes).
    void thresholdsChosen(const slicescope::AlertThresholds &thresholds);

private:
    void tryAccept();

    AlertThresholds m_current;
    QHash<int, QLineEdit *> m_fields;
    MessageBar *m_message = nullptr;
};

} // namespace slicescope
