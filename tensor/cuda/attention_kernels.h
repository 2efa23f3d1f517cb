// Note [Fused attention] on CUDA: the launchers of attention.cu, called
// from attention.cc with raw pointers (nvcc only sees this header, not
// ember's tensors). Internal to //tensor/cuda.

#ifndef EMBER_TENSOR_CUDA_ATTENTION_KERNELS_H_
#define EMBER_TENSOR_CUDA_ATTENTION_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {

// One call's shapes and element strides. q/k/v rows are contiguous (unit
// stride in the last dim); batch/head strides may be 0 (broadcast). The
// mask, when given, is read at b * m_bs + h * m_hs + i * m_rs + j * m_cs.
struct FlashGeometry {
  int64_t B, H, L, S, E, Ev;
  int64_t q_bs, q_hs, q_rs;
  int64_t k_bs, k_hs, k_rs;
  int64_t v_bs, v_hs, v_rs;
  int64_t m_bs, m_hs, m_rs, m_cs;
  bool causal;
  double scale;
};

// The largest head dims (E and Ev) the kernels take; larger ones use the
// math path.
constexpr int64_t kFlashMaxHeadDim = 64;

// out [B, H, L, Ev] and lse [B, H, L], contiguous; float or double.
cudaError_t launch_flash_forward(bool is_double, const FlashGeometry& g, const void* q,
                                 const void* k, const void* v, const void* mask, void* out,
                                 void* lse);

// go and out contiguous [B, H, L, Ev]; gq [B, H, L, E], gk [B, H, S, E],
// gv [B, H, S, Ev] contiguous, written (not accumulated); delta: scratch
// [B, H, L] of the same dtype.
cudaError_t launch_flash_backward(bool is_double, const FlashGeometry& g, const void* go,
                                  const void* q, const void* k, const void* v, const void* mask,
                                  const void* out, const void* lse, void* delta, void* gq,
                                  void* gk, void* gv);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_ATTENTION_KERNELS_H_
