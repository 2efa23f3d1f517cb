#ifndef EMBER_TENSOR_SCALAR_H_
#define EMBER_TENSOR_SCALAR_H_

#include <cstdint>
#include <type_traits>

#include "tensor/dtype.h"

namespace ember {

// A number passed to an op (the `2` in `x * 2`): a bool, an integer or a
// floating value, like a Python number. Its kind decides type promotion
// (an integer keeps an int tensor integral; a double makes it float).
class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }  // NOLINT
  template <typename T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {  // NOLINT
    i_ = static_cast<int64_t>(v);
  }
  template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  Scalar(T v) : kind_(Kind::Double) {  // NOLINT
    d_ = static_cast<double>(v);
  }
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}  // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral(bool include_bool = false) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool is_floating_point() const { return kind_ == Kind::Double; }

  template <typename T>
  T to() const {
    if (kind_ == Kind::Double) return static_cast<T>(d_);
    return static_cast<T>(i_);
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return kind_ == Kind::Double ? d_ != 0 : i_ != 0; }

  // The dtype a tensor made from this number gets: bool, int64 or the
  // default floating dtype.
  ScalarType type() const {
    switch (kind_) {
      case Kind::Bool: return kBool;
      case Kind::Int: return kLong;
      default: return kDouble;
    }
  }
  Scalar operator-() const {
    if (kind_ == Kind::Double) return Scalar(-d_);
    return Scalar(-i_);
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

template <>
inline bool Scalar::to<bool>() const {
  return toBool();
}
template <>
inline Half Scalar::to<Half>() const {
  return Half(to<float>());
}
template <>
inline BFloat16 Scalar::to<BFloat16>() const {
  return BFloat16(to<float>());
}

// PyTorch's checked conversion of a number into a tensor's dtype (fill_,
// full, masked_fill, index_fill_, clamp bounds, alpha): throws ember::Error
// "value cannot be converted to type uint8_t without overflow" when `value`
// does not fit. As in PyTorch, an integer may wrap into an unsigned type
// from below (-1 becomes 255), a floating value must be in range, infinities
// and NaN fit floating types only, and everything fits bool. Arithmetic
// with a number (`x + 300`) is not checked, as in PyTorch.
void check_convertible(const Scalar& value, ScalarType dtype);

}  // namespace ember

#endif  // EMBER_TENSOR_SCALAR_H_
