#ifndef EMBER_TENSOR_CUDA_CUBLAS_HANDLE_H_
#define EMBER_TENSOR_CUDA_CUBLAS_HANDLE_H_

// The cuBLAS handles of blas.cc (matrix products) and cusolver.cc (trsm).
// Internal to //tensor/cuda; built only with a toolkit.

#include <cublas_v2.h>

namespace ember {
namespace cuda {
namespace detail {

// Throws "CUDA error: <cuBLAS status> when calling `what`" unless s is
// CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t s, const char* what);

// This thread's handle for `device` (cuBLAS handles are not to be shared
// between threads; they live until the thread exits), set to the device's
// current stream (Note [CUDA streams] in stream.cc): the stream may have
// changed since the last call.
cublasHandle_t cublas_handle(int device);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_CUBLAS_HANDLE_H_
