#include "tensor/composite_kernels.h"

#include <algorithm>
#include <vector>

#include "tensor/dispatch.h"
#include "tensor/loops.h"
#include "tensor/math_kernels.h"
#include "tensor/parallel.h"

namespace ember {
namespace detail {
namespace {

// Rows split across the pool, about kGrainSize results a chunk.
template <typename T>
void addr_rows(T* __restrict out, const T* self, int64_t s0, int64_t s1, const T* v1,
               int64_t v1_stride, const T* v2, int64_t n, int64_t m, T beta, T alpha,
               bool read_self) {
  if (n == 0 || m == 0) return;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / m);
  parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T a = alpha * v1[i * v1_stride];
      T* __restrict o = out + i * m;
      if (!read_self) {
        for (int64_t j = 0; j < m; ++j) o[j] = a * v2[j];
        continue;
      }
      const T* s = self + i * s0;
      if (s1 == 1) {
        for (int64_t j = 0; j < m; ++j) o[j] = beta * s[j] + a * v2[j];
      } else if (s1 == 0) {
        const T bs = beta * s[0];
        for (int64_t j = 0; j < m; ++j) o[j] = bs + a * v2[j];
      } else {
        for (int64_t j = 0; j < m; ++j) o[j] = beta * s[j * s1] + a * v2[j];
      }
    }
  });
}

// The same values with out stored column by column (out[j * n + i], the
// layout of a transposed self): alpha * v1[i] first, for every i, so that
// the inner loop runs down a column.
template <typename T>
void addr_columns(T* __restrict out, const T* self, int64_t s0, int64_t s1, const T* v1,
                  int64_t v1_stride, const T* v2, int64_t n, int64_t m, T beta, T alpha,
                  bool read_self) {
  if (n == 0 || m == 0) return;
  std::vector<T> av1(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) av1[i] = alpha * v1[i * v1_stride];
  const T* a = av1.data();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / n);
  parallel_for(0, m, grain, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const T b = v2[j];
      T* __restrict o = out + j * n;
      if (!read_self) {
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] * b;
        continue;
      }
      const T* s = self + j * s1;
      if (s0 == 1) {
        for (int64_t i = 0; i < n; ++i) o[i] = beta * s[i] + a[i] * b;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = beta * s[i * s0] + a[i] * b;
      }
    }
  });
}

}  // namespace

void addr_cpu(float* out, const float* self, int64_t s0, int64_t s1, const float* v1,
              int64_t v1_stride, const float* v2, int64_t n, int64_t m, float beta, float alpha,
              bool read_self, bool by_columns) {
  (by_columns ? addr_columns<float> : addr_rows<float>)(out, self, s0, s1, v1, v1_stride, v2, n, m,
                                                        beta, alpha, read_self);
}
void addr_cpu(double* out, const double* self, int64_t s0, int64_t s1, const double* v1,
              int64_t v1_stride, const double* v2, int64_t n, int64_t m, double beta, double alpha,
              bool read_self, bool by_columns) {
  (by_columns ? addr_columns<double> : addr_rows<double>)(out, self, s0, s1, v1, v1_stride, v2, n,
                                                          m, beta, alpha, read_self);
}

void lerp_tensor_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "lerp_kernel_tensor", [&] {
    using acc_t = opmath_t<scalar_t>;
    // Each step rounded to scalar_t, as the composition's ops round their
    // results (a no-op for float and double; half and bfloat16 compute in
    // float and round after each op).
    auto r = [](acc_t v) { return static_cast<acc_t>(static_cast<scalar_t>(v)); };
    cpu_kernel(iter, [r](scalar_t self_, scalar_t end_, scalar_t weight_) -> scalar_t {
      const acc_t self = self_, end = end_, weight = weight_;
      // Both forms computed, then selected: no branch to if-convert.
      const acc_t diff = r(end - self);
      const acc_t low = r(self + r(weight * diff));
      const acc_t high = r(end - r(diff * r(acc_t(1) - weight)));
      return static_cast<scalar_t>(weight < acc_t(0.5) ? low : high);
    });
  });
}

void heaviside_cpu(TensorIterator& iter) {
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "heaviside_cpu", [&] {
    cpu_kernel(iter, [](scalar_t self, scalar_t values) -> scalar_t {
      const scalar_t step = self > scalar_t(0) ? scalar_t(1) : scalar_t(0);
      return self == scalar_t(0) ? values : step;
    });
  });
}

}  // namespace detail
}  // namespace ember
