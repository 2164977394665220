// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The summary every benchmark of slicescope-bench prints of its timings.

#include <algorithm>
#include <vector>

namespace slicescope::bench {

struct Stats {
    double median = 0, p90 = 0, min = 0, max = 0;
};

inline Stats statsOf(std::vector<double> v)
{
    Stats s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.p90 = v[std::min(n - 1, n * 9 / 10)];
    s.min = v.front();
    s.max = v.back();
    return s;
}

inline double median(std::vector<double> v)
{
    return statsOf(std::move(v)).median;
}

} // namespace slicescope::bench
