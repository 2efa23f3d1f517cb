#ifndef EMBER_BENCHMARKS_EMBER_BACKEND_H_
#define EMBER_BENCHMARKS_EMBER_BACKEND_H_

#include <tuple>
#include <vector>

#include "autograd/engine.h"
#include "nn/functional/conv.h"
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
  static Tensor channels_last(const Tensor& t) {
    return t.contiguous(ember::MemoryFormat::ChannelsLast);
  }
  static std::vector<Tensor> bn_pool_step(const Tensor& x, const Tensor& w, const Tensor& b,
                                          const Tensor& gy) {
    const Tensor xs = x.detach().requires_grad_(), ws = w.detach().requires_grad_(),
                 bs = b.detach().requires_grad_();
    Tensor y =
        std::get<0>(ember::native_batch_norm(xs, ws, bs, Tensor(), Tensor(), true, 0.1, 1e-5));
    Tensor z = ember::max_pool2d(y, {3, 3}, {2, 2}, {1, 1});
    return ember::autograd::grad({z}, {xs, ws, bs}, {gy});
  }
  static std::vector<Tensor> conv3d_step(const Tensor& x, const Tensor& w, const Tensor& b,
                                         const Tensor& gy) {
    const Tensor xs = x.detach().requires_grad_(), ws = w.detach().requires_grad_(),
                 bs = b.detach().requires_grad_();
    namespace F = ember::nn::functional;
    Tensor y = F::conv3d(xs, ws, F::Conv3dFuncOptions().bias(bs).padding(1));
    return ember::autograd::grad({y}, {xs, ws, bs}, {gy});
  }
  static void set_threads(int n) { ember::set_num_threads(n); }
};

}  // namespace ember::bench

#endif  // EMBER_BENCHMARKS_EMBER_BACKEND_H_
