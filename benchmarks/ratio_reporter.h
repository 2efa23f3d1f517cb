#ifndef EMBER_BENCHMARKS_RATIO_REPORTER_H_
#define EMBER_BENCHMARKS_RATIO_REPORTER_H_

// A Google Benchmark reporter for runs that register every case twice,
// under "ember/" and "libtorch/": the usual table, then one line per case
// with both times and ratio = ember time / libtorch time (below 1: ember is
// faster).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ember::bench {

// Prints the usual console table and remembers each run's time per iteration.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    // One time per case: the run itself, or the median of repetitions.
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      times_[r.run_name.str()] = r.GetAdjustedRealTime();
    }
  }
  void PrintRatios() const {
    std::printf("\n%-28s %14s %14s %8s\n", "case", "ember", "libtorch", "ratio");
    for (const auto& [name, t] : times_) {
      if (name.rfind("ember/", 0) != 0) continue;
      std::string rest = name.substr(6);
      auto it = times_.find("libtorch/" + rest);
      if (it == times_.end()) continue;
      std::printf("%-28s %14.3f %14.3f %8.2f\n", rest.c_str(), t, it->second, t / it->second);
    }
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_RATIO_REPORTER_H_
