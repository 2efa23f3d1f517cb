#include "nn/init.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "autograd/grad_mode.h"
#include "tensor/error.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/random.h"

namespace ember {
namespace nn {
namespace init {

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case kTanh:
      return 5.0 / 3;
    case kReLU:
      return std::sqrt(2.0);
    case kLeakyReLU:
      return std::sqrt(2.0 / (1 + std::pow(param, 2)));
    case kSELU:
      return 3.0 / 4;  // Value found empirically (PyTorch's comment).
    default:  // linear, conv*, sigmoid
      return 1;
  }
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 "
                    "dimensions");
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

namespace {
thread_local bool skip_init = false;
}  // namespace

NoInitGuard::NoInitGuard() : previous_(skip_init) { skip_init = true; }
NoInitGuard::~NoInitGuard() { skip_init = previous_; }
bool NoInitGuard::active() { return skip_init; }

Tensor uniform_(Tensor tensor, double a, double b) {
  if (skip_init) return tensor;
  NoGradGuard no_grad;
  tensor.uniform_(a, b);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  if (skip_init) return tensor;
  NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor constant_(Tensor tensor, const Scalar& value) {
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }
Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor eye_(Tensor tensor) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  tensor.zero_();
  tensor.diagonal().fill_(1);
  return tensor;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  const int64_t dims = tensor.dim();
  EMBER_CHECK_VALUE(dims >= 3 && dims <= 5, "Only tensors with 3, 4, or 5 dimensions are supported");
  EMBER_CHECK_VALUE(groups > 0 && tensor.size(0) % groups == 0,
                    "dim 0 must be divisible by groups");
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, tensor.size(1));
  NoGradGuard no_grad;
  tensor.zero_();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor tap = tensor.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 2; k < dims; ++k) tap = tap.select(0, tensor.size(k) / 2);
      tap.fill_(1);
    }
  }
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  if (NoInitGuard::active()) return tensor;
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  NoGradGuard no_grad;
  tensor.normal_(0, std);
  for (int64_t col = 0; col < cols; ++col) {
    const Tensor zero_rows = randperm(rows).slice(0, 0, num_zeros);
    Tensor column = tensor.select(1, col);
    column.index_fill_(0, zero_rows, 0);
  }
  return tensor;
}

namespace {

// erfinv as ATen's calc_erfinv computes it in T: Giles-style rational
// approximation (Pavlis' coefficients), then two Newton steps on erf.
template <typename T>
T erfinv_like_aten(T y) {
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = std::abs(y);
  if (y_abs > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const T dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T dem = (d[1] * z + d[0]) * z + T(1);
    x = std::copysign(num, y) / dem;
  }
  const T two_over_sqrt_pi = T(2) / static_cast<T>(std::sqrt(M_PI));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

template <typename T>
void erfinv_inplace(Tensor& t) {
  T* p = t.data_ptr<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = erfinv_like_aten<T>(p[i]);
}

}  // namespace

Tensor orthogonal_(Tensor tensor, double gain) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0 || NoInitGuard::active()) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor flat = empty({rows, cols}, TensorOptions().dtype(tensor.dtype()).device(tensor.device()));
  flat.normal_(0, 1);
  // Householder QR in double of the tall m x n matrix A (m >= n).
  Tensor a = (rows < cols ? flat.t() : flat).to(kCPU, kDouble).contiguous();
  const int64_t m = a.size(0), n = a.size(1);
  std::vector<double> A(a.data_ptr<double>(), a.data_ptr<double>() + m * n);
  std::vector<double> Q(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < n; ++i) Q[i * n + i] = 1.0;
  std::vector<std::vector<double>> vs;
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += A[i * n + k] * A[i * n + k];
    norm = std::sqrt(norm);
    std::vector<double> v(static_cast<size_t>(m), 0.0);
    const double alpha = A[k * n + k] >= 0 ? -norm : norm;
    for (int64_t i = k; i < m; ++i) v[i] = A[i * n + k];
    v[k] -= alpha;
    double vv = 0;
    for (int64_t i = k; i < m; ++i) vv += v[i] * v[i];
    if (vv > 0) {
      for (int64_t j = k; j < n; ++j) {
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[i] * A[i * n + j];
        for (int64_t i = k; i < m; ++i) A[i * n + j] -= 2 * dot / vv * v[i];
      }
    }
    vs.push_back(std::move(v));
  }
  // Q = H_0 ... H_{n-1} applied to the first n columns of the identity.
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double>& v = vs[k];
    double vv = 0;
    for (int64_t i = k; i < m; ++i) vv += v[i] * v[i];
    if (vv == 0) continue;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i] * Q[i * n + j];
      for (int64_t i = k; i < m; ++i) Q[i * n + j] -= 2 * dot / vv * v[i];
    }
  }
  // Signs that make R's diagonal positive.
  for (int64_t j = 0; j < n; ++j) {
    if (A[j * n + j] < 0) {
      for (int64_t i = 0; i < m; ++i) Q[i * n + j] = -Q[i * n + j];
    }
  }
  Tensor q = from_blob(Q.data(), {m, n}, TensorOptions().dtype(kDouble)).clone();
  if (rows < cols) q = q.t();
  tensor.view_as(q).copy_(q.to(tensor.options()));
  tensor.mul_(gain);
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  EMBER_CHECK_VALUE(tensor.dtype() == kFloat || tensor.dtype() == kDouble,
                    "trunc_normal_: float or double tensors, got ", dtype_name(tensor.dtype()));
  if (mean < a - 2 * std || mean > b + 2 * std) {
    std::fprintf(stderr,
                 "UserWarning: mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                 "The distribution of values may be incorrect.\n");
  }
  if (NoInitGuard::active()) return tensor;
  NoGradGuard no_grad;
  const auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = norm_cdf((a - mean) / std);
  const double u = norm_cdf((b - mean) / std);
  // The draws and the inverse CDF in a contiguous CPU buffer of the dtype.
  Tensor work = tensor.is_cpu() && tensor.is_contiguous() ? tensor : empty_like(tensor, TensorOptions().device(kCPU), MemoryFormat::Contiguous);
  work.uniform_(2 * l - 1, 2 * u - 1);
  if (work.dtype() == kFloat) {
    erfinv_inplace<float>(work);
  } else {
    erfinv_inplace<double>(work);
  }
  work.mul_(std * std::sqrt(2.));
  work.add_(mean);
  work.clamp_(a, b);
  if (!work.is_same(tensor)) tensor.copy_(work);
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

namespace {
// kaiming's std: gain / sqrt(fan), as Python computes it.
double kaiming_std(const Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double fan = static_cast<double>(mode == kFanIn ? fan_in : fan_out);
  return calculate_gain(nonlinearity, a) / std::sqrt(fan);
}
}  // namespace

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (tensor.numel() == 0) return tensor;  // PyTorch warns: a no-op.
  const double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity);
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (tensor.numel() == 0) return tensor;
  const double std = kaiming_std(tensor, a, mode, nonlinearity);
  return normal_(std::move(tensor), 0, std);
}

}  // namespace init
}  // namespace nn
}  // namespace ember
