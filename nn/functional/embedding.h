#ifndef EMBER_NN_FUNCTIONAL_EMBEDDING_H_
#define EMBER_NN_FUNCTIONAL_EMBEDDING_H_

#include <cstdint>
#include <optional>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {

// EmbeddingBag's reduction over each bag, in libtorch's spelling:
// ember::kSum, ember::kMean (a Reduction converts) or ember::kMax.
// Reduction::kNone is PyTorch's unknown mode string: ValueError.
class EmbeddingBagMode {
 public:
  enum Kind { kSum, kMean, kMax };
  EmbeddingBagMode(Kind kind) : kind_(kind) {}  // NOLINT(runtime/explicit)
  EmbeddingBagMode(Reduction r);                // NOLINT(runtime/explicit)
  Kind kind() const { return kind_; }
  bool operator==(Kind k) const { return kind_ == k; }
  bool operator!=(Kind k) const { return kind_ != k; }
  // "sum" / "mean" / "max", as PyTorch prints it.
  const char* name() const;

 private:
  Kind kind_;
};
inline constexpr EmbeddingBagMode::Kind kMax = EmbeddingBagMode::kMax;

namespace nn {
namespace functional {

// tensor (int64 class indices) as one-hot rows: a new last dim of
// num_classes (-1: the largest index + 1), int64 zeros with a 1 at each
// index, as PyTorch's one_hot (and its errors for negative, too large or,
// with -1, empty inputs).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

struct EmbeddingFuncOptions {
  // Rows at padding_idx get no gradient (negative: counted from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
// weight[input]: input holds int64 (or int32) indices of any shape; the
// result is input.sizes() + [embedding_dim].
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});

struct EmbeddingBagFuncOptions {
  // 1-D input only: where each bag starts (int64 or int32, non-decreasing,
  // offsets[0] == 0). A 2-D input is one bag per row and takes none.
  EMBER_ARG(Tensor, offsets) = Tensor();
  // Rows the bags look up are first scaled in place (without gradient) to a
  // norm_type-norm of at most max_norm, as PyTorch's embedding_renorm_.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  // Each looked-up row's gradient divided by how often its index occurs
  // in the input (as documented; PyTorch 1.13's CPU kernel mixes up the
  // counts of different indices: embedding.cc says how).
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = ember::kMean;
  // ember has no sparse gradients: true raises (max mode raises
  // PyTorch's ValueError first).
  EMBER_ARG(bool, sparse) = false;
  // mode kSum only: one weight per index, input's shape.
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  // offsets holds one more entry, the end of the last bag (like CSR).
  EMBER_ARG(bool, include_last_offset) = false;
  // Indices equal to padding_idx are left out of their bag (and of the
  // mean's count); negative counts from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
// The sum, mean or max of the rows of weight [num_embeddings, D] in each
// bag of indices: [num_bags, D]; an empty bag gives zeros. Recorded as one
// node (EmbeddingBagBackward0) with 1.13's gradients for weight and
// per_sample_weights (autograd/derivatives/nn_composite.cc).
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_EMBEDDING_H_
