#include "tensor/multi_tensor.h"

namespace ember {
namespace detail {
EMBER_DEFINE_KERNEL_TABLE(multi_tensor_adam_kernel, MultiAdamFn);
EMBER_DEFINE_KERNEL_TABLE(multi_tensor_sgd_kernel, MultiSgdFn);
}  // namespace detail
}  // namespace ember
