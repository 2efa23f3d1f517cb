#include "nn/functional/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_join.h"
#include "nn/functional/activation.h"
#include "nn/functional/distance.h"
#include "nn/functional/aten.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/record_function.h"
#include "tensor/creation.h"
#include "tensor/ctc_loss.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/nn_util.h"
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

// `self / other` and `self * other` recorded as ATen's div.Scalar and
// mul.Scalar (DivBackward1, MulBackward1), which the composites ATen
// writes in C++ record; ember's `/` and `*` with a number record
// DivBackward0 and MulBackward0, as Python's.
Tensor div_scalar(const Tensor& self, const Scalar& other) {
  ::ember::detail::OpScope scope(self);
  Tensor r = self / other;
  if (scope.active()) scope.record("div_scalar", {self}, {r}, {other});
  return r;
}
Tensor mul_scalar(const Tensor& self, const Scalar& other) {
  ::ember::detail::OpScope scope(self);
  Tensor r = self * other;
  if (scope.active()) scope.record("mul_scalar", {self}, {r}, {other});
  return r;
}

// 1.13's nll_loss_nd: [C] and [N, C] are nll_loss, [N, C, H, W] nll_loss2d,
// the other shapes [N, C, d...] nll_loss2d on a contiguous [N, C, 1, -1]
// view, its per-element loss viewed back (ViewBackward0 nodes around
// NllLoss2DBackward0).
Tensor nll_loss_nd(const Tensor& input, const Tensor& target, const Tensor& weight,
                   int64_t reduction, int64_t ignore_index) {
  EMBER_CHECK_VALUE(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  if (input.dim() != 1 && (target.dim() == 0 || input.size(0) != target.size(0))) {
    EMBER_CHECK_VALUE(false, "Expected input batch_size (", input.size(0),
                      ") to match target batch_size (", target.dim() == 0 ? 1 : target.size(0),
                      ").");
  }
  if (input.dim() <= 2 || input.dim() == 4) {
    return std::get<0>(nll_loss_forward(input, target, weight, reduction, ignore_index));
  }
  const int64_t n = input.size(0), c = input.size(1);
  DimVector out_size{n};
  out_size.insert(out_size.end(), input.sizes().begin() + 2, input.sizes().end());
  EMBER_CHECK(target.sizes().slice(1).equals(input.sizes().slice(2)), "Expected target size ",
              ::ember::detail::bracketed(out_size), ", got ",
              ::ember::detail::bracketed(target.sizes()));
  Tensor x = input.contiguous(), t = target.contiguous();
  x = input.numel() > 0 ? x.view({n, c, 1, -1}) : x.view({n, c, 0, 0});
  t = target.numel() > 0 ? t.view({n, 1, -1}) : t.view({n, 0, 0});
  Tensor out = std::get<0>(nll_loss_forward(x, t, weight, reduction, ignore_index));
  return reduction == loss_reduction::kNone ? out.view(out_size) : out;
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
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& o,
                      double beta) {
  return ember::smooth_l1_loss(input, target, red(o.reduction()), beta);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& o) {
  return nll_loss_nd(input, target, o.weight(), red(o.reduction()), o.ignore_index());
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
    // Class probabilities: 1.13's cross_entropy_loss_prob_target, step for
    // step (its nodes: DivBackward1 <- NegBackward0 <- SumBackward0 <- ...).
    const Tensor t =
        ls > 0 ? mul_scalar(target, 1 - ls) + ls / static_cast<double>(n_classes) : target;
    Tensor prod = logp * t;
    if (weight.defined()) prod = prod * class_weight(weight, input);
    switch (o.reduction()) {
      case Reduction::kMean:
        if (input.numel() == 0) return -prod.sum().fill_(std::nan(""));
        return div_scalar(-prod.sum(), input.numel() / n_classes);
      case Reduction::kSum:
        return -prod.sum();
      case Reduction::kNone:
        return -prod.sum({class_dim});
    }
  }
  Tensor nll = nll_loss_nd(logp, target, weight, red(o.reduction()), o.ignore_index());
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
  return mul_scalar(nll, 1 - ls) + mul_scalar(ret, ls / static_cast<double>(n_classes));
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

namespace {

std::vector<int64_t> lengths_vector(const Tensor& lengths, const char* what) {
  EMBER_CHECK(is_integral(lengths.dtype(), /*include_bool=*/false), what, " must be integral");
  const Tensor l = lengths.to(kLong).contiguous();
  const int64_t* p = l.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + l.numel());
}

}  // namespace

