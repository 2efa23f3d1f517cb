#ifndef EMBER_BENCHMARKS_CUDA_TIMING_H_
#define EMBER_BENCHMARKS_CUDA_TIMING_H_

// The GPU benchmarks' clock (cuda_ops, models_cuda; their PyTorch twins in
// tools/ time the same way): the median of `iters` calls of f after 3
// warm-up calls, each call synchronized, launches included.

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "tensor/cuda/cuda.h"

namespace ember {
namespace bench {

inline double median_us(int iters, const std::function<void()>& f) {
  for (int i = 0; i < 3; ++i) f();
  cuda::synchronize();
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    cuda::synchronize();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// median_us, but the timed calls stop once they have taken budget_s seconds
// (after at least 5 of them), so a case that runs far slower than expected
// costs seconds of a GPU session, not minutes. The PyTorch twins do the same.
inline double median_us_within(int iters, double budget_s, const std::function<void()>& f) {
  for (int i = 0; i < 3; ++i) f();
  cuda::synchronize();
  std::vector<double> t;
  double spent_us = 0;
  for (int i = 0; i < iters && (i < 5 || spent_us < budget_s * 1e6); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    cuda::synchronize();
    t.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    spent_us += t.back();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace bench
}  // namespace ember

#endif  // EMBER_BENCHMARKS_CUDA_TIMING_H_
