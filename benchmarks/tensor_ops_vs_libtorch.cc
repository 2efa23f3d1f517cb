// //benchmarks:tensor_ops_vs_libtorch: the tensor_ops cases through ember and
// through Debian's libtorch (1.13) in one run, then the time ratios.
//
//   ./bazelw run //benchmarks:tensor_ops_vs_libtorch
//
// ratio = ember time / libtorch time (below 1: ember is faster).

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "benchmarks/ember_backend.h"
#include "benchmarks/tensor_ops_cases.h"

namespace ember::bench {
namespace {

struct TorchBackend {
  using Tensor = torch::Tensor;
  static Tensor rand(std::vector<int64_t> sizes) { return torch::rand(sizes); }
  static Tensor add(const Tensor& a, const Tensor& b) { return a + b; }
  static Tensor sum(const Tensor& a) { return a.sum(); }
  static Tensor mm(const Tensor& a, const Tensor& b) { return torch::mm(a, b); }
  static void set_threads(int n) { torch::set_num_threads(n); }
};

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

}  // namespace
}  // namespace ember::bench

int main(int argc, char** argv) {
  ember::bench::register_cases<ember::bench::EmberBackend>("ember/");
  ember::bench::register_cases<ember::bench::TorchBackend>("libtorch/");
  benchmark::Initialize(&argc, argv);
  ember::bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
