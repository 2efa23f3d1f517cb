#include "nn/embedding.h"

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/functional/embedding.h"
#include "nn/init.h"
#include "tensor/empty.h"

namespace ember {
namespace nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options) : options(options) {
  const int64_t n = options.num_embeddings();
  if (std::optional<int64_t> pad = options.padding_idx()) {
    // PyTorch asserts these (AssertionError); here they are ValueErrors.
    EMBER_CHECK_VALUE(*pad < n && *pad >= -n, "Padding_idx must be within num_embeddings");
    if (*pad < 0) this->options.padding_idx(n + *pad);
  }
  weight = register_parameter("weight", empty({n, options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (std::optional<int64_t> pad = options.padding_idx()) {
    NoGradGuard no_grad;
    weight[*pad].fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight,
                               functional::EmbeddingFuncOptions().padding_idx(
                                   options.padding_idx()));
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = absl::StrCat(options.num_embeddings(), ", ", options.embedding_dim());
  if (options.padding_idx()) absl::StrAppend(&s, ", padding_idx=", *options.padding_idx());
  return s;
}

}  // namespace nn
}  // namespace ember
