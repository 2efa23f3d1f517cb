// Note [Fused attention] on CUDA: tensors to raw pointers for
// attention.cu's launchers, registered in tensor/attention.h's kernel
// tables. Its own library (//tensor/cuda:attention), linked by
// //nn/functional, so that //tensor does not depend on //tensor:attention.

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "tensor/attention.h"
#include "tensor/empty.h"
#include "tensor/cuda/attention_kernels.h"
#include "tensor/error.h"

namespace ember {
namespace {

using cuda::kernels::FlashGeometry;

void check(cudaError_t err) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // clear it
  throw Error(absl::StrCat("CUDA error: ", cudaGetErrorString(err)));
}

// Runs on the tensors' device, restoring the caller's current device.
class OnDevice {
 public:
  explicit OnDevice(const Tensor& t) {
    check(cudaGetDevice(&previous_));
    const int want = t.device().has_index() ? t.device().index() : previous_;
    if (want != previous_) check(cudaSetDevice(want));
  }
  ~OnDevice() { cudaSetDevice(previous_); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
};

FlashGeometry geometry(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                       bool is_causal, double scale) {
  FlashGeometry g{};
  g.B = q.size(0);
  g.H = q.size(1);
  g.L = q.size(2);
  g.S = k.size(2);
  g.E = q.size(3);
  g.Ev = v.size(3);
  g.q_bs = q.stride(0), g.q_hs = q.stride(1), g.q_rs = q.stride(2);
  g.k_bs = k.stride(0), g.k_hs = k.stride(1), g.k_rs = k.stride(2);
  g.v_bs = v.stride(0), g.v_hs = v.stride(1), g.v_rs = v.stride(2);
  if (mask.defined()) {
    g.m_bs = mask.stride(0), g.m_hs = mask.stride(1), g.m_rs = mask.stride(2);
    g.m_cs = mask.stride(3);
  }
  g.causal = is_causal;
  g.scale = scale;
  return g;
}

void check_dtype_and_dims(const Tensor& q, const FlashGeometry& g) {
  EMBER_CHECK(q.dtype() == kFloat || q.dtype() == kDouble,
              "_scaled_dot_product_flash_attention on CUDA: float or double, got ",
              dtype_name(q.dtype()));
  EMBER_CHECK(g.E <= detail::kCudaFlashMaxHeadDim && g.Ev <= detail::kCudaFlashMaxHeadDim,
              "_scaled_dot_product_flash_attention on CUDA: head dims up to ",
              detail::kCudaFlashMaxHeadDim, ", got ", g.E, " and ", g.Ev);
}

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

void flash_forward_cuda(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                        bool is_causal, double scale, Tensor& out, Tensor& lse) {
  const FlashGeometry g = geometry(q, k, v, mask, is_causal, scale);
  check_dtype_and_dims(q, g);
  if (out.numel() == 0) return;
  OnDevice on(q);
  check(cuda::kernels::launch_flash_forward(q.dtype() == kDouble, g, q.data_ptr(), k.data_ptr(),
                                            v.data_ptr(), data_or_null(mask), out.data_ptr(),
                                            lse.data_ptr()));
}

void flash_backward_cuda(const Tensor& go, const Tensor& q, const Tensor& k, const Tensor& v,
                         const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                         double scale, Tensor& gq, Tensor& gk, Tensor& gv) {
  const FlashGeometry g = geometry(q, k, v, mask, is_causal, scale);
  check_dtype_and_dims(q, g);
  if (q.numel() == 0 || k.numel() == 0) return;
  OnDevice on(q);
  Tensor delta = empty(lse.sizes(), lse.options());
  check(cuda::kernels::launch_flash_backward(
      q.dtype() == kDouble, g, go.data_ptr(), q.data_ptr(), k.data_ptr(), v.data_ptr(),
      data_or_null(mask), out.data_ptr(), lse.data_ptr(), delta.data_ptr(), gq.data_ptr(),
      gk.data_ptr(), gv.data_ptr()));
}

}  // namespace

namespace detail {
EMBER_REGISTER_KERNEL(flash_attention_forward_kernel, kCUDA, &flash_forward_cuda);
EMBER_REGISTER_KERNEL(flash_attention_backward_kernel, kCUDA, &flash_backward_cuda);
}  // namespace detail

}  // namespace ember
