#ifndef EMBER_NN_UTILS_WEIGHT_NORM_H_
#define EMBER_NN_UTILS_WEIGHT_NORM_H_

// torch.nn.utils.weight_norm and spectral_norm (PyTorch 1.13), as forward
// pre-hooks that recompute the module's weight before each call (Note
// [Rebinding a parameter] in nn/module.h):
//
//   nn::Linear fc(20, 40);
//   nn::utils::weight_norm(*fc);       // fc->weight_g [40, 1], fc->weight_v [40, 20]
//   auto opt = optim::SGD(fc->parameters(), 0.1);   // after weight_norm
//   Tensor y = fc(x);                  // weight = g * v / ||v|| for this call
//
// The parameter `name` is replaced by new ones (name_g and name_v; for
// spectral_norm name_orig and the buffers name_u, name_v), registered
// after the module's others, as PyTorch's. The layer's `weight` member
// keeps reading the recomputed weight, which is refreshed only when the
// module is called through its holder (`fc(x)`, or inside Sequential), not
// by `fc->forward(x)`. The new parameters are new tensors: make the
// optimizer afterwards. clone() of such a module throws (its structure is
// no longer the constructor's).

#include <cstdint>
#include <optional>
#include <string>

#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace utils {

// Replaces parameter `name` by name_g = norm_except_dim(weight, 2, dim)
// and name_v = weight (sharing its storage); dim = nullopt: one norm over
// the whole tensor. Errors as PyTorch's: no such parameter, or weight_norm
// already applied to it.
Module& weight_norm(Module& module, const std::string& name = "weight",
                    std::optional<int64_t> dim = 0);
// Makes `name` a parameter again, with the current g * v / ||v||.
Module& remove_weight_norm(Module& module, const std::string& name = "weight");

// Divides parameter `name` by its largest singular value, estimated by
// n_power_iterations steps of power iteration per call in training mode
// (the vectors u and v persist as buffers; eval mode uses them as they
// are). u and v start as normalize(normal_(0, 1)) drawn from the default
// generator, u first, as PyTorch's. dim: the output dim, by default 0, 1
// for ConvTranspose1d/2d/3d. load_state_dict() converts a state dict of
// PyTorch's version 0 (a `weight` key and no `weight_v`) as PyTorch does,
// and takes every dict as PyTorch takes one without metadata (Note
// [Version-0 spectral norm state dicts] in weight_norm.cc).
Module& spectral_norm(Module& module, const std::string& name = "weight",
                      int64_t n_power_iterations = 1, double eps = 1e-12,
                      std::optional<int64_t> dim = std::nullopt);
// Makes `name` a parameter again, with weight_orig / sigma(u, v) as they
// are (no power iteration).
Module& remove_spectral_norm(Module& module, const std::string& name = "weight");

}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UTILS_WEIGHT_NORM_H_
