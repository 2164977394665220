// SPDX-License-Identifier: GPL-3.0-or-later
#include "source.h"

#include "capturefile.h"

#include <QFileInfo>

namespace slicescope {

CaptureFileSource::CaptureFileSource(QString path, QObject *parent)
    : Source(parent), m_path(std::move(path))
{
}

QString CaptureFileSource::description() const
{
    return tr("capture %1").arg(QFileInfo(m_path).fileName());
}

void CaptureFileSource::start()
{
    const CaptureReadResult result = readCaptureFile(m_path);
    if (!result.ok()) {
        Q_EMIT failed(result.error);
        return;
    }
    Q_EMIT captureReceived(result.captures.last());
}

StaticSource::StaticSource(Capture capture, QString description, QObject *parent)
    : Source(parent), m_capture(std::move(capture)), m_description(std::move(description))
{
}

void StaticSource::start()
{
    Q_EMIT captureReceived(m_capture);
}

} // namespace slicescope
