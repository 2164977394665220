// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the fuzz targets: one QCoreApplication for the process (QObjects, timers and the
// network stack want one), Qt's own warnings kept off the fuzzer's output, and a check that aborts
// with a message, so libFuzzer records the input as a crash.

#include <QByteArray>
#include <QCoreApplication>
#include <QtGlobal>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace slicescope::fuzz {

inline void quietMessages(QtMsgType type, const QMessageLogContext &, const QString &message)
{
    if (type == QtFatalMsg) {
        std::fprintf(stderr, "qFatal: %s\n", qPrintable(message));
        std::abort();
    }
}

// Call at the top of LLVMFuzzerTestOneInput; cheap after the first call.
inline void ensureApp()
{
    static QCoreApplication *app = [] {
        qInstallMessageHandler(quietMessages);
        static int argc = 1;
        static char name[] = "slicescope-fuzz";
        static char *argv[] = {name, nullptr};
        return new QCoreApplication(argc, argv);
    }();
    (void)app;
}

// Deletes what deleteLater() queued, without running timers or sockets.
inline void dropDeferred()
{
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

inline QByteArray bytesOf(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

} // namespace slicescope::fuzz

#define FUZZ_CHECK(cond) \
    do { \
        if (!(cond)) \
            ::slicescope::fuzz::fail(#cond); \
    } while (0)
