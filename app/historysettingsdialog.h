// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// View > History settings...: the history's bounds (age, memory) as two spin boxes, what the
// history and the disk spool hold now, and OK / Cancel / Restore defaults. It edits nothing
// itself: OK hands the bounds chosen to whoever opened it (policyChosen).

#include "history.h"

#include <QDialog>

namespace slicescope {

class CaptureSpool;

class HistorySettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // Named "historySettingsDialog"; shows `history`'s policy and what it and `spool` hold now.
    HistorySettingsDialog(const SnapshotHistory &history, const CaptureSpool &spool, QWidget *parent = nullptr);

Q_SIGNALS:
    // OK: the bounds as chosen (the dialog then closes).
    void policyChosen(const HistoryPolicy &policy);
};

} // namespace slicescope
