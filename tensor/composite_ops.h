#ifndef EMBER_TENSOR_COMPOSITE_OPS_H_
#define EMBER_TENSOR_COMPOSITE_OPS_H_

// Ops that PyTorch users reach for and that are compositions of ember's
// others (composite_ops.cc), on every device. Where PyTorch 1.13 records
// one node (nansum, nan_to_num, logaddexp(2), xlogy, deg2rad, rad2deg,
// sgn, dist, lerp with a tensor weight, cross, logit, baddbmm), ember
// records that node with 1.13's derivative (autograd/derivatives/
// composite.cc); heaviside records a node without one (backward raises,
// as 1.13's); the others' gradients are their compositions'. Found missing by //tools/parity:sweep;
// the semantics are PyTorch 1.13's, edge cases included (composite_ops_test.cc holds its values,
// tools/golden/composite_ops.py made them).

#include <optional>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

// NaN -> nan (0), +inf -> posinf, -inf -> neginf (default: the dtype's
// largest and lowest finite values). Integers and bool: a copy.
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt);

// The n-th forward difference along dim (logical_xor for bool), after
// prepend and append are concatenated along it; n is capped at its length.
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1,
            const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);

// The Kronecker product (the shorter sizes padded with leading ones).
Tensor kron(const Tensor& self, const Tensor& other);

// sum and mean that skip NaN (integers: sum; nanmean needs a floating dtype).
Tensor nansum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor nansum(const Tensor& self, IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);

// self * pi / 180 and self * 180 / pi (integers and bool promote to float).
Tensor deg2rad(const Tensor& self);
Tensor rad2deg(const Tensor& self);

// log(exp(a) + exp(b)) and log2(2^a + 2^b) without overflow; equal
// infinities give themselves. Floating dtypes only.
Tensor logaddexp(const Tensor& self, const Tensor& other);
Tensor logaddexp2(const Tensor& self, const Tensor& other);

// self * log(other), 0 where self is 0 (unless other is NaN); integers and
// bool promote to float.
Tensor xlogy(const Tensor& self, const Tensor& other);
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlogy(const Scalar& self, const Tensor& other);

// beta * self + alpha * (batch1 @ batch2), self ignored when beta is 0;
// the result has batch1's dtype (as PyTorch 1.13's).
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);

// The cross product along dim (default: the first dim of size 3, as
// torch.cross without dim); both inputs of the same dims and dtype.
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);

// The p-norm of self - other (broadcast).
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);

// lerp with a weight per element (all three broadcast, one dtype).
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);

// log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given;
// integers and bool promote to float.
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);

// 0 where self < 0, values where self == 0, 1 where self > 0 (NaN: 0);
// self and values of one dtype.
Tensor heaviside(const Tensor& self, const Tensor& values);

// sign() for real dtypes; positive() is self (bool refused, as `+x`).
Tensor sgn(const Tensor& self);
Tensor positive(const Tensor& self);

// The `pow`-norm of v over every dim but `dim`, with v's rank (size 1
// elsewhere); dim = -1 is the norm of all of v (a scalar), not the last
// dim, as 1.13's. Other negative dims count from the end.
Tensor norm_except_dim(const Tensor& v, int64_t pow = 2, int64_t dim = 0);

// Weight normalization: v * (g / norm_except_dim(v, 2, dim)). As 1.13 on
// the CPU, dim 0 and the last dim (without half inputs) go through
// _weight_norm_interface (node WeightNormInterfaceBackward0), other dims
// through the composition (MulBackward0).
Tensor _weight_norm(const Tensor& v, const Tensor& g, int64_t dim = 0);
// (w, norms) for dim 0 or v's last dim: w = v * g / ||v|| (norms over every
// dim but dim, shaped as g, float for bfloat16 g). g has v.size(dim)
// elements (1.13's CPU kernel reads past a smaller g; ember raises). norms
// is not differentiable.
std::tuple<Tensor, Tensor> _weight_norm_interface(const Tensor& v, const Tensor& g,
                                                  int64_t dim = 0);
// WeightNormInterfaceBackward0's formula (1.13's
// _weight_norm_differentiable_backward): (grad_v, grad_g) from w's
// gradient, norms as _weight_norm_interface returned them.
std::tuple<Tensor, Tensor> _weight_norm_interface_backward(const Tensor& grad_w,
                                                           const Tensor& saved_v,
                                                           const Tensor& saved_g,
                                                           const Tensor& saved_norms, int64_t dim);

namespace detail {
// norm_except_dim with a real `pow` (nn::utils::norm_except_dim's).
Tensor norm_except_dim(const Tensor& v, double pow, int64_t dim);
}  // namespace detail

}  // namespace ember

#endif  // EMBER_TENSOR_COMPOSITE_OPS_H_