// PyTorch 1.13's kl_div (a composite there too): xlogy(target, target)
// records XlogyBackward0, whose gradient for a zero target is NaN (0 / 0)
// in 1.13 as here.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& o) {
  const Tensor loss =
      o.log_target() ? target.exp() * (target - input) : target.xlogy(target) - target * input;
  if (!o.reduction().batch_mean()) return reduce(loss, o.reduction().reduction());
  const Tensor sum = loss.sum();
  return input.dim() == 0 ? sum : sum / static_cast<double>(input.size(0));
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& o) {
  return ::ember::huber_loss(input, target, red(o.reduction()), o.delta());
}

// ATen's cosine_embedding_loss, step for step (its 1e-12 keeps a zero
// vector's cosine finite).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& o) {
  const int64_t td = target.dim();
  EMBER_CHECK(td == 1 || td == 0, "0D or 1D target tensor expected, multi-target not supported");
  EMBER_CHECK(input1.dim() == td + 1 && input2.dim() == td + 1, td, "D target tensor expects ",
              td + 1, "D input tensors, but found inputs with sizes ",
              ::ember::detail::bracketed(input1.sizes()), " and ",
              ::ember::detail::bracketed(input2.sizes()), ".");
  constexpr double kEpsilon = 1e-12;
  const Tensor prod = (input1 * input2).sum({td});
  const Tensor mag1 = (input1 * input1).sum({td}) + kEpsilon;
  const Tensor mag2 = (input2 * input2).sum({td}) + kEpsilon;
  const Tensor cos = prod / (mag1 * mag2).sqrt();
  const Tensor zeros = zeros_like(cos);
  const Tensor pos = 1 - cos;
  const Tensor neg = (cos - o.margin()).clamp_min(0);
  return reduce(where(target == 1, pos, zeros) + where(target == -1, neg, zeros), o.reduction());
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& o) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
              "input1: ",
              torch_size(input1.sizes()), ", input2: ", torch_size(input2.sizes()),
              ", target: ", torch_size(target.sizes()), " ");
  return reduce((-target * (input1 - input2) + o.margin()).clamp_min(0), o.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& o) {
  // ATen's composite: where(target != 1, max(0, margin - x), 0) +
  // where(target != -1, x, 0).
  const Tensor zeros = zeros_like(input);
  const Tensor margin_clamp = (o.margin() - input).clamp_min(0);
  const Tensor output_margin = where(target != 1, margin_clamp, zeros);
  const Tensor output_self = where(target != -1, input, zeros);
  return reduce(output_margin + output_self, o.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& o) {
  return reduce(log1p(exp(-input * target)), o.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& o) {
  EMBER_CHECK_VALUE(input.dim() >= 1, "multilabel_soft_margin_loss: input must have a class dim");
  Tensor loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input));
  if (o.weight().defined()) loss = loss * o.weight();
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum(IntArrayRef{class_dim}) / input.size(class_dim);
  return reduce(loss, o.reduction());
}

