#include "nn/functional/distance.h"

#include <algorithm>

#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/math.h"
#include "tensor/reduce.h"

namespace ember {
namespace nn {
namespace functional {

namespace detail {
Tensor clamp_min_keep_grad(const Tensor& x, double min) {
  const Tensor d = x.detach();
  return x + (d.clamp_min(min) - d);
}
}  // namespace detail

// PyTorch 1.13's cosine_similarity (ATen's Distance.cpp), step for step.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options) {
  const ScalarType common = result_type(x1, x2);
  EMBER_CHECK(is_floating_point(common),
              "expected common dtype to be floating point, yet common dtype is ",
              scalar_type_name(common));
  const DimVector sizes = infer_size(x1.sizes(), x2.sizes());
  const Tensor a = x1.to(common).expand(sizes), b = x2.to(common).expand(sizes);
  const int64_t dim = options.dim();
  const double eps2 = options.eps() * options.eps();
  auto squared_norm = [&](const Tensor& x) {
    return detail::clamp_min_keep_grad(x.pow(2).sum({dim}, /*keepdim=*/true), eps2);
  };
  return (a * b * (squared_norm(a) * squared_norm(b)).rsqrt()).sum({dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options) {
  // The last dim of the broadcast result (either input may be the shorter).
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  return norm(x1 - x2 + options.eps(), options.p(), {last}, options.keepdim());
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
