#ifndef EMBER_BENCHMARKS_EMBER_BACKEND_H_
#define EMBER_BENCHMARKS_EMBER_BACKEND_H_

#include <tuple>
#include <vector>

#include "tensor/all.h"

namespace ember::bench {

// ember as a backend of tensor_ops_cases.h.
struct EmberBackend {
  using Tensor = ember::Tensor;
  static Tensor rand(std::vector<int64_t> sizes) { return ember::rand(sizes); }
  static Tensor add(const Tensor& a, const Tensor& b) { return a + b; }
  static Tensor sum(const Tensor& a) { return a.sum(); }
  static Tensor mean(const Tensor& a) { return a.mean(); }
  static Tensor mm(const Tensor& a, const Tensor& b) { return ember::mm(a, b); }
  static Tensor maybe_bf16(const Tensor& t, bool yes) { return yes ? t.to(ember::kBFloat16) : t; }
  static std::tuple<Tensor, Tensor, Tensor> conv_step(const Tensor& x, const Tensor& w,
                                                      const Tensor& b, const Tensor& gy,
                                                      int64_t stride, int64_t pad, bool want_gx) {
    Tensor y = ember::convolution(x, w, b, {stride, stride}, {pad, pad}, {1, 1}, 1);
    return ember::convolution_backward(gy, x, w, {stride, stride}, {pad, pad}, {1, 1}, 1,
                                       {want_gx, true, true});
  }
  static void set_threads(int n) { ember::set_num_threads(n); }
};

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_EMBER_BACKEND_H_