namespace {

// ATen's multi_margin/multilabel_margin shape checks; returns {nframe, dim}.
std::pair<int64_t, int64_t> margin_loss_shape(const Tensor& input) {
  const int64_t nd = input.dim();
  EMBER_CHECK_VALUE((nd == 2 && input.size(1) != 0) || (nd == 1 && input.size(0) != 0) || nd == 0,
                    "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
                    torch_size(input.sizes()));
  return {nd <= 1 ? 1 : input.size(0), nd == 0 ? 1 : input.size(nd - 1)};
}

// multi_margin_loss on the CPU as ATen's kernel computes it
// (MultiMarginCriterion.cpp: each sample's terms summed in order, in the
// input's dtype, then divided by dim; for the mean and sum, and a 0-dim
// target, the samples' losses added in double, then the mean's division):
// one pass instead of the composition's eight ops and the reduction's.
// Undefined where it does not apply (another device or dtype, a weight of
// another dtype), for the composition.
Tensor multi_margin_cpu(const Tensor& input, const Tensor& target, const Tensor& w, int64_t nframe,
                        int64_t dim, int64_t p, double margin, Reduction reduction,
                        bool scalar_out) {
  const ScalarType dt = input.dtype();
  if (!input.is_cpu() || !target.is_cpu() || (dt != kFloat && dt != kDouble) ||
      !is_integral(target.dtype(), /*include_bool=*/false) ||
      (w.defined() && (!w.is_cpu() || w.dtype() != dt))) {
    return Tensor();
  }
  // Row-major data is all the loop reads (the shapes are checked).
  const Tensor x = input.contiguous();
  const Tensor t = target.to(kLong).contiguous();
  const Tensor wc = w.defined() ? w.contiguous() : Tensor();
  const bool reduced = reduction != kNone || scalar_out;
  DimVector shape;
  if (!reduced) shape.push_back(nframe);
  Tensor loss = empty(shape, input.options());
  const int64_t* tp = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < nframe; ++i) {
    EMBER_CHECK_INDEX(tp[i] >= 0 && tp[i] < dim, "target out of range");
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(dt, "multi_margin_loss_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    const T* wp = wc.defined() ? wc.data_ptr<T>() : nullptr;
    T* out = loss.data_ptr<T>();
    const T m = static_cast<T>(margin);
    double total = 0;
    for (int64_t i = 0; i < nframe; ++i) {
      const T* row = xp + i * dim;
      const int64_t y = tp[i];
      const T xy = row[y];
      T sum = 0;
      for (int64_t j = 0; j < dim; ++j) {
        if (j == y) continue;
        const T z = m - xy + row[j];
        if (z > 0) {
          T h = p == 1 ? z : z * z;
          if (wp != nullptr) h *= wp[y];
          sum += h;
        }
      }
      const T li = sum / static_cast<T>(dim);
      if (reduced) {
        total += li;
      } else {
        out[i] = li;
      }
    }
    if (reduced) {
      if (reduction == kMean) total /= static_cast<double>(nframe);
      out[0] = static_cast<T>(total);
    }
  });
  return loss;
}

