// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>

namespace slicescope::bench {

// `slicescope-bench history [options]`: argv[first..] are the options. usageError prints the
// message and the usage and returns the exit status.
int runHistoryBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
// `slicescope-bench scrub [options]` (scrubbench.cpp): the scrubber's cost on a large cluster.
int runScrubBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
// `slicescope-bench soak [options]` (soakbench.cpp): the window's whole path for simulated minutes.
int runSoakBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
// `slicescope-bench alerts [options]` (alertsbench.cpp): AlertEngine::observe() per snapshot.
int runAlertsBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
// `slicescope-bench activity [options]` (activitybench.cpp): chip activity's join next to the ingest.
int runActivityBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
// fleetbench.cpp: many contexts through scripted servers (issue 16); the child that plays them.
// `slicescope-bench relay` (relaybench.cpp): the relay under issue 30's load, in its own process.
int runRelayBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
int runFleetBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError);
int runFleetServe(int contexts, int nodes, int churn);

} // namespace slicescope::bench
