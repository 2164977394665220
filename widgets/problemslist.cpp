// SPDX-License-Identifier: GPL-3.0-or-later
#include "problemslist.h"

#include <algorithm>

namespace slicescope {

namespace {

constexpr int kMaxErrorRows = 8;
constexpr int kErrorRole = Qt::UserRole + 1;
constexpr int kSliceRole = Qt::UserRole + 2;

} // namespace

ProblemsList::ProblemsList(QWidget *parent)
    : QListWidget(parent)
{
    setObjectName(QStringLiteral("problems"));
}

QString ProblemsList::sliceOfRow(const QListWidgetItem *item)
{
    return item ? item->data(kSliceRole).toString() : QString();
}

void ProblemsList::showSnapshot(const ClusterSnapshot &snapshot, const QString &spoolError, const QList<Alert> &alerts)
{
    clear();
    QList<const Alert *> sorted;
    for (const Alert &a : alerts)
        sorted.append(&a);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Alert *a, const Alert *b) { return a->severity > b->severity; });
    for (const Alert *a : std::as_const(sorted)) {
        QString severity = toText(a->severity);
        severity[0] = severity[0].toUpper();
        auto *row = new QListWidgetItem(tr("%1 \u00b7 %2: %3").arg(severity, toText(a->kind), a->text));
        row->setData(kSliceRole, a->selectSlice);
        row->setToolTip(a->since.isValid() ? tr("since %1 UTC").arg(a->since.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))) : QString());
        addItem(row);
    }
    for (const Slice &s : snapshot.slices)
        if (!s.problems.isEmpty())
            addItem(tr("%1: %2").arg(s.name, s.problems.join(QStringLiteral(", "))));
    addItems(snapshot.warnings);
    if (!spoolError.isEmpty())
        addSpoolError(spoolError);
}

void ProblemsList::addSpoolError(const QString &error)
{
    insertItem(0, tr("History spool: %1").arg(error));
}

void ProblemsList::addSourceError(const QString &message)
{
    const QString text = tr("Error: %1").arg(message);
    for (int row = 0; row < count(); ++row) {
        if (item(row)->data(kErrorRole).toBool() && item(row)->text() == text) {
            delete takeItem(row);
            break;
        }
    }
    auto *error = new QListWidgetItem(text);
    error->setData(kErrorRole, true);
    insertItem(0, error);
    int errors = 0;
    for (int row = 0; row < count();) {
        if (item(row)->data(kErrorRole).toBool() && ++errors > kMaxErrorRows)
            delete takeItem(row);
        else
            ++row;
    }
}

} // namespace slicescope
