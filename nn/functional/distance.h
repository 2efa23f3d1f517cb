#ifndef EMBER_NN_FUNCTIONAL_DISTANCE_H_
#define EMBER_NN_FUNCTIONAL_DISTANCE_H_

// torch.nn.functional.cosine_similarity and pairwise_distance (libtorch's
// functional/distance.h); the inputs broadcast against each other.
//   F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0));

#include <cstdint>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct CosineSimilarityFuncOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};
// sum(x1 * x2 / sqrt(max(|x1|^2, eps^2) * max(|x2|^2, eps^2))) over dim,
// as PyTorch 1.13 computes it; the clamps do not block the squared norms'
// gradient (PyTorch clamps in place under no_grad).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {});

struct PairwiseDistanceFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};
// The p-norm of x1 - x2 + eps over the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {});

namespace detail {
// x's values clamped below at `min`, its gradient passed through unchanged:
// what PyTorch's `with torch.no_grad(): x.clamp_(min)` on a clone gives
// (cosine_similarity here, gaussian_nll_loss). Exact where x >= min.
Tensor clamp_min_keep_grad(const Tensor& x, double min);
}  // namespace detail

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_DISTANCE_H_
