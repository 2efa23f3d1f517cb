#ifndef EMBER_TENSOR_MORE_OPS_H_
#define EMBER_TENSOR_MORE_OPS_H_

// More of torch.Tensor's methods that ember lacked (tools/parity/
// missing_methods.py lists what is still missing): put/put_, fill_diagonal_,
// mvlgamma, renorm, frexp, cov/corrcoef, resize_. Each is made of ember's
// other ops (more_ops.cc), so gradients and devices come with them; the
// semantics and error messages are PyTorch 1.13's (tensor/more_ops_test.cc,
// tools/golden/more_ops.py). The methods are declared in tensor.h.

#include <optional>
#include <tuple>

#include "tensor/random.h"
#include "tensor/tensor.h"

namespace ember {

// self's elements at flat (row-major) positions `index` (int64, negative
// counting from the end) set to, or with accumulate increased by, source's.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);

// sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi), the log of the multivariate
// gamma function (integers promote to float; p >= 1).
Tensor mvlgamma(const Tensor& self, int64_t p);

// Each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm
// (p > 0, maxnorm >= 0, at least 2 dims).
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);

// (mantissa, exponent): self = mantissa * 2^exponent with |mantissa| in
// [0.5, 1), exponent int32; 0, inf and NaN give themselves and 0.
std::tuple<Tensor, Tensor> frexp(const Tensor& self);

// The covariance of the rows of a 1-D or 2-D input (observations along
// dim 1), with frequency and analytic weights; corrcoef normalizes it.
Tensor cov(const Tensor& self, int64_t correction = 1,
           const std::optional<Tensor>& fweights = std::nullopt,
           const std::optional<Tensor>& aweights = std::nullopt);
Tensor corrcoef(const Tensor& self);

// The argument of each (real) element: pi below zero, 0 else, NaN kept;
// integers and bool give the default dtype (torch.angle).
Tensor angle(const Tensor& self);

// num_samples indices per row of self (1-D or 2-D, weights >= 0, not
// necessarily summing to 1), drawn with or without replacement. On the CPU
// the same seed gives PyTorch 1.13's indices (tensor/multinomial.cc). On
// CUDA, with replacement, the uniforms come from the device's generator and
// a kernel searches the CPU's cumulative table for them (not PyTorch's CUDA
// draws; the same seed gives the same draws on every run).
// float16 is drawn as bfloat16 is (1.13 refuses it on the CPU; 2.x draws).
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false,
                   const std::optional<Generator>& generator = std::nullopt);

}  // namespace ember

#endif  // EMBER_TENSOR_MORE_OPS_H_
