// Functions declared for the module code to build against whose kernels
// are still being written: each throws until its family lands.
#include "nn/functional/functional.h"
#include "tensor/error.h"

namespace ember {
namespace nn {
namespace functional {

#define EMBER_PENDING(name) EMBER_CHECK(false, "nn::functional::" #name " is not implemented yet")

Tensor batch_norm(const Tensor&, const Tensor&, const Tensor&, const BatchNormFuncOptions&) {
  EMBER_PENDING(batch_norm);
}
Tensor layer_norm(const Tensor&, const LayerNormFuncOptions&) { EMBER_PENDING(layer_norm); }
Tensor embedding(const Tensor&, const Tensor&, const EmbeddingFuncOptions&) {
  EMBER_PENDING(embedding);
}
Tensor gelu(const Tensor&, const GELUFuncOptions&) { EMBER_PENDING(gelu); }
Tensor mse_loss(const Tensor&, const Tensor&, const MSELossFuncOptions&) { EMBER_PENDING(mse_loss); }
Tensor l1_loss(const Tensor&, const Tensor&, const L1LossFuncOptions&) { EMBER_PENDING(l1_loss); }
Tensor smooth_l1_loss(const Tensor&, const Tensor&, const SmoothL1LossFuncOptions&) {
  EMBER_PENDING(smooth_l1_loss);
}
Tensor nll_loss(const Tensor&, const Tensor&, const NLLLossFuncOptions&) { EMBER_PENDING(nll_loss); }
Tensor cross_entropy(const Tensor&, const Tensor&, const CrossEntropyFuncOptions&) {
  EMBER_PENDING(cross_entropy);
}
Tensor binary_cross_entropy(const Tensor&, const Tensor&, const BinaryCrossEntropyFuncOptions&) {
  EMBER_PENDING(binary_cross_entropy);
}
Tensor binary_cross_entropy_with_logits(const Tensor&, const Tensor&,
                                        const BinaryCrossEntropyWithLogitsFuncOptions&) {
  EMBER_PENDING(binary_cross_entropy_with_logits);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
