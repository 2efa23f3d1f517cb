#ifndef EMBER_NN_EMBEDDING_H_
#define EMBER_NN_EMBEDDING_H_

// Embedding: a lookup table [num_embeddings, embedding_dim] drawn from
// N(0, 1) as PyTorch does, its padding_idx row zeroed. EmbeddingBag: the
// same table, reduced over bags of indices (nn::functional::embedding_bag).

#include <cstdint>
#include <optional>
#include <string>

#include "nn/functional/embedding.h"
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

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  EMBER_ARG(bool, sparse) = false;
  // A [num_embeddings, embedding_dim] table to use as the weight instead
  // of drawing one (PyTorch's _weight).
  EMBER_ARG(Tensor, _weight) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  // Negative counts from the end; stored normalized (as PyTorch).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// EmbeddingBag::from_pretrained's options (libtorch's spelling).
struct EmbeddingBagFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);

  void reset_parameters();
  // input: 1-D indices with offsets, or 2-D (one bag per row) without;
  // per_sample_weights (mode kSum) has input's shape. -> [num_bags, D].
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  std::string extra_repr() const override;

  EmbeddingBagOptions options;
  Tensor weight;
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  // A bag module over `embeddings` [num_embeddings, D] (the same storage),
  // trained only when !freeze.
  static EmbeddingBag from_pretrained(const Tensor& embeddings,
                                      const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_EMBEDDING_H_