// multilabel_margin_loss on the CPU as ATen's kernel computes it
// (LossMultiLabelMargin.cpp): per sample, the terms max(0, 1 - x[y] + x[i])
// over its classes y (its targets up to the first -1) and the i that are
// none of them, a NaN term counted as 0, summed in double (float's
// accumulation type) and rounded to the dtype; then divided by dim, and for
// the mean and sum the samples' sums added in double first. One pass
// instead of the composition's twenty ops. Undefined where it does not
// apply (another device or dtype, no samples), for the composition.
Tensor multilabel_margin_cpu(const Tensor& input, const Tensor& target, int64_t nframe, int64_t dim,
                             Reduction reduction, bool scalar_out) {
  const ScalarType dt = input.dtype();
  if (!input.is_cpu() || !target.is_cpu() || (dt != kFloat && dt != kDouble) ||
      !is_integral(target.dtype(), /*include_bool=*/false) || nframe == 0) {
    return Tensor();
  }
  // Row-major data is all the loop reads (the shapes are checked).
  const Tensor x = input.contiguous();
  const Tensor t = target.to(kLong).contiguous();
  const int64_t* tp = t.data_ptr<int64_t>();
  // A sample's classes end at its first -1; the others must be classes.
  for (int64_t i = 0; i < nframe; ++i) {
    for (int64_t k = 0; k < dim && tp[i * dim + k] != -1; ++k) {
      EMBER_CHECK_INDEX(tp[i * dim + k] >= 0 && tp[i * dim + k] < dim, "target out of range");
    }
  }
  const bool reduced = reduction != kNone || scalar_out;
  DimVector shape;
  if (!reduced) shape.push_back(nframe);
  Tensor loss = empty(shape, input.options());
  std::vector<unsigned char> is_target(dim);
  EMBER_DISPATCH_FLOAT_DOUBLE(dt, "multilabel_margin_loss_cpu", [&] {
    using T = scalar_t;
    const T* xp = x.data_ptr<T>();
    T* out = loss.data_ptr<T>();
    double total = 0;
    for (int64_t i = 0; i < nframe; ++i) {
      const T* row = xp + i * dim;
      const int64_t* ti = tp + i * dim;
      std::fill(is_target.begin(), is_target.end(), 0);
      int64_t classes = 0;
      while (classes < dim && ti[classes] != -1) is_target[ti[classes++]] = 1;
      double sum = 0;
      for (int64_t k = 0; k < classes; ++k) {
        const T xy = row[ti[k]];
        for (int64_t j = 0; j < dim; ++j) {
          const T z = 1 - xy + row[j];
          if (!is_target[j] && z > 0) sum += z;
        }
      }
      if (reduced) {
        total += static_cast<T>(sum);
      } else {
        out[i] = static_cast<T>(sum) / static_cast<T>(dim);
      }
    }
    if (reduced) {
      total /= static_cast<double>(dim);
      if (reduction == kMean) total /= static_cast<double>(nframe);
      out[0] = static_cast<T>(total);
    }
  });
  return loss;
}

}  // namespace

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& o) {
  const auto [nframe, dim] = margin_loss_shape(input);
  EMBER_CHECK_VALUE(target.dim() <= 1 && target.numel() == nframe,
                    "inconsistent target size, expected ", nframe, " but got ",
                    torch_size(target.sizes()));
  const Tensor& w = o.weight();
  if (w.defined()) {
    EMBER_CHECK_VALUE(w.dim() <= 1 && w.numel() == dim, "inconsistent weight size, expected ",
                      dim, " but got ", torch_size(w.sizes()));
  }
  EMBER_CHECK_VALUE(o.p() == 1 || o.p() == 2, "only p == 1 and p == 2 supported");
  // One MultiMarginLossBackward0 node, as 1.13's op (its derivative:
  // autograd/derivatives/nn_more.cc), differentiable in input only.
  profiler::RecordFunction prof_range("multi_margin_loss", profiler::RangeKind::kOp, input, w);
  ::ember::detail::OpScope scope(input, w);
  EMBER_CHECK(!scope.active() || !w.defined() || !w.requires_grad(),
              "The function 'multi_margin_loss' is not differentiable with respect to argument "
              "'weight'. This input cannot have requires_grad True.");
  Tensor loss = multi_margin_cpu(input, target, w, nframe, dim, o.p(), o.margin(), o.reduction(),
                                 target.dim() == 0);
  if (!loss.defined()) {
    const Tensor t = target.reshape({nframe, 1}).to(kLong);
    EMBER_CHECK_INDEX(
        nframe == 0 || (t.min().item<int64_t>() >= 0 && t.max().item<int64_t>() < dim),
        "target out of range");
    const Tensor x = input.reshape({nframe, dim});
    // Per sample sum_{j != y} max(0, margin - x[y] + x[j])^p (* weight[y]) /
    // dim; a term counts where z > 0 (a NaN term does not), as ATen's kernels.
    Tensor z = (o.margin() - x.gather(1, t)) + x;
    z = where(z > 0, z, 0.0);
    if (o.p() == 2) z = z * z;
    if (w.defined()) z = z * w.reshape({dim}).index_select(0, t.reshape({nframe})).unsqueeze(1);
    const Tensor not_y = ones_like(x, kBool).scatter(1, t, Scalar(false));
    loss = where(not_y, z, 0.0).sum(IntArrayRef{1}) / dim;
    if (o.reduction() == kNone && target.dim() == 0) loss = loss.reshape({});
    loss = reduce(loss, o.reduction());
  }
  if (scope.active()) {
    scope.record("multi_margin_loss", {input, target, w}, {loss},
                 {Scalar(o.p()), Scalar(o.margin()), Scalar(red(o.reduction()))});
  }
  return loss;
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& o) {
  const auto [nframe, dim] = margin_loss_shape(input);
  if (input.dim() <= 1) {
    EMBER_CHECK_VALUE(target.dim() <= 1 && target.numel() == dim, "inconsistent size ",
                      torch_size(target.sizes()), " for target");
  } else {
    EMBER_CHECK_VALUE(target.dim() == 2 && target.size(0) == nframe && target.size(1) == dim,
                      "inconsistent size ", torch_size(target.sizes()), " for target");
  }
  // One MultilabelMarginLossBackward0 node, as 1.13's op.
  profiler::RecordFunction prof_range("multilabel_margin_loss", profiler::RangeKind::kOp, input);
  ::ember::detail::OpScope scope(input);
  Tensor loss = multilabel_margin_cpu(input, target, nframe, dim, o.reduction(), target.dim() <= 1);
  if (loss.defined()) {
    if (scope.active()) {
      scope.record("multilabel_margin_loss", {input, target}, {loss}, {Scalar(red(o.reduction()))});
    }
    return loss;
  }
  const Tensor t = target.reshape({nframe, dim}).to(kLong);
  // A sample's classes are its targets up to the first -1.
  const Tensor valid = (t != -1).to(kLong).cumprod(1).to(kBool);
  const Tensor idx = where(valid, t, 0);
  EMBER_CHECK_INDEX(nframe == 0 || (where(valid, t, 0).min().item<int64_t>() >= 0 &&
                                    idx.max().item<int64_t>() < dim),
                    "target out of range");
  const Tensor is_target =
      zeros({nframe, dim}, TensorOptions().dtype(kLong)).scatter_add(1, idx, valid.to(kLong)) > 0;
  const Tensor x = input.reshape({nframe, dim});
  // z[n, k, i] = 1 - (x[t[k]] - x[i]) for each class k of the sample and
  // each i that is none of them.
  const Tensor z = ((1 - x.gather(1, idx)).unsqueeze(2) + x.unsqueeze(1)).relu();
  const Tensor mask = valid.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1));
  loss = where(mask, z, 0.0).sum(IntArrayRef{1, 2}) / dim;
  if (o.reduction() == kNone && target.dim() <= 1) loss = loss.reshape({});
  loss = reduce(loss, o.reduction());
  if (scope.active()) {
    scope.record("multilabel_margin_loss", {input, target}, {loss}, {Scalar(red(o.reduction()))});
  }
  return loss;
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive,
                                         const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& o) {
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
              "The anchor, positive, and negative tensors are expected to have the same number "
              "of dimensions, but got: anchor ",
              anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(),
              "D inputs");
  EMBER_CHECK_VALUE(o.margin() > 0, "TripletMarginWithDistanceLoss: expected margin to be "
                                    "greater than 0, got ",
                    o.margin(), " instead");
  const auto dist = [&](const Tensor& a, const Tensor& b) {
    return o.distance_function() ? (*o.distance_function())(a, b) : pairwise_distance(a, b);
  };
  const Tensor d_pos = dist(anchor, positive);
  Tensor d_neg = dist(anchor, negative);
  if (o.swap()) d_neg = minimum(d_neg, dist(positive, negative));
  return reduce((o.margin() + d_pos - d_neg).clamp_min(0), o.reduction());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& o) {
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
              "All inputs should have same dimension but got ", anchor.dim(), "D, ",
              positive.dim(), "D and ", negative.dim(), "D inputs.");
  const auto dist = PairwiseDistanceFuncOptions().p(o.p()).eps(o.eps());
  const Tensor d_pos = pairwise_distance(anchor, positive, dist);
  Tensor d_neg = pairwise_distance(anchor, negative, dist);
  if (o.swap()) d_neg = minimum(d_neg, pairwise_distance(positive, negative, dist));
  return reduce((d_pos - d_neg + o.margin()).clamp_min(0), o.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& o) {
  Tensor loss = o.log_input() ? input.exp() - target * input
                              : input - target * (input + o.eps()).log();
  if (o.full()) {
    const Tensor stirling = target * target.log() - target + (target * (2 * M_PI)).log() * 0.5;
    loss = loss + stirling.masked_fill(target <= 1, 0.0);
  }
  return reduce(loss, o.reduction());
}

