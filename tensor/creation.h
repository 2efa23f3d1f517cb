#ifndef EMBER_TENSOR_CREATION_H_
#define EMBER_TENSOR_CREATION_H_

// Factory functions: tensor(), from_blob, zeros/ones/full and their _like,
// eye, arange, range, linspace, logspace. (empty/empty_like live in
// empty.h; random factories in random.h.)

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "tensor/empty.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace ember {

// The data of ember::tensor(): a number, or a (nested) braced list of them,
// or a std::vector of numbers. Like libtorch's TensorDataContainer, it
// records the shape and checks that lists are not ragged.
//
// Note [tensor() dtype]: with no dtype given, the dtype is inferred as
// torch.tensor does in Python: bools give kBool, integers kLong, floating
// values the default dtype, and a list mixing kinds takes the highest kind
// (tensor({1, 2.5}) is float). A homogeneous std::vector<T> keeps T's dtype
// (uint8_t -> kByte, ...) except that int32/int64 give kLong and
// float/double the default dtype, as libtorch does.
class TensorDataContainer {
 public:
  // A scalar.
  TensorDataContainer(bool v)  // NOLINT
      : scalar_(v), kind_(Scalar::Kind::Bool), has_values_(true) {}
  template <typename T, std::enable_if_t<std::is_arithmetic<T>::value &&
                                             !std::is_same<T, bool>::value,
                                         int> = 0>
  TensorDataContainer(T v)  // NOLINT
      : scalar_(v),
        kind_(std::is_floating_point<T>::value ? Scalar::Kind::Double : Scalar::Kind::Int),
        has_values_(true) {}
  TensorDataContainer(Half v)  // NOLINT
      : scalar_(v), kind_(Scalar::Kind::Double), has_values_(true) {}
  TensorDataContainer(BFloat16 v)  // NOLINT
      : scalar_(v), kind_(Scalar::Kind::Double), has_values_(true) {}

  // A (possibly nested) list: {1, 2}, {{1, 2}, {3, 4}}. Throws ValueError on
  // ragged lists, with Python's message.
  TensorDataContainer(std::initializer_list<TensorDataContainer> list);  // NOLINT

  // A flat vector of numbers.
  template <typename T, std::enable_if_t<std::is_arithmetic<T>::value ||
                                             std::is_same<T, Half>::value ||
                                             std::is_same<T, BFloat16>::value,
                                         int> = 0>
  TensorDataContainer(const std::vector<T>& v)  // NOLINT
      : is_list_(true), sizes_{static_cast<int64_t>(v.size())} {
    has_values_ = !v.empty();
    values_.reserve(v.size());
    for (const T& x : v) values_.emplace_back(x);
    kind_ = std::is_same<T, bool>::value ? Scalar::Kind::Bool
            : std::is_integral<T>::value ? Scalar::Kind::Int
                                         : Scalar::Kind::Double;
    vector_dtype_ = scalar_type_of<std::conditional_t<std::is_same<T, long long>::value, int64_t, T>>();
  }

  bool is_scalar() const { return !is_list_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  // The dtype tensor() gives these values when none is asked for.
  ScalarType inferred_dtype() const;
  // Writes the values, row-major, into a contiguous CPU tensor of the same
  // shape.
  void fill(Tensor& t) const;

 private:
  // Appends every leaf value in row-major order.
  void flatten_into(std::vector<Scalar>& out) const;

  Scalar scalar_;
  Scalar::Kind kind_ = Scalar::Kind::Double;  // highest kind among the leaves
  bool is_list_ = false;
  bool has_values_ = false;  // false for an empty list (kind_ is then meaningless)
  std::vector<int64_t> sizes_;
  std::vector<TensorDataContainer> children_;
  std::vector<Scalar> values_;  // for a flat vector
  ScalarType vector_dtype_ = ScalarType::Undefined;
};

// tensor(3), tensor({1.5, 2}), tensor({{1, 2}, {3, 4}}, kFloat),
// tensor(std::vector<float>{...}). Always copies the data.
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

// A tensor over memory the caller owns: no copy. `deleter`, when given, is
// called with `data` once the last tensor viewing that memory is gone.
// `strides` default to the contiguous ones; dtype defaults to the default
// dtype.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options = {});

Tensor zeros(IntArrayRef size, const TensorOptions& options = {});
Tensor ones(IntArrayRef size, const TensorOptions& options = {});
// Without a dtype, the fill value's kind picks it (PyTorch 1.13): a bool
// gives kBool, an integer kLong, a floating value the default dtype.
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {});

// Same shape as `t`; dtype and device from `t` unless options say otherwise.
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options = {});

// The n x m identity (m defaults to n), default dtype.
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});

// Values start, start + step, ... below end. With no dtype: kLong when
// every argument is an integer, else the default dtype. The length is
// ceil((end - start) / step) computed in double, as PyTorch does.
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options = {});

// torch.range (deprecated in PyTorch, kept for parity): like arange but the
// end is included; default dtype even for integer arguments.
Tensor range(const Scalar& start, const Scalar& end, const Scalar& step = 1,
             const TensorOptions& options = {});

// `steps` values evenly spaced from start to end inclusive; default dtype.
// Computed from both ends (start + i*step for the first half, end -
// (steps-1-i)*step for the rest) as PyTorch does, so the end is exact.
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options = {});
// base ** linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});

}  // namespace ember

#endif  // EMBER_TENSOR_CREATION_H_
