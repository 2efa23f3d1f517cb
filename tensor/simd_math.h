#ifndef EMBER_TENSOR_SIMD_MATH_H_
#define EMBER_TENSOR_SIMD_MATH_H_

// Note [Vectorized libm]: the float and double math functions the CPU
// kernels call (std::tanh, std::log, std::sin...) are scalar calls that
// stop GCC from vectorizing a kernel's loop, where libtorch 1.13 runs
// Sleef's 8-lane versions: tanh of 65536 floats took 1783 us in ember
// against 216 us in libtorch (`sweep --time`, BENCHMARKS.md "Vectorized
// libm"). glibc ships vector versions of the same functions in libmvec
// (AVX2: _ZGVdN8v_tanhf, _ZGVdN4v_tanh; SSE for the loop's remainder) and
// declares them only under -ffast-math (bits/math-vector.h). This header
// declares them, with the same `simd` attribute glibc uses, for every
// build: GCC then vectorizes a loop that calls std::tanh into calls of the
// vector version, 8 floats at a time. libmvec's functions are within 4 ulp
// (most within 1-2; glibc's manual lists them), NaN, infinities and other
// special lanes are handed to the scalar function, and nothing else about
// a kernel changes. -fno-math-errno (VEC_MATH_COPTS in tensor/BUILD.bazel)
// is what lets GCC treat the calls as pure, and turns std::sqrt into
// vsqrtps (correctly rounded: bit for bit the scalar result).
//
// Include it after <cmath> in a file compiled with VEC_MATH_COPTS whose
// library links libmvec (`linkopts = ["-lmvec"]`). Elsewhere (clang, other
// architectures) it declares nothing and the loops stay scalar.

#include <cmath>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__AVX2__)
#define EMBER_SIMD_MATH_DECLARED 1
#define EMBER_LIBMVEC_ __attribute__((simd("notinbranch")))
#define EMBER_LIBMVEC_UNARY_(name)             \
  double name(double) noexcept EMBER_LIBMVEC_; \
  float name##f(float) noexcept EMBER_LIBMVEC_;
#define EMBER_LIBMVEC_BINARY_(name)                    \
  double name(double, double) noexcept EMBER_LIBMVEC_; \
  float name##f(float, float) noexcept EMBER_LIBMVEC_;
extern "C" {
// glibc 2.22's set.
EMBER_LIBMVEC_UNARY_(cos)
EMBER_LIBMVEC_UNARY_(sin)
EMBER_LIBMVEC_UNARY_(log)
EMBER_LIBMVEC_UNARY_(exp)
EMBER_LIBMVEC_BINARY_(pow)
// glibc 2.35's additions.
EMBER_LIBMVEC_UNARY_(acos)
EMBER_LIBMVEC_UNARY_(acosh)
EMBER_LIBMVEC_UNARY_(asin)
EMBER_LIBMVEC_UNARY_(asinh)
EMBER_LIBMVEC_UNARY_(atan)
EMBER_LIBMVEC_UNARY_(atanh)
EMBER_LIBMVEC_UNARY_(cbrt)
EMBER_LIBMVEC_UNARY_(cosh)
EMBER_LIBMVEC_UNARY_(erf)
EMBER_LIBMVEC_UNARY_(erfc)
EMBER_LIBMVEC_UNARY_(exp2)
EMBER_LIBMVEC_UNARY_(expm1)
EMBER_LIBMVEC_UNARY_(log10)
EMBER_LIBMVEC_UNARY_(log1p)
EMBER_LIBMVEC_UNARY_(log2)
EMBER_LIBMVEC_UNARY_(sinh)
EMBER_LIBMVEC_UNARY_(tan)
EMBER_LIBMVEC_UNARY_(tanh)
EMBER_LIBMVEC_BINARY_(atan2)
EMBER_LIBMVEC_BINARY_(hypot)
}
#undef EMBER_LIBMVEC_BINARY_
#undef EMBER_LIBMVEC_UNARY_
#undef EMBER_LIBMVEC_
#endif

#endif  // EMBER_TENSOR_SIMD_MATH_H_
