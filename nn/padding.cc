#include "nn/padding.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "nn/options.h"

namespace ember {
namespace nn {
namespace detail {

Tensor pad_layer(const Tensor& input, const int64_t* sizes, size_t n, PadMode mode, double value) {
  return functional::pad(
      input,
      functional::PadFuncOptions(std::vector<int64_t>(sizes, sizes + n)).mode(mode).value(value));
}

std::string pad_repr(const int64_t* sizes, size_t n) {
  return py_tuple(std::vector<int64_t>(sizes, sizes + n));
}

std::string constant_pad_repr(const int64_t* sizes, size_t n, double value) {
  return absl::StrCat("padding=", pad_repr(sizes, n), ", value=", py_number(value));
}

}  // namespace detail
}  // namespace nn
}  // namespace ember