// PyTorch 1.13's F.gaussian_nll_loss (Python there).
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& o) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes();
    const IntArrayRef in_lead = in.empty() ? in : in.first(in.size() - 1);
    if (!in.empty() && var.sizes() == in_lead) {
      v = var.unsqueeze(-1);  // homoscedastic: one variance per sample
    } else {
      EMBER_CHECK_VALUE(!in.empty() && var.dim() == input.dim() && var.size(-1) == 1 &&
                            var.sizes().first(var.dim() - 1) == in_lead,
                        "var is of incorrect size");
    }
  }
  EMBER_CHECK_VALUE(!(var < 0).any().item<bool>(), "var has negative entry/entries");
  v = detail::clamp_min_keep_grad(v, o.eps());
  const Tensor diff = input - target;
  Tensor loss = (v.log() + diff * diff / v) * 0.5;
  if (o.full()) loss = loss + 0.5 * std::log(2 * M_PI);
  return reduce(loss, o.reduction());
}

// ATen's ctc_loss around the _ctc_loss primitive.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& o) {
  const std::vector<int64_t> il = lengths_vector(input_lengths, "input_lengths");
  const std::vector<int64_t> tl = lengths_vector(target_lengths, "target_lengths");
  const bool batched = log_probs.dim() == 3;
  Tensor loss = std::get<0>(
      _ctc_loss(batched ? log_probs : log_probs.unsqueeze(1), targets, il, tl, o.blank(),
                o.zero_infinity()));
  if (o.zero_infinity()) {
    loss = where(loss == std::numeric_limits<double>::infinity(), 0.0, loss);
  }
  switch (o.reduction()) {
    case Reduction::kMean:
      return (loss / tensor(tl).to(loss.dtype()).clamp_min(1)).mean();
    case Reduction::kSum:
      return loss.sum();
    case Reduction::kNone:
      break;
  }
  return batched ? loss : loss.squeeze(0);
}

}  // namespace functional
}  // namespace nn

