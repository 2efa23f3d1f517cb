#include "nn/embedding.h"

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/functional/embedding.h"
#include "nn/init.h"
#include "tensor/empty.h"
#include "tensor/print.h"

namespace ember {
namespace nn {

namespace {

// nn.Embedding's and nn.EmbeddingBag's padding_idx check (an
// AssertionError in PyTorch, a ValueError here; each module capitalizes
// its message differently), normalized to >= 0.
std::optional<int64_t> normalized_padding_idx(std::optional<int64_t> pad, int64_t n,
                                              const char* message) {
  if (!pad) return pad;
  EMBER_CHECK_VALUE(*pad < n && *pad >= -n, message);
  return *pad < 0 ? n + *pad : *pad;
}

// Both modules' reset_parameters: N(0, 1), the padding row zeroed.
void init_table(Tensor& weight, std::optional<int64_t> padding_idx) {
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard no_grad;
    weight[*padding_idx].fill_(0);
  }
}

}  // namespace

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options) : options(options) {
  const int64_t n = options.num_embeddings();
  this->options.padding_idx(normalized_padding_idx(options.padding_idx(), n,
                                                   "Padding_idx must be within num_embeddings"));
  weight = register_parameter("weight", empty({n, options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(
      input, weight, functional::EmbeddingFuncOptions().padding_idx(options.padding_idx()));
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = absl::StrCat(options.num_embeddings(), ", ", options.embedding_dim());
  if (options.padding_idx()) absl::StrAppend(&s, ", padding_idx=", *options.padding_idx());
  return s;
}

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options) : options(options) {
  const int64_t n = options.num_embeddings();
  this->options.padding_idx(normalized_padding_idx(options.padding_idx(), n,
                                                   "padding_idx must be within num_embeddings"));
  if (Tensor w = options._weight(); w.defined()) {
    EMBER_CHECK_VALUE(w.dim() == 2 && w.size(0) == n && w.size(1) == options.embedding_dim(),
                      "Shape of weight does not match num_embeddings and embedding_dim");
    weight = register_parameter("weight", w);
  } else {
    weight = register_parameter("weight", empty({n, options.embedding_dim()}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() { init_table(weight, options.padding_idx()); }

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::string s = absl::StrCat(options.num_embeddings(), ", ", options.embedding_dim());
  if (options.max_norm())
    absl::StrAppend(&s, ", max_norm=", python_float_repr(*options.max_norm()));
  if (options.norm_type() != 2) {
    absl::StrAppend(&s, ", norm_type=", python_float_repr(options.norm_type()));
  }
  if (options.scale_grad_by_freq()) absl::StrAppend(&s, ", scale_grad_by_freq=True");
  absl::StrAppend(&s, ", mode=", options.mode().name());
  if (options.padding_idx()) absl::StrAppend(&s, ", padding_idx=", *options.padding_idx());
  return s;
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& o) {
  EMBER_CHECK_VALUE(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(o.max_norm())
                       .norm_type(o.norm_type())
                       .scale_grad_by_freq(o.scale_grad_by_freq())
                       .mode(o.mode())
                       .sparse(o.sparse())
                       .include_last_offset(o.include_last_offset())
                       .padding_idx(o.padding_idx()));
  bag->weight.requires_grad_(!o.freeze());
  return bag;
}

}  // namespace nn
}  // namespace ember
