#ifndef EMBER_TENSOR_CUDA_RANDOM_KERNELS_H_
#define EMBER_TENSOR_CUDA_RANDOM_KERNELS_H_

// The launcher of the random fills (random.cu), shared by nvcc and the host
// compiler like kernels.h: Note [Device random numbers] in
// tensor/random.cc.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensor/cuda/kernels.h"

namespace ember {
namespace cuda {
namespace kernels {

enum class RandomOp : int {
  kUniform,          // [a, b) (floating)
  kNormal,           // mean a, std b (floating)
  kBernoulli,        // 1 with probability a (every dtype)
  kBernoulliTensor,  // 1 with probability operand 1 (float, or double with p_double)
  kRandom,           // from + [0, range) (every dtype)
  kExponential,      // rate a (floating)
};

struct RandomArgs {
  RandomOp op = RandomOp::kUniform;
  double a = 0, b = 0;
  int64_t from = 0;
  uint64_t range = 0;
  bool p_double = false;
  uint64_t seed = 0, offset = 0;
  // Inside a CUDA graph: the device words {seed, base offset} that each
  // replay rewrites; the draw then uses seed graph_state[0] and offset
  // graph_state[1] + offset (Note [Graph-safe random numbers] in graph.cc).
  const uint64_t* graph_state = nullptr;
};

// Fills operand 0 of `e` (dtype `dtype`; its linear index is the element's
// row-major position) with one Philox draw per 4 elements, or per 2 where
// each needs 64 bits (double values; ranges of 2^32 or more).
// cudaErrorInvalidValue for a dtype `op` does not take.
cudaError_t launch_random(DType dtype, const Elementwise& e, const RandomArgs& args);

// native_dropout (Note [Fused dropout] in tensor/native_dropout.cc): over
// the operands of `e` (0: out, 1: input, 2: bool mask; dtype `dtype` for
// out and input, floating only), out = input * mask * scale. With
// `draw` the mask is drawn first, mask = uniform < keep from the Philox
// words of args (exactly as kBernoulli with a = keep fills a bool tensor
// of the same sizes); without, it is read (native_dropout_backward).
cudaError_t launch_dropout(DType dtype, const Elementwise& e, const RandomArgs& args, double keep,
                           double scale, bool draw);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_RANDOM_KERNELS_H_
