#ifndef EMBER_OPTIM_CONVERT_PARAMETERS_H_
#define EMBER_OPTIM_CONVERT_PARAMETERS_H_
// torch.nn.utils.parameters_to_vector and vector_to_parameters (PyTorch
// 1.13), beside clip_grad.h for the same reason (they need parameter
// lists only):
//   Tensor flat = ember::nn::utils::parameters_to_vector(model->parameters());
//   ember::nn::utils::vector_to_parameters(flat * 0.5, model->parameters());

#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace utils {

// The parameters flattened and concatenated, in order, into one 1-D tensor
// (differentiable, as in PyTorch). All must be on one device.
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

// Copies consecutive slices of `vec` into the parameters, in order, without
// recording a gradient. Deviation: PyTorch rebinds each parameter's .data
// to a view of vec; ember copies the values, so that the parameters keep
// their storage (optimizers and modules hold them). A vec shorter than the
// parameters is PyTorch's view error; a longer one's tail is ignored.
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_OPTIM_CONVERT_PARAMETERS_H_
