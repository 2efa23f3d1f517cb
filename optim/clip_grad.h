#ifndef EMBER_OPTIM_CLIP_GRAD_H_
#define EMBER_OPTIM_CLIP_GRAD_H_
// torch.nn.utils.clip_grad_norm_ and clip_grad_value_ (PyTorch 1.13), in
// libtorch's namespace and spelling:
//   loss.backward();
//   ember::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
//   opt.step();
// They live in //optim, beside the optimizers they run before, because they
// need only parameter lists (no Module).

#include <limits>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace utils {

// Scales every defined .grad in place so that the norm of all of them
// together (norm_type: 2, 1, any p, or infinity for the largest absolute
// value) is at most max_norm; returns that total norm before clipping, a
// 0-dim tensor of the grads' dtype (0. when no parameter has a grad). With
// error_if_nonfinite, a NaN or infinite total norm is PyTorch's
// RuntimeError and no grad changes.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every defined .grad in place to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_OPTIM_CLIP_GRAD_H_
