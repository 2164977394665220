// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the process holds, for the benchmarks that watch memory (history, soak): resident memory
// from /proc/self/status, malloc's own count from jemalloc (the bench links it, as the app does),
// and open file descriptors from /proc/self/fd. Linux only; zeros where /proc is not there.

#include <QByteArray>
#include <QFile>
#include <QList>

#include <dirent.h>

#include <jemalloc/jemalloc.h>

namespace slicescope::bench {

// VmRSS and VmHWM of this process, in MB.
struct Rss {
    double current = 0;
    double peak = 0;
    double heapInUse = 0; // bytes malloc handed out and not freed (jemalloc's stats.allocated), MB
};

inline Rss readRss()
{
    Rss r;
    uint64_t epoch = 1;
    size_t size = sizeof epoch;
    mallctl("epoch", &epoch, &size, &epoch, size); // refresh the statistics
    size_t allocated = 0;
    size = sizeof allocated;
    if (mallctl("stats.allocated", &allocated, &size, nullptr, 0) == 0)
        r.heapInUse = double(allocated) / (1024.0 * 1024.0);
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return r;
    for (const QByteArray &line : f.readAll().split('\n')) {
        auto kb = [&](const char *key) {
            const QByteArray rest = line.mid(qsizetype(qstrlen(key))).trimmed();
            return rest.left(rest.indexOf(' ')).toDouble() / 1024.0;
        };
        if (line.startsWith("VmRSS:"))
            r.current = kb("VmRSS:");
        else if (line.startsWith("VmHWM:"))
            r.peak = kb("VmHWM:");
    }
    return r;
}

// File descriptors open in this process (the one reading /proc/self/fd not counted); -1 without /proc.
inline int openFileDescriptors()
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return -1;
    int n = 0;
    while (const dirent *e = readdir(dir))
        n += e->d_name[0] != '.';
    closedir(dir);
    return n - 1;
}

} // namespace slicescope::bench
