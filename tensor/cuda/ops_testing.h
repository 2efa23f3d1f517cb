#ifndef EMBER_TENSOR_CUDA_OPS_TESTING_H_
#define EMBER_TENSOR_CUDA_OPS_TESTING_H_

// Helpers of the CUDA-against-CPU kernel tests (ops_test.cc,
// ops_more_test.cc): deterministic inputs, the comparison of a CUDA result
// with the CPU's, and the skip without a device. Test-only.

#include <gtest/gtest.h>

#include "tensor/all.h"

namespace ember {
namespace cuda_testing {

#define SKIP_WITHOUT_CUDA_DEVICE()                                                   \
  do {                                                                               \
    if (!::ember::cuda::is_available())                                              \
      GTEST_SKIP() << "no usable CUDA device on this machine";                       \
  } while (0)

inline const Device kCuda(kCUDA, 0);

// Deterministic values of `dtype` in [-range, range] (non-negative for
// uint8 and bool), from a fixed seed.
inline Tensor values(IntArrayRef sizes, ScalarType dtype, double range = 10) {
  manual_seed(static_cast<uint64_t>(sizes.size() * 131 + static_cast<int>(dtype)));
  Tensor r = rand(sizes, TensorOptions(kDouble)) * (2 * range) - range;
  if (dtype == kBool) return r.gt(0);
  if (dtype == kByte) return r.abs().to(dtype);
  if (is_floating_point(dtype)) return r.to(dtype);
  return r.round().to(dtype);
}

// cuda_result (on the device) equals cpu_result: exactly for bool and
// integers, within rtol/atol (NaN equal to NaN) for floating dtypes.
inline void expect_matches(const Tensor& cuda_result, const Tensor& cpu_result,
                           double rtol = 1e-6, double atol = 1e-6) {
  ASSERT_TRUE(cuda_result.is_cuda());
  Tensor got = cuda_result.to(Device(kCPU));
  ASSERT_EQ(got.sizes(), cpu_result.sizes());
  ASSERT_EQ(got.dtype(), cpu_result.dtype());
  if (is_floating_point(got.dtype())) {
    EXPECT_TRUE(got.to(kDouble).allclose(cpu_result.to(kDouble), rtol, atol, /*equal_nan=*/true))
        << "CUDA:\n" << got << "\nCPU:\n" << cpu_result;
  } else {
    EXPECT_TRUE(got.equal(cpu_result)) << "CUDA:\n" << got << "\nCPU:\n" << cpu_result;
  }
}

// The CUDA result equals the CPU's exactly (moves of elements, integer
// arithmetic, a single writer per element).
inline void expect_same(const Tensor& cuda_result, const Tensor& cpu_result) {
  expect_matches(cuda_result, cpu_result, 0, 0);
}

// Tolerances by dtype: half and bfloat16 round to a few digits.
inline double rtol_for(ScalarType t) {
  if (t == kHalf) return 2e-3;
  if (t == kBFloat16) return 1.6e-2;
  if (t == kFloat) return 1e-5;
  return 1e-12;
}

// Every dtype ember computes with.
inline constexpr ScalarType kAll[] = {kBool, kByte, kChar,     kShort, kInt,
                                      kLong, kHalf, kBFloat16, kFloat, kDouble};
inline constexpr ScalarType kNumeric[] = {kByte, kChar,     kShort, kInt,   kLong,
                                          kHalf, kBFloat16, kFloat, kDouble};
inline constexpr ScalarType kFloating[] = {kHalf, kBFloat16, kFloat, kDouble};

}  // namespace cuda_testing
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_OPS_TESTING_H_
