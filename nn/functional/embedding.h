#ifndef EMBER_NN_FUNCTIONAL_EMBEDDING_H_
#define EMBER_NN_FUNCTIONAL_EMBEDDING_H_

#include <cstdint>
#include <optional>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct EmbeddingFuncOptions {
  // Rows at padding_idx get no gradient (negative: counted from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
// weight[input]: input holds int64 (or int32) indices of any shape; the
// result is input.sizes() + [embedding_dim].
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_EMBEDDING_H_
