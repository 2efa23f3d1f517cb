#include "nn/loss.h"

namespace ember {
namespace nn {

namespace F = functional;

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}

// The weight buffers are the options' tensors: to() converts them in place
// (Note [Module::to keeps identity]), so the options stay current.
NLLLossImpl::NLLLossImpl(const NLLLossOptions& options) : LossImpl(options) {
  register_buffer("weight", this->options.weight());
}

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, options);
}

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options)
    : LossImpl(options) {
  register_buffer("weight", this->options.weight());
}

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, options);
}

BCELossImpl::BCELossImpl(const BCELossOptions& options) : LossImpl(options) {
  register_buffer("weight", this->options.weight());
}

Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, options);
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options)
    : LossImpl(options) {
  register_buffer("weight", this->options.weight());
  register_buffer("pos_weight", this->options.pos_weight());
}

Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, options);
}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}

Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options);
}

Tensor PoissonNLLLossImpl::forward(const Tensor& log_input, const Tensor& target) {
  return F::poisson_nll_loss(log_input, target, options);
}

Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                        const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options);
}

Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                      const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options);
}

Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options);
}

Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options);
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(
    const MultiLabelSoftMarginLossOptions& options)
    : LossImpl(options) {
  register_buffer("weight", this->options.weight());
}

Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, options);
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options)
    : LossImpl(options) {
  EMBER_CHECK_VALUE(this->options.p() == 1 || this->options.p() == 2,
                    "only p == 1 and p == 2 supported");
  register_buffer("weight", this->options.weight());
}

Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, options);
}

Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, options);
}

Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return F::triplet_margin_with_distance_loss(anchor, positive, negative, options);
}

Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                      const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options);
}

Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options);
}

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets,
                            const Tensor& input_lengths, const Tensor& target_lengths) {
  return F::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}

}  // namespace nn
}  // namespace ember
