// SPDX-License-Identifier: GPL-3.0-or-later
// The kubeconfig loader, from bytes: the input is one to three kubeconfig files (split at a line
// "#---next-file"), merged as a KUBECONFIG list and resolved for the current context and then for
// each context it names. Nothing is run: loadKubeConfig only reads an exec plugin's settings
// (KubeExecCredentialProvider, which runs it, is not touched here). Relative file references
// resolve against a private empty folder. Messages must stay one line.

#include "fuzz_common.h"

#include "kubeconfig.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using namespace slicescope;

namespace {

QString folder()
{
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/slicescope-fuzz-kubeconfig-XXXXXX"));
    if (!dir.isValid())
        fuzz::fail("no temporary folder");
    return dir.path();
}

// Every message is one line of printable text: no newline, no other control character (a
// kubeconfig's bytes reach it through yaml-cpp's words and the names it quotes).
void checkMessage(const QString &message)
{
    for (const QChar c : message) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            std::fprintf(stderr, "a control character (0x%02x) in the message: %s\n", c.unicode(), qPrintable(message));
            fuzz::fail("a message holds a control character");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    const QList<QByteArray> parts = fuzz::bytesOf(data, size).split('\n');
    QList<QByteArray> files{{}};
    for (const QByteArray &line : parts) {
        if (line == "#---next-file" && files.size() < 3) {
            files.append(QByteArray());
            continue;
        }
        files.last() += line + '\n';
    }
    QStringList paths;
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QString path = folder() + QStringLiteral("/config%1").arg(i);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(files[i]) != files[i].size())
            fuzz::fail("cannot write the kubeconfig");
        paths << path;
    }

    KubeConfig config;
    KubeConfigContexts contexts;
    checkMessage(loadKubeConfig(paths, QString(), QString(), config, &contexts));
    int tried = 0;
    for (const QString &context : std::as_const(contexts.contexts)) {
        KubeConfig other;
        checkMessage(loadKubeConfig(paths, context, QStringLiteral("fuzz-ns"), other));
        if (++tried == 4)
            break;
    }
    return 0;
}
