#ifndef EMBER_NN_DISTANCE_H_
#define EMBER_NN_DISTANCE_H_

// CosineSimilarity and PairwiseDistance (libtorch's modules/distance.h):
// forward(x1, x2) calls the nn::functional op with the module's options.
// Like PyTorch's, they print no options.

#include "nn/functional/distance.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

using CosineSimilarityOptions = functional::CosineSimilarityFuncOptions;
using PairwiseDistanceOptions = functional::PairwiseDistanceFuncOptions;

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::cosine_similarity(x1, x2, options);
  }
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::pairwise_distance(x1, x2, options);
  }
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_DISTANCE_H_
