// Matrix products on CUDA: the gemm_kernel of tensor/gemm.h through cuBLAS.
//
// ember's matrices are row-major with arbitrary row/column strides; cuBLAS
// is column-major. C = A B (row-major) is C^T = B^T A^T (column-major), so
// the call passes B first. A matrix cuBLAS can read in place is one whose
// rows or columns are unit-stride with a leading dimension at least the
// other extent; any other layout (and a batch whose matrices are not at
// one fixed distance from each other) is first copied dense on the device.
// A single matrix is one cublasGemmEx, a batch one
// cublasGemmStridedBatchedEx, for every floating dtype:
//  - float16 and bfloat16 on tensor cores, accumulating in float32, the
//    output rounded once to the input dtype (PyTorch's at::cuda::blas::gemm);
//  - float32 in float32, or on TF32 tensor cores where
//    set_float32_matmul_precision / cuda::matmul::set_allow_tf32 allow it
//    (Note [float32 matmul precision] in tensor/precision.h; off by default
//    as in PyTorch);
//  - double in double.
// Integers are refused as PyTorch refuses them ("addmm_cuda").
#include <cublas_v2.h>

#include <climits>
#include <memory>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cublas_handle.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/gemm.h"
#include "tensor/precision.h"

namespace ember {
namespace cuda {
namespace detail {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw Error(absl::StrCat("CUDA error: ", cublasGetStatusString(s), " when calling `", what,
                             "`"));
  }
}

cublasHandle_t cublas_handle(int device) {
  struct Handles {
    std::unordered_map<int, cublasHandle_t> by_device;
    ~Handles() {
      for (auto& kv : by_device) cublasDestroy(kv.second);
    }
  };
  thread_local Handles handles;
  auto it = handles.by_device.find(device);
  cublasHandle_t h;
  if (it != handles.by_device.end()) {
    h = it->second;
  } else {
    check_cublas(cublasCreate(&h), "cublasCreate(handle)");
    handles.by_device[device] = h;
  }
  check_cublas(cublasSetStream(h, current_stream_handle(device)), "cublasSetStream");
  return h;
}

}  // namespace detail

namespace {

using detail::check_cublas;
using ember::detail::BatchGeometry;

struct Layout {
  bool ok = false;
  bool col_major = false;  // unit-stride rows: cuBLAS reads it transposed
  int64_t ld = 0;
};

// How cuBLAS can read a rows x cols matrix with strides (rs, cs).
Layout layout_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cols == 1) cs = 1;
  if (rows == 1) rs = std::max<int64_t>(cols, 1);
  Layout l;
  if (cs == 1 && rs >= std::max<int64_t>(cols, 1)) {
    l = {true, false, rs};
  } else if (rs == 1 && cs >= std::max<int64_t>(rows, 1)) {
    l = {true, true, cs};
  }
  if (l.ld > INT_MAX) l.ok = false;
  return l;
}

// The distance between consecutive matrices of a batch flattened to one
// dim, when there is one (0 for a broadcast batch).
bool uniform_batch_stride(IntArrayRef batch, IntArrayRef strides, int64_t* stride) {
  int64_t expected = -1, inner = 1;
  *stride = 0;
  for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
    if (batch[d] == 1) continue;
    if (expected == -1) {
      *stride = strides[d];
    } else if (strides[d] != expected) {
      return false;
    }
    inner *= batch[d];
    expected = *stride * inner;
  }
  return true;
}

// t's matrices as one dense [batch..., rows, cols] tensor on its device.
Tensor dense_operand(const Tensor& t, IntArrayRef batch, IntArrayRef bstrides, int64_t rows,
                     int64_t cols, int64_t rs, int64_t cs) {
  DimVector sizes(batch.begin(), batch.end()), strides(bstrides.begin(), bstrides.end());
  sizes.push_back(rows);
  sizes.push_back(cols);
  strides.push_back(rs);
  strides.push_back(cs);
  Tensor view(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides,
                                           t.storage_offset()));
  return view.contiguous();
}

