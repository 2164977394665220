// SPDX-License-Identifier: GPL-3.0-or-later
#include "historysettingsdialog.h"

#include "capturefile.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace slicescope {

namespace {

QString utcTimeText(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString megabytesText(qint64 bytes)
{
    return QLocale::c().toString(double(bytes) / (1 << 20), 'f', bytes < (10 << 20) ? 1 : 0);
}

} // namespace

HistorySettingsDialog::HistorySettingsDialog(const SnapshotHistory &history, const CaptureSpool &spool, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("historySettingsDialog"));
    setWindowTitle(tr("History settings"));
    const HistoryPolicy policy = history.policy();

    auto *age = new QSpinBox(this);
    age->setObjectName(QStringLiteral("maxAgeMinutes"));
    age->setRange(0, 30 * 24 * 60);
    age->setSuffix(tr(" min"));
    age->setSpecialValueText(tr("no limit"));
    age->setValue(policy.maxAgeSeconds > 0 ? int(std::min<qint64>(age->maximum(), (policy.maxAgeSeconds + 59) / 60)) : 0);
    age->setToolTip(tr("Snapshots older than this, counted back from the newest, are dropped"));
    auto *memory = new QSpinBox(this);
    memory->setObjectName(QStringLiteral("maxMegabytes"));
    memory->setRange(0, 1 << 20);
    memory->setSingleStep(64);
    memory->setSuffix(tr(" MB"));
    memory->setSpecialValueText(tr("no limit"));
    memory->setValue(policy.maxBytes > 0 ? int(std::min<qint64>(memory->maximum(), (policy.maxBytes + (1 << 20) - 1) >> 20)) : 0);
    memory->setToolTip(tr("The oldest snapshots are dropped when the history would hold more than this"));

    QString held;
    if (history.isEmpty()) {
        held = tr("The history is empty.");
    } else {
        held = tr("Now holding %n snapshot(s), %1 to %2 UTC, in about %3 MB of memory.", nullptr, history.size())
                   .arg(utcTimeText(history.time(0)), utcTimeText(history.time(history.size() - 1)), megabytesText(history.bytesHeld()));
    }
    held += u' ' + tr("Their raw captures are kept on disk for File > Save history as recording: %n capture(s), %1 MB in %2.", nullptr, spool.count()).arg(megabytesText(spool.bytes()), spool.directory());
    auto *info = new QLabel(held, this);
    info->setObjectName(QStringLiteral("historyHeld"));
    info->setWordWrap(true);
    info->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    form->addRow(tr("Keep snapshots for"), age);
    form->addRow(tr("Use at most"), memory);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [age, memory] {
        const HistoryPolicy defaults;
        age->setValue(int(defaults.maxAgeSeconds / 60));
        memory->setValue(int(defaults.maxBytes >> 20));
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this, age, memory] {
        HistoryPolicy chosen;
        chosen.maxAgeSeconds = qint64(age->value()) * 60;
        chosen.maxBytes = qint64(memory->value()) << 20;
        Q_EMIT policyChosen(chosen);
        accept();
    });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(info);
    layout->addWidget(buttons);
    resize(460, sizeHint().height());
}

} // namespace slicescope
