// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the requests (kubeclient.cpp) and the watches (kubewatch.cpp) share. Not installed.

#include "boundedfile.h" // sanitizeForMessage()

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace slicescope::kube {

inline QString shortBody(const QByteArray &body)
{
    return sanitizeForMessage(QString::fromUtf8(body.left(2048)).simplified(), 240);
}

// The message of a Kubernetes Status body ({"kind":"Status","message":...}), else a short excerpt.
inline QString statusMessage(const QByteArray &body)
{
    const QJsonObject status = QJsonDocument::fromJson(body).object();
    const QString message = status.value(QLatin1String("message")).toString();
    return message.isEmpty() ? shortBody(body) : sanitizeForMessage(message, 240);
}

} // namespace slicescope::kube
