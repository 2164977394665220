// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the scale dialog says about planScale()'s answer, as functions of the plan alone (no
// widget, no state): the review's text with the exact JSON Patch, the confirm button's words,
// the preview's summary, and what changed in a group between two plans. The words are the
// dialog's (translated in ScaleDialog's context).

#include "scaleplan.h"
#include "snapshot.h"

#include <QString>
#include <QStringList>

namespace slicescope {

// "unbounded" for a maxReplicas the spec leaves out (planScale() says INT_MAX), else the number.
QString scaleBound(int value);
// What differs between the group a plan saw and the group now, in the words the backends use.
QStringList scaleGroupChanges(const WorkerGroup &before, const WorkerGroup &now);
// The confirm button of a review of `plan`: "Scale to 5 slices", "Remove slice v6e-4x4-1"...
QString scaleConfirmText(const ScalePlan &plan, ScaleRequest::Mode mode);
// The review: what will change, line by line, then the JSON Patch one op per line.
QString scaleReviewText(const ScalePlan &plan);
// The preview's words for an allowed plan that changes something (rich text); the note about
// displaced placement groups in `warningColor`.
QString scalePlanHtml(const ScalePlan &plan, const QString &warningColor);

} // namespace slicescope
