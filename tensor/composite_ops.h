#ifndef EMBER_TENSOR_COMPOSITE_OPS_H_
#define EMBER_TENSOR_COMPOSITE_OPS_H_

// Ops that PyTorch users reach for and that are compositions of ember's
// others (composite_ops.cc): their gradients are those of the ops they are
// made of, on every device. Found missing by //tools/parity:sweep; the
// semantics are PyTorch 1.13's, edge cases included (composite_ops_test.cc
// holds its values, tools/golden/composite_ops.py made them).

#include <optional>

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

// sign() for real dtypes; positive() is self (bool refused, as `+x`).
Tensor sgn(const Tensor& self);
Tensor positive(const Tensor& self);

}  // namespace ember

#endif  // EMBER_TENSOR_COMPOSITE_OPS_H_
