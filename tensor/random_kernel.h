#ifndef EMBER_TENSOR_RANDOM_KERNEL_H_
#define EMBER_TENSOR_RANDOM_KERNEL_H_

// The device kernels of random.cc's fills (Note [Device random numbers] in
// random.cc) and their kernel tables (Note [Kernel tables]). The CPU keeps
// its own serial loops (Note [PyTorch-identical random streams]); only
// devices register here (tensor/cuda/random.cc). Internal.

#include <cstdint>

#include "tensor/kernel_table.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

enum class RandomKind {
  kUniform,          // [a, b)
  kNormal,           // mean a, std b
  kBernoulli,        // probability a
  kBernoulliTensor,  // probabilities p
  kRandom,           // from + [0, range)
  kExponential,      // rate a
};

// One fill of `self` (any strides): element i, counted in row-major order
// over self's sizes, takes its value from Philox(seed, offset, i / k) for
// the k elements one draw serves.
struct RandomFill {
  RandomKind kind = RandomKind::kUniform;
  double a = 0, b = 0;
  int64_t from = 0;
  uint64_t range = 0;
  // kBernoulliTensor: float or double probabilities on self's device,
  // expanded to self's sizes.
  Tensor p;
  uint64_t seed = 0;
  uint64_t offset = 0;
  // The generator `seed` and `offset` come from: a CUDA graph capture
  // translates them into offsets within the graph (Note [Graph-safe random
  // numbers] in tensor/cuda/graph.cc).
  const GeneratorImpl* generator = nullptr;
};

using RandomFillFn = void (*)(Tensor& self, const RandomFill& fill);
EMBER_DECLARE_KERNEL_TABLE(random_fill_kernel, RandomFillFn);

// Sets fill's seed, offset (one reserved) and generator from gen, under its
// lock: what every device draw starts with.
void reserve_device_draw(RandomFill& fill, const Generator& gen);

// native_dropout's fused pass (Note [Fused dropout] in native_dropout.cc):
// out = input * mask * scale, all of input's sizes (out floating, mask
// bool). With `draw` (a kBernoulli fill whose a is the keep probability)
// the mask is drawn first, as that fill would draw a bool tensor; without
// (nullptr) it is read. Devices that register none use the composite ops.
using DropoutFn = void (*)(const Tensor& input, Tensor& mask, Tensor& out, double scale,
                           const RandomFill* draw);
EMBER_DECLARE_KERNEL_TABLE(dropout_kernel, DropoutFn);

// randperm(n) into out (1-D, n elements, on the device), drawing from gen.
using RandpermFn = void (*)(Tensor& out, const Generator& gen);
EMBER_DECLARE_KERNEL_TABLE(randperm_kernel, RandpermFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_RANDOM_KERNEL_H_
