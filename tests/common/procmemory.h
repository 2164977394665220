// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a process holds, for the tests and benchmarks that bound memory (issue 30): a field of
// /proc/PID/status, the peak reset, and whether this build runs under AddressSanitizer (whose
// quarantine keeps freed memory resident, so a peak there says nothing about what the code keeps).
// Linux only; -1 where /proc is not there.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace slicescope::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

// A field of /proc/PID/status ("VmRSS", "VmHWM") in bytes, or -1; pid 0 is this process.
inline qint64 procStatusBytes(const char *field, qint64 pid = 0)
{
    QFile status(pid ? QStringLiteral("/proc/%1/status").arg(pid) : QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toLongLong() * 1024;
    return -1;
}

inline double procStatusMiB(const char *field, qint64 pid = 0)
{
    const qint64 bytes = procStatusBytes(field, pid);
    return bytes < 0 ? -1 : double(bytes) / (1024.0 * 1024.0);
}

// Sets this process's peak (VmHWM) back to its current RSS (Linux 4.0+); false when it cannot.
inline bool resetPeakMemory()
{
    QFile clear(QStringLiteral("/proc/self/clear_refs"));
    return clear.open(QIODevice::WriteOnly) && clear.write("5") == 1;
}

} // namespace slicescope::testing
