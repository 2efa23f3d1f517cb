#ifndef EMBER_TENSOR_DIM_H_
#define EMBER_TENSOR_DIM_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace ember {
namespace detail {
// Wraps a possibly negative dim into [0, ndim); a 0-dim tensor accepts -1
// and 0. Out of range: IndexError "Dimension out of range (expected to be in
// range of [-2, 1], but got 2)".
int64_t wrap_dim(int64_t dim, int64_t ndim);

// "[2, 5]": sizes (or strides, or a shape) as PyTorch writes them in
// messages.
std::string sizes_str(absl::Span<const int64_t> sizes);
}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_DIM_H_
