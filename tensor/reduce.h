#ifndef EMBER_TENSOR_REDUCE_H_
#define EMBER_TENSOR_REDUCE_H_

// Reductions, scans and softmax: the free-function spelling of the Tensor
// methods (torch.sum(x, ...) next to x.sum(...)). Semantics are PyTorch
// 1.13's: an empty dim list reduces every dim; sum/prod/cumsum/cumprod of
// bool and integer tensors give int64; mean/var/std/norm need a floating
// input; all/any give bool (uint8 for a uint8 input); index ties resolve to
// the first occurrence; NaN propagates through max/min/amax/amin.
//
// All reductions share one engine (Note [Reduction engine] in
// reduce_engine.h).

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "tensor/tensor.h"

namespace ember {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);

Tensor max(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// correction: the divisor is N - correction (1: Bessel's correction, what
// unbiased=true means; 0: the population variance). `dim` nullopt reduces
// every dim.
// `unbiased` alone is a template parameter so that `var(x, {1})` means
// dim 1, never unbiased=true.
inline Tensor var(const Tensor& self) { return self.var(); }
template <typename B, std::enable_if_t<std::is_same<B, bool>::value, int> = 0>
Tensor var(const Tensor& self, B unbiased) {
  return self.var(unbiased);
}
Tensor var(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
           bool keepdim = false);
inline Tensor std(const Tensor& self) { return self.std(); }
template <typename B, std::enable_if_t<std::is_same<B, bool>::value, int> = 0>
Tensor std(const Tensor& self, B unbiased) {
  return self.std(unbiased);
}
Tensor std(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
           bool keepdim = false);
// (var, mean) and (std, mean) in one pass.
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim = {}, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim = {}, bool unbiased = true,
                                    bool keepdim = false);

// Vector p-norm over `dim` (every dim when empty): p = 2, 1, inf, -inf, 0
// (count of nonzeros) or any other p: (sum |x|^p)^(1/p).
Tensor norm(const Tensor& self, const Scalar& p = 2);
Tensor norm(const Tensor& self, const Scalar& p, IntArrayRef dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
// torch.norm(x, "fro", dim): the 2-norm over `dim` (every dim when empty).
Tensor norm(const Tensor& self, const std::string& p, IntArrayRef dim = {}, bool keepdim = false);
// (A string literal would otherwise convert to Scalar through bool.)
inline Tensor norm(const Tensor& self, const char* p, IntArrayRef dim = {}, bool keepdim = false) {
  return norm(self, std::string(p), dim, keepdim);
}
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);

// log(sum(exp(x))) computed without overflow (one pass with a running max).
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);

Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);
Tensor count_nonzero(const Tensor& self, IntArrayRef dims);

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

// Numerically stable (the max along dim is subtracted first). With dtype,
// the input is cast to it before the operation, as in PyTorch. A row with
// +inf gives NaN in every dtype (1.13's float32 and float64 agree; its
// vectorized bfloat16 log_softmax sometimes gives -inf for the row's finite
// elements, depending on the neighbouring rows).
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim,
                   std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember

#endif  // EMBER_TENSOR_REDUCE_H_
