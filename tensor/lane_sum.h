#ifndef EMBER_TENSOR_LANE_SUM_H_
#define EMBER_TENSOR_LANE_SUM_H_

// The sum over i < len of term(i) in eight independent lanes of Acc, which
// the compiler vectorizes (one running sum is a dependency chain it may not
// reorder), added pairwise at the end: the CPU normalization kernels'
// statistics (double lanes) and the convolution's bias gradient. Internal.

#include <cstdint>

namespace ember {
namespace detail {

template <typename Acc, typename Term>
inline Acc lane_sum(int64_t len, const Term& term) {
  Acc lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    for (int l = 0; l < 8; ++l) lanes[l] += term(i + l);
  }
  Acc s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
          ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; i < len; ++i) s += term(i);
  return s;
}

}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_LANE_SUM_H_