// How cuBLAS stores and multiplies one dtype. alpha and beta are read in
// the compute type's precision: double for double, float otherwise.
struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(ScalarType t) {
  switch (t) {
    case kHalf:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case kBFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case kFloat:
      return {CUDA_R_32F, cuda::matmul::allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                     : CUBLAS_COMPUTE_32F};
    default:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
  }
}

// T: the type of alpha and beta (float, or double for double).
template <typename T>
void gemm_typed(BatchGeometry g, Tensor a, Tensor b, Tensor& out, T alpha, T beta) {
  int64_t nbatch = 1;
  for (int64_t s : g.batch) nbatch *= s;
  Layout la = layout_of(g.M, g.K, g.a_rs, g.a_cs);
  Layout lb = layout_of(g.K, g.N, g.b_rs, g.b_cs);
  int64_t sa = 0, sb = 0;
  const bool ua = uniform_batch_stride(g.batch, g.a_bstrides, &sa);
  const bool ub = uniform_batch_stride(g.batch, g.b_bstrides, &sb);
  if (!la.ok || !ua) {
    a = dense_operand(a, g.batch, g.a_bstrides, g.M, g.K, g.a_rs, g.a_cs);
    la = layout_of(g.M, g.K, g.K, 1);
    sa = g.M * g.K;
  }
  if (!lb.ok || !ub) {
    b = dense_operand(b, g.batch, g.b_bstrides, g.K, g.N, g.b_rs, g.b_cs);
    lb = layout_of(g.K, g.N, g.N, 1);
    sb = g.K * g.N;
  }
  EMBER_CHECK(g.M <= INT_MAX && g.N <= INT_MAX && g.K <= INT_MAX && nbatch <= INT_MAX,
              "CUDA matrix products support dimensions up to ", INT_MAX);
  const int device = out.device().index();
  detail::DeviceGuard guard(device);
  cublasHandle_t h = detail::cublas_handle(device);
  check_cublas(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  if (g.K == 0) {  // cuBLAS leaves C alone for k == 0 only when beta == 1
    if (beta == T(0)) {
      out.zero_();
    } else {
      out.mul_(beta);
    }
    return;
  }
  // Column-major: C^T [N x M] = B^T [N x K] * A^T [K x M].
  const cublasOperation_t op_b = lb.col_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = la.col_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const GemmTypes types = gemm_types(out.dtype());
  const int m = static_cast<int>(g.N), n = static_cast<int>(g.M), k = static_cast<int>(g.K);
  const int ldc = static_cast<int>(std::max<int64_t>(g.N, 1));
  if (nbatch == 1) {
    check_cublas(cublasGemmEx(h, op_b, op_a, m, n, k, &alpha, b.data_ptr(), types.data,
                              static_cast<int>(lb.ld), a.data_ptr(), types.data,
                              static_cast<int>(la.ld), &beta, out.data_ptr(), types.data, ldc,
                              types.compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  } else {
    check_cublas(cublasGemmStridedBatchedEx(
                     h, op_b, op_a, m, n, k, &alpha, b.data_ptr(), types.data,
                     static_cast<int>(lb.ld), sb, a.data_ptr(), types.data,
                     static_cast<int>(la.ld), sa, &beta, out.data_ptr(), types.data, ldc,
                     g.M * g.N, static_cast<int>(nbatch), types.compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx");
  }
}

void gemm_cuda(const BatchGeometry& g, const Tensor& a, const Tensor& b, Tensor& out,
               const Scalar& alpha, const Scalar& beta) {
  if (out.numel() == 0) return;
  switch (out.dtype()) {
    case kHalf:
    case kBFloat16:
    case kFloat:
      gemm_typed<float>(g, a, b, out, alpha.to<float>(), beta.to<float>());
      return;
    case kDouble:
      gemm_typed<double>(g, a, b, out, alpha.to<double>(), beta.to<double>());
      return;
    default:
      ember::detail::throw_not_implemented("addmm_cuda", out.dtype());
  }
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(gemm_kernel, kCUDA, &cuda::gemm_cuda);
}  // namespace detail

}  // namespace ember
