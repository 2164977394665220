// SPDX-License-Identifier: GPL-3.0-or-later
#include "problemslist.h"

namespace slicescope {

namespace {

constexpr int kMaxErrorRows = 8;
constexpr int kErrorRole = Qt::UserRole + 1;

} // namespace

ProblemsList::ProblemsList(QWidget *parent)
    : QListWidget(parent)
{
    setObjectName(QStringLiteral("problems"));
}

void ProblemsList::showSnapshot(const ClusterSnapshot &snapshot, const QString &spoolError)
{
    clear();
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
