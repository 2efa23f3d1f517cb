#ifndef EMBER_TENSOR_NN_UTIL_H_
#define EMBER_TENSOR_NN_UTIL_H_

// Helpers shared by the nn ops' error messages (the kernels here and
// nn::functional's).

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace detail {

// "[2, 3, 4]", as PyTorch's messages print sizes.
inline std::string bracketed(IntArrayRef sizes) {
  return absl::StrCat("[", absl::StrJoin(sizes, ", "), "]");
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_NN_UTIL_H_
