// cuDNN's part of cuda.h and cudnn_conv.h where ember was built without
// cuDNN (a CPU-only build, or a CUDA toolkit without it: @local_config_cuda's
// CUDNN_ENABLED): cuDNN is absent, and every convolution runs im2col.

#include "tensor/cuda/cuda.h"
#include "tensor/cuda/cudnn_conv.h"

namespace ember {
namespace cuda {

bool cudnn_is_available() { return false; }
int64_t cudnn_version() { return 0; }
bool cudnn_enabled() { return false; }
void set_cudnn_enabled(bool) {}

namespace detail {

bool cudnn_conv_forward(const ember::detail::ConvGeometry&, const Tensor&, const Tensor&,
                        Tensor&) {
  return false;
}
bool cudnn_conv_backward_input(const ember::detail::ConvGeometry&, const Tensor&, const Tensor&,
                               Tensor&) {
  return false;
}
bool cudnn_conv_backward_weight(const ember::detail::ConvGeometry&, const Tensor&, const Tensor&,
                                Tensor&) {
  return false;
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
