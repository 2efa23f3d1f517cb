#include "tensor/layout.h"

#include <algorithm>
#include <initializer_list>

#include "tensor/error.h"

namespace ember {
namespace {

// The dims of a channels-last tensor from innermost to outermost.
constexpr int64_t kChannelsLast2d[] = {1, 3, 2, 0};
constexpr int64_t kChannelsLast3d[] = {1, 4, 3, 2, 0};

template <size_t N>
bool dense_in_order(IntArrayRef sizes, IntArrayRef strides, const int64_t (&order)[N]) {
  int64_t expected = 1;
  for (int64_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

template <size_t N>
DimVector strides_in_order(IntArrayRef sizes, const int64_t (&order)[N]) {
  DimVector strides(N);
  int64_t s = 1;
  for (int64_t d : order) {
    strides[d] = s;
    s *= sizes[d];
  }
  return strides;
}

// PyTorch's is_channels_last_strides_{2d,3d}: strides non-decreasing in
// channels-last order, with the ambiguous cases (a trivial C, N111 tensors,
// 1C1W permutations) going to the contiguous side.
template <size_t N>
bool strides_like(IntArrayRef sizes, IntArrayRef strides, const int64_t (&order)[N]) {
  if (strides[1] == 0) return false;
  int64_t min = 0;
  for (int64_t d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

}  // namespace

DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast:
      EMBER_CHECK(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
      return strides_in_order(sizes, kChannelsLast2d);
    case MemoryFormat::ChannelsLast3d:
      EMBER_CHECK(sizes.size() == 5, "required rank 5 tensor to use channels_last_3d format");
      return strides_in_order(sizes, kChannelsLast3d);
    case MemoryFormat::Preserve:
      break;
  }
  throw Error(absl::StrCat("unsupported memory format ", memory_format_name(format)));
}

bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::ChannelsLast:
      return sizes.size() == 4 && dense_in_order(sizes, strides, kChannelsLast2d);
    case MemoryFormat::ChannelsLast3d:
      return sizes.size() == 5 && dense_in_order(sizes, strides, kChannelsLast3d);
    case MemoryFormat::Contiguous:
    case MemoryFormat::Preserve:
      break;
  }
  if (compute_numel(sizes) == 0) return true;
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  if (is_contiguous_in(sizes, strides, MemoryFormat::Contiguous)) return true;
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  DimVector perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  // By stride, size-0/1 dims last.
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides, bool exact_match) {
  if (sizes.size() == 4 && strides_like(sizes, strides, kChannelsLast2d)) {
    if (!exact_match || strides_in_order(sizes, kChannelsLast2d) == DimVector(strides.begin(),
                                                                              strides.end())) {
      return MemoryFormat::ChannelsLast;
    }
  } else if (sizes.size() == 5 && strides_like(sizes, strides, kChannelsLast3d)) {
    if (!exact_match || strides_in_order(sizes, kChannelsLast3d) == DimVector(strides.begin(),
                                                                              strides.end())) {
      return MemoryFormat::ChannelsLast3d;
    }
  }
  return MemoryFormat::Contiguous;
}

DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  DimVector perm(n);
  // A zero stride decides nothing (the dim keeps its row-major place).
  sort_dims_by_layout(perm.data(), n, [&](int64_t a, int64_t b) {
    if (strides[a] == 0 || strides[b] == 0) return 0;
    if (strides[a] != strides[b]) return strides[a] < strides[b] ? -1 : 1;
    return sizes[a] > sizes[b] ? 1 : 0;
  });
  DimVector out(n);
  int64_t s = 1;
  for (int64_t d : perm) {
    out[d] = s;
    if (sizes[d] > 1) s *= sizes[d];
  }
  return out;
}

}  // namespace ember
