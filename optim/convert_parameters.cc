#include "optim/convert_parameters.h"

#include <optional>

#include "autograd/grad_mode.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace utils {
namespace {

// PyTorch's _check_param_device: one device for all parameters.
void check_param_device(const Tensor& param, std::optional<Device>* device) {
  if (!device->has_value()) {
    *device = param.device();
    return;
  }
  EMBER_CHECK_TYPE(**device == param.device(),
                   "Found two parameters on different devices, this is currently not supported.");
}

}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::optional<Device> device;
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) {
    check_param_device(p, &device);
    flat.push_back(p.view({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK_TYPE(vec.defined(), "expected torch.Tensor, but got: NoneType");
  NoGradGuard no_grad;
  std::optional<Device> device;
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    check_param_device(p, &device);
    const int64_t n = p.numel();
    p.detach().copy_(vec.slice(0, pointer, pointer + n).view_as(p));
    pointer += n;
  }
}

}  // namespace utils
}  // namespace nn
}  // namespace ember