// 1.13's huber_loss op: one HuberLossBackward0 node (whose gradient is
// finite for infinite differences, where the where-composition's was NaN).
Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction, double delta) {
  EMBER_AUTOCAST(huber_loss, ::ember::huber_loss, input, target, reduction, delta);
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  profiler::RecordFunction prof_range("huber_loss", profiler::RangeKind::kOp, input, target);
  detail::OpScope scope(input, target);
  Tensor loss;
  if (input.is_cpu() && target.is_cpu() && input.dtype() == target.dtype() &&
      (input.dtype() == kFloat || input.dtype() == kDouble)) {
    // One pass, ATen's huber kernel step for step in the dtype (delta
    // converted to it first, so the comparison is the dtype's too).
    TensorIterator iter = TensorIterator::binary_op(Tensor(), input, target);
    EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "huber_cpu", [&] {
      const scalar_t d = static_cast<scalar_t>(delta);
      cpu_kernel(iter, [d](scalar_t a, scalar_t b) -> scalar_t {
        const scalar_t z = std::abs(a - b);
        return z < d ? scalar_t(0.5) * z * z : d * (z - scalar_t(0.5) * d);
      });
    });
    loss = iter.output();
  } else {
    const Tensor z = (input - target).abs();
    // Computed in the operands' common dtype, written in the input's (1.13
    // does not promote: huber_loss(float, double) is float).
    loss = where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta).to(input.dtype());
  }
  Tensor out = reduction == loss_reduction::kMean  ? loss.mean()
               : reduction == loss_reduction::kSum ? loss.sum()
                                                   : loss;
  if (scope.active()) {
    scope.record("huber_loss", {input, target}, {out}, {Scalar(reduction), Scalar(delta)});
  }
  return out;
}
}  // namespace ember
