#include "nn/functional/loss.h"

#include "absl/strings/str_join.h"
#include "nn/functional/activation.h"
#include "tensor/autocast.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

int64_t red(Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return loss_reduction::kNone;
    case Reduction::kMean:
      return loss_reduction::kMean;
    case Reduction::kSum:
      return loss_reduction::kSum;
  }
  return loss_reduction::kMean;
}

Tensor reduce(const Tensor& loss, Reduction r) {
  if (r == kMean) return loss.mean();
  if (r == kSum) return loss.sum();
  return loss;
}

std::string torch_size(IntArrayRef s) {
  return absl::StrCat("torch.Size([", absl::StrJoin(s, ", "), "])");
}

// A per-class weight [C] as [1, C, 1, ...] against input.
Tensor class_weight(const Tensor& w, const Tensor& input) {
  if (input.dim() < 2) return w;
  DimVector s(input.dim(), 1);
  s[1] = w.numel();
  return w.reshape(s);
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& o) {
  return ember::mse_loss(input, target, red(o.reduction()));
}

// PyTorch 1.13's l1_loss is composite too (AbsBackward0 / MeanBackward0).
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& o) {
  EMBER_AUTOCAST(l1_loss, ::ember::nn::functional::l1_loss, input, target, o);
  return reduce((input - target).abs(), o.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& o) {
  return ember::smooth_l1_loss(input, target, red(o.reduction()), o.beta());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& o) {
  return std::get<0>(
      nll_loss_forward(input, target, o.weight(), red(o.reduction()), o.ignore_index()));
}

namespace {
// cross_entropy with the class weight as an argument of its own (not read
// from the options), so that autocast casts it.
Tensor cross_entropy_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                          const CrossEntropyFuncOptions& o) {
  EMBER_AUTOCAST(cross_entropy, cross_entropy_impl, input, target, weight, o);
  const double ls = o.label_smoothing();
  EMBER_CHECK(ls >= 0 && ls <= 1, "label_smoothing must be between 0.0 and 1.0. Got: ", ls);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor logp = ember::log_softmax(input, class_dim);
  const int64_t n_classes = input.size(class_dim);
  if (target.sizes() == input.sizes() && is_floating_point(target.dtype())) {
    // Class probabilities (PyTorch's cross_entropy_loss_prob_target).
    Tensor t = ls > 0 ? target * (1 - ls) + ls / static_cast<double>(n_classes) : target;
    Tensor loss = logp * t;
    if (weight.defined()) loss = loss * class_weight(weight, input);
    loss = -loss;
    switch (o.reduction()) {
      case Reduction::kMean:
        return input.numel() == 0 ? loss.sum() * std::nan("")
                                  : loss.sum() / static_cast<double>(input.numel() / n_classes);
      case Reduction::kSum:
        return loss.sum();
      case Reduction::kNone:
        return loss.sum({class_dim});
    }
  }
  Tensor nll =
      std::get<0>(nll_loss_forward(logp, target, weight, red(o.reduction()), o.ignore_index()));
  if (ls <= 0) return nll;
  // PyTorch 1.13's cross_entropy_loss_label_smoothing.
  Tensor ignore = target == o.ignore_index();
  Tensor smooth = weight.defined() ? logp * class_weight(weight, input) : logp;
  smooth = -smooth.sum({class_dim});
  smooth = smooth.masked_fill(ignore, 0.0);
  Tensor ret;
  switch (o.reduction()) {
    case Reduction::kMean:
      if (weight.defined()) {
        ret = smooth.sum() / weight.index_select(0, target.masked_select(~ignore)).sum();
      } else {
        ret = smooth.sum() / (~ignore).sum();
      }
      break;
    case Reduction::kSum:
      ret = smooth.sum();
      break;
    case Reduction::kNone:
      ret = smooth;
      break;
  }
  return nll * (1 - ls) + ret * (ls / static_cast<double>(n_classes));
}
}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& o) {
  return cross_entropy_impl(input, target, o.weight(), o);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& o) {
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), "Using a target size (",
                    torch_size(target.sizes()), ") that is different to the input size (",
                    torch_size(input.sizes()),
                    ") is deprecated. Please ensure they have the same size.");
  Tensor w = o.weight().defined() ? o.weight().expand(input.sizes()) : Tensor();
  return ember::binary_cross_entropy(input, target, w, red(o.reduction()));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& o) {
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), "Target size (", torch_size(target.sizes()),
                    ") must be the same as input size (", torch_size(input.sizes()), ")");
  return ember::binary_cross_entropy_with_logits(input, target, o.weight(), o.pos_weight(),
                                                 red(o.reduction()));
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
