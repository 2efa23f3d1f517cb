#include "nn/init.h"

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "tensor/error.h"
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
