#ifndef EMBER_TENSOR_REDUCTION_H_
#define EMBER_TENSOR_REDUCTION_H_

// Note [Reduction]: a loss's reduction, under both of libtorch's spellings:
// ATen's `at::Reduction::Mean` (an int64 enum in namespace at::Reduction,
// which the top-level losses take as `int64_t reduction`) and the nn
// options' `torch::kMean`. ember has one type for both: Reduction::None /
// Mean / Sum are ATen's names (values 0, 1, 2, as ATen's), Reduction::kNone
// / kMean / kSum and ember::kNone / kMean / kSum the options' names, all of
// type Reduction. A Reduction converts implicitly to int64_t, so it passes
// where ATen takes an int64; nothing converts implicitly to a Reduction, so
// an option cannot be set from a stray int.

#include <cstdint>

namespace ember {

class Reduction {
 public:
  static const Reduction None;
  static const Reduction Mean;
  static const Reduction Sum;
  static const Reduction kNone;
  static const Reduction kMean;
  static const Reduction kSum;

  constexpr Reduction() = default;  // None, as a value-initialized enum
  constexpr explicit Reduction(int64_t value) : value_(value) {}
  constexpr operator int64_t() const { return value_; }  // NOLINT(runtime/explicit)

 private:
  int64_t value_ = 0;
};

inline constexpr Reduction Reduction::None{0};
inline constexpr Reduction Reduction::Mean{1};
inline constexpr Reduction Reduction::Sum{2};
inline constexpr Reduction Reduction::kNone{0};
inline constexpr Reduction Reduction::kMean{1};
inline constexpr Reduction Reduction::kSum{2};

inline constexpr Reduction kNone = Reduction::kNone;
inline constexpr Reduction kMean = Reduction::kMean;
inline constexpr Reduction kSum = Reduction::kSum;

}  // namespace ember

#endif  // EMBER_TENSOR_REDUCTION_H_
