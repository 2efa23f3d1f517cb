// //benchmarks:tensor_ops: dispatch overhead, elementwise add, sum and mm
// of //tensor with 1 and 2 threads. See BENCHMARKS.md for figures.
//
//   ./bazelw run //benchmarks:tensor_ops

#include <benchmark/benchmark.h>

#include "benchmarks/ember_backend.h"
#include "benchmarks/tensor_ops_cases.h"

int main(int argc, char** argv) {
  ember::bench::register_cases<ember::bench::EmberBackend>("ember/");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
