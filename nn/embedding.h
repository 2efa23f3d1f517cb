#ifndef EMBER_NN_EMBEDDING_H_
#define EMBER_NN_EMBEDDING_H_

// Embedding: a lookup table [num_embeddings, embedding_dim] drawn from
// N(0, 1) as PyTorch does, its padding_idx row zeroed.

#include <cstdint>
#include <optional>
#include <string>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // Negative counts from the end; stored normalized (as PyTorch).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);

  void reset_parameters();
  // input: int64 indices of any shape -> input.sizes() + [embedding_dim].
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;

  EmbeddingOptions options;
  Tensor weight;
};
EMBER_MODULE(Embedding);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_EMBEDDING_H_
