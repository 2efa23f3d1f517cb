// Derivatives of the ops of tensor/sort_ops.h that PyTorch gives a node of
// their own: median, nanmedian, mode, cummax, cummin, logcumsumexp (the
// rest are compositions). Formulas are PyTorch 1.13's (derivatives.yaml).
// The unique family records PyTorch's nodes without a derivative (every
// PyTorch version refuses them): backward through them raises its message.
#include <limits>

#include "autograd/derivatives.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/sort_ops.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// median() / nanmedian(): PyTorch's evenly_distribute_backward, the
// gradient shared by every element equal to the result (every NaN when it
// is NaN). Its device-independent form, which the CPU one equals.
V evenly_distribute_bw(const C& c, const V& g) {
  const Tensor& self = c.input(0);
  const Tensor& result = c.output(0);
  const Tensor mask = (self == result).logical_or(self.isnan().logical_and(result.isnan()));
  return {mask * (g[0] / mask.sum())};
}

// median(dim) / nanmedian(dim) / mode: value_selecting_reduction_backward,
// the gradient scattered to the selected index (args: dim, keepdim).
V value_selecting_bw(const C& c, const V& g) {
  const int64_t dim = c.int_arg(0);
  const bool keepdim = c.bool_arg(1);
  if (c.input_sizes(0).empty()) return {g[0].reshape({})};
  const DimVector dims{dim};
  const Tensor gi = unsqueeze_to(g[0], dims, c.input_sizes(0), keepdim);
  const Tensor idx = unsqueeze_to(c.output(1), dims, c.input_sizes(0), keepdim);
  return {zeros(c.input_sizes(0), g[0].options()).scatter(dim, idx, gi)};
}

// cummax / cummin: cummaxmin_backward, each gradient added at the index
// its running value came from (args: dim).
V cummaxmin_bw(const C& c, const V& g) {
  if (c.input_sizes(0).empty()) return {g[0].reshape({})};
  const Tensor zero = zeros(c.input_sizes(0), g[0].options());
  if (zero.numel() == 0) return {zero};
  return {zero.scatter_add(c.int_arg(0), c.output(1), g[0])};
}

// logcumsumexp_backward: the gradient's positive and negative parts carried
// in log space through a reversed logcumsumexp (args: dim).
V logcumsumexp_bw(const C& c, const V& g) {
  const Tensor& grad = g[0];
  if (grad.dim() == 0 || grad.numel() == 0) return {grad};
  const Tensor& self = c.input(0);
  const Tensor& result = c.output(0);
  const int64_t dim = c.int_arg(0);
  const double lowest = grad.dtype() == kDouble ? std::numeric_limits<double>::lowest()
                                                : std::numeric_limits<float>::lowest();
  auto reverse_logcumsumexp = [dim](const Tensor& x) {
    return logcumsumexp(x.flip({dim}), dim).flip({dim});
  };
  const Tensor log_abs = grad.abs().log();
  const Tensor log_pos = where(grad > 0, log_abs, Scalar(lowest));
  const Tensor log_neg = where(grad < 0, log_abs, Scalar(lowest));
  const Tensor pos = (reverse_logcumsumexp(log_pos - result) + self).exp();
  const Tensor neg = (reverse_logcumsumexp(log_neg - result) + self).exp();
  return {pos - neg};
}

constexpr char kUnique[] = "_unique";
constexpr char kUnique2[] = "_unique2";
constexpr char kUniqueDim[] = "unique_dim";
constexpr char kUniqueConsecutive[] = "unique_consecutive";
constexpr char kUniqueDimConsecutive[] = "unique_dim_consecutive";

EMBER_REGISTER_DERIVATIVES(
    {"median", "MedianBackward0", kSaveSelf, true, evenly_distribute_bw},
    {"nanmedian", "NanmedianBackward0", kSaveSelf, true, evenly_distribute_bw},
    {"median_dim", "MedianBackward1", 0, true, value_selecting_bw},
    {"nanmedian_dim", "NanmedianBackward1", 0, true, value_selecting_bw},
    {"mode", "ModeBackward0", 0, true, value_selecting_bw},
    {"cummax", "CummaxBackward0", 0, true, cummaxmin_bw},
    {"cummin", "CumminBackward0", 0, true, cummaxmin_bw},
    {"logcumsumexp", "LogcumsumexpBackward0", kSaveSelf, true, logcumsumexp_bw},
    {"_unique", "UniqueBackward0", 0, false, not_implemented<kUnique>},
    {"_unique2", "Unique2Backward0", 0, false, not_implemented<kUnique2>},
    {"unique_dim", "UniqueDimBackward0", 0, false, not_implemented<kUniqueDim>},
    {"unique_consecutive", "UniqueConsecutiveBackward0", 0, false,
     not_implemented<kUniqueConsecutive>},
    {"unique_dim_consecutive", "UniqueDimConsecutiveBackward0", 0, false,
     not_implemented<kUniqueDimConsecutive>});

}  // namespace
}  // namespace autograd
}  // namespace ember
