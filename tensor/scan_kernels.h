#ifndef EMBER_TENSOR_SCAN_KERNELS_H_
#define EMBER_TENSOR_SCAN_KERNELS_H_

// The per-device kernel table of the ops that run along one dim (scan.cc):
// cumsum, cumprod, softmax, log_softmax. Internal; the CUDA backend
// registers its kernels from tensor/cuda/.

#include <cstdint>

#include "tensor/kernel_table.h"
#include "tensor/tensor.h"

namespace ember {
namespace detail {

enum class ScanKind { kCumsum, kCumprod, kSoftmax, kLogSoftmax };

// The input viewed as [outer, len, inner], the scanned dim in the middle.
struct ScanShape {
  int64_t outer = 1, len = 1, inner = 1;
};

// `in` and `out` are contiguous with the same shape; out's dtype is int64
// for cumsum/cumprod of bool and integers, else in's.
using ScanKernelFn = void (*)(ScanKind kind, const Tensor& in, const ScanShape& s, Tensor& out);
EMBER_DECLARE_KERNEL_TABLE(scan_stub, ScanKernelFn);

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_SCAN_KERNELS_H_
