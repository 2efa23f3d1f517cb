#ifndef EMBER_BENCHMARKS_TRAIN_STEP_BACKENDS_H_
#define EMBER_BENCHMARKS_TRAIN_STEP_BACKENDS_H_

// The backends of train_step_cases.h. ember spells the C++ frontend as
// libtorch does, so one definition serves both:
//   EMBER_TRAIN_STEP_BACKEND(EmberTrainBackend, ember, ember::nn, ember::optim);
//   EMBER_TRAIN_STEP_BACKEND(TorchTrainBackend, torch, torch::nn, torch::optim);

#include <cstdint>
#include <vector>

// Defines struct Name over a libtorch-shaped library: `lib` the tensor
// namespace, `nn_ns` its nn namespace, `optim_ns` its optimizers.
#define EMBER_TRAIN_STEP_BACKEND(Name, lib, nn_ns, optim_ns)                               \
  struct Name {                                                                             \
    using Tensor = lib::Tensor;                                                             \
    using Module = nn_ns::Module;                                                           \
    using Conv2d = nn_ns::Conv2d;                                                           \
    using Linear = nn_ns::Linear;                                                           \
    static nn_ns::Conv2dOptions conv_options(int64_t in, int64_t out, int64_t k) {          \
      return nn_ns::Conv2dOptions(in, out, k);                                              \
    }                                                                                       \
    static Tensor relu(const Tensor& x) { return nn_ns::functional::relu(x); }             \
    static Tensor max_pool2d(const Tensor& x, int64_t k) {                                  \
      return nn_ns::functional::max_pool2d(x, nn_ns::functional::MaxPool2dFuncOptions(k));  \
    }                                                                                       \
    static Tensor cross_entropy(const Tensor& out, const Tensor& target) {                  \
      return nn_ns::functional::cross_entropy(out, target);                                 \
    }                                                                                       \
    struct Sgd {                                                                            \
      Sgd(std::vector<Tensor> params, double lr, double momentum)                          \
          : opt(std::move(params), optim_ns::SGDOptions(lr).momentum(momentum)) {}          \
      void zero_grad() { opt.zero_grad(); }                                                 \
      void step() { opt.step(); }                                                           \
      optim_ns::SGD opt;                                                                    \
    };                                                                                      \
    static Tensor randn(std::vector<int64_t> s) { return lib::randn(s); }                   \
    static Tensor randint(int64_t high, std::vector<int64_t> s) {                           \
      return lib::randint(high, s);                                                         \
    }                                                                                       \
    static void manual_seed(uint64_t seed) { lib::manual_seed(seed); }                      \
    static void set_threads(int n) { lib::set_num_threads(n); }                             \
  }

#endif  // EMBER_BENCHMARKS_TRAIN_STEP_BACKENDS_H_
