#include "nn/functional/embedding.h"

#include "tensor/error.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace nn {
namespace functional {

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  int64_t padding_idx = -1;
  if (o.padding_idx()) {
    padding_idx = *o.padding_idx();
    const int64_t n = weight.dim() > 0 ? weight.size(0) : 0;
    EMBER_CHECK(padding_idx < n && padding_idx >= -n, "Padding_idx must be within num_embeddings");
    if (padding_idx < 0) padding_idx += n;
  }
  return ember::embedding(weight, input, padding_idx);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
