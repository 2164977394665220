// SPDX-License-Identifier: GPL-3.0-or-later
// The Kubernetes watch line decoder: KubeWatch::handleEvent on each line of a watch stream, the
// way onStreamData feeds it (one call per '\n'-terminated line, while the stream is open), and the
// unterminated rest the way onStreamFinished does (after the stream ended, so without one). A
// line that ends the stream (ERROR, 410, not JSON) is followed by a new stream, as a reconnect
// would give. Nothing is sent: the client's requests are never started (no event loop runs) and
// die with it after each input.
//
// Checked: the collection written back (listBody, what a capture stores) is a JSON List holding
// exactly the objects the watch keeps. Fed twice: to a watch of every namespace, which keeps what
// it is sent, and to a namespaced one, which drops objects of other namespaces (issue 30).

#include "fuzz_common.h"

#include "kubeclient.h"
#include "kubeconfig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

namespace slicescope {

namespace {

// A reply that is never read: it only stands for "the stream is open".
class OpenStream : public QNetworkReply
{
public:
    explicit OpenStream(QObject *parent)
        : QNetworkReply(parent)
    { open(QIODevice::ReadOnly); }
    void abort() override { }

protected:
    qint64 readData(char *, qint64) override { return -1; }
};

} // namespace

struct KubeWatchFuzzAccess {
    static void feed(KubeWatch &watch, const QByteArray &stream)
    {
        qsizetype start = 0;
        for (;;) {
            const qsizetype end = stream.indexOf('\n', start);
            if (end < 0)
                break;
            if (!watch.m_stream)
                watch.m_stream = new OpenStream(&watch);
            if (end > start)
                watch.handleEvent(stream.constData() + start, size_t(end - start));
            start = end + 1;
        }
        watch.m_stream = nullptr;
        if (start < stream.size())
            watch.handleEvent(stream.constData() + start, size_t(stream.size() - start));
    }
};

} // namespace slicescope

using namespace slicescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    KubeConfig config;
    config.server = QUrl(QStringLiteral("https://127.0.0.1:9"));
    config.token = "fuzz";
    for (const QString &path : {QStringLiteral("/api/v1/pods"), QStringLiteral("/api/v1/namespaces/fuzz/pods")}) {
        KubeClient client(config);
        KubeWatch watch(&client, path, QString(), "PodList");
        KubeWatchFuzzAccess::feed(watch, fuzz::bytesOf(data, size));

        QJsonParseError error;
        const QJsonDocument list = QJsonDocument::fromJson(watch.listBody(), &error);
        FUZZ_CHECK(error.error == QJsonParseError::NoError && list.isObject());
        FUZZ_CHECK(list.object().value(QLatin1String("kind")).toString() == QLatin1String("PodList"));
        FUZZ_CHECK(list.object().value(QLatin1String("items")).toArray().size() == watch.size());
        if (!watch.watchedNamespace().isEmpty())
            for (const QJsonValue &item : list.object().value(QLatin1String("items")).toArray())
                FUZZ_CHECK(item.toObject().value(QLatin1String("metadata")).toObject().value(QLatin1String("namespace")).toString() == watch.watchedNamespace());
    }
    fuzz::dropDeferred();
    return 0;
}
