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

}  // namespace nn
}  // namespace ember
