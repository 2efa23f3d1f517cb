#ifndef EMBER_NN_FUNCTIONAL_OPTIONS_H_
#define EMBER_NN_FUNCTIONAL_OPTIONS_H_

// What option structs of nn::functional (and of nn's modules) share, in
// libtorch's spelling:
//   EMBER_ARG(T, name) = default;   chained setter name(v) and getter name()
//   ExpandingArray<D>                one int repeated, or D ints: 3 or {3, 5}
//   ember::kMean / kSum / kNone      a loss's reduction
//   ember::kValid / kSame            a convolution's padding mode
//   ember::kConstant / kReflect / kReplicate / kCircular   F::pad's mode

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "tensor/arg.h"
#include "tensor/error.h"
#include "tensor/reduction.h"

namespace ember {

// A loss's reduction, ember::Reduction (libtorch: torch::kMean), is in
// tensor/reduction.h (Note [Reduction]).
// "none" / "mean" / "sum", as PyTorch prints it.
const char* reduction_name(Reduction r);

// Padding given as a mode instead of sizes ('valid': none; 'same': output
// as long as the input, stride 1 only).
enum class PaddingMode { kValid, kSame };
inline constexpr PaddingMode kValid = PaddingMode::kValid;
inline constexpr PaddingMode kSame = PaddingMode::kSame;

// F::pad's mode (libtorch: torch::kConstant, torch::kReflect...).
enum class PadMode { kConstant, kReflect, kReplicate, kCircular };
inline constexpr PadMode kConstant = PadMode::kConstant;
inline constexpr PadMode kReflect = PadMode::kReflect;
inline constexpr PadMode kReplicate = PadMode::kReplicate;
inline constexpr PadMode kCircular = PadMode::kCircular;
// A convolution's padding_mode: kZeros (PyTorch's 'zeros', F::pad's
// kConstant with value 0), kReflect, kReplicate or kCircular.
inline constexpr PadMode kZeros = PadMode::kConstant;
// "constant" / "reflect" / "replicate" / "circular", as PyTorch spells it.
const char* pad_mode_name(PadMode m);

// D sizes given as one int (repeated) or D ints, as libtorch's
// ExpandingArray: `.stride(2)` and `.stride({2, 1})` both work. With
// T = double, D ratios (libtorch's ExpandingArray<D, double>).
template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T v) : from_one_(true) { values_.fill(v); }  // NOLINT(runtime/explicit)
  ExpandingArray(std::initializer_list<T> list) {             // NOLINT(runtime/explicit)
    EMBER_CHECK(list.size() == D, "Expected ", D, " values, but instead got ", list.size());
    size_t i = 0;
    for (T v : list) values_[i++] = v;
  }
  ExpandingArray(const std::array<T, D>& a) : values_(a) {}  // NOLINT
  T operator[](size_t i) const { return values_[i]; }
  T& operator[](size_t i) {
    from_one_ = false;  // may no longer be one repeated value
    return values_[i];
  }
  // Built from one value (printed as PyTorch prints what it was given:
  // MaxPool2d(2) -> "kernel_size=2", MaxPool2d({2, 2}) -> "(2, 2)").
  bool from_one() const { return from_one_; }
  static constexpr size_t size() { return D; }
  const T* data() const { return values_.data(); }
  const T* begin() const { return values_.data(); }
  const T* end() const { return values_.data() + D; }
  bool operator==(const ExpandingArray& o) const { return values_ == o.values_; }
  bool operator!=(const ExpandingArray& o) const { return values_ != o.values_; }

 private:
  std::array<T, D> values_{};
  bool from_one_ = false;
};
template <size_t D>
using ExpandingArrayDouble = ExpandingArray<D, double>;

// A convolution's padding: sizes, or kValid / kSame (libtorch's padding_t):
// `.padding(1)`, `.padding({1, 2})`, `.padding(ember::kSame)`.
template <size_t D>
class ConvPadding {
 public:
  ConvPadding(int64_t v) : sizes_(v) {}                               // NOLINT(runtime/explicit)
  ConvPadding(std::initializer_list<int64_t> list) : sizes_(list) {}  // NOLINT
  ConvPadding(const ExpandingArray<D>& sizes) : sizes_(sizes) {}      // NOLINT
  ConvPadding(PaddingMode mode) : sizes_(0), is_mode_(true), mode_(mode) {}  // NOLINT
  bool is_mode() const { return is_mode_; }
  PaddingMode mode() const { return mode_; }
  // Meaningful when !is_mode().
  const ExpandingArray<D>& sizes() const { return sizes_; }

 private:
  ExpandingArray<D> sizes_;
  bool is_mode_ = false;
  PaddingMode mode_ = PaddingMode::kValid;
};

}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_OPTIONS_H_
