#ifndef EMBER_AUTOGRAD_IVALUE_H_
#define EMBER_AUTOGRAD_IVALUE_H_
// ember::IValue: one value of a few kinds, as libtorch's c10::IValue, for
// the non-tensor state a custom Function keeps between forward and backward
// (AutogradContext::saved_data in custom_function.h). It holds the kinds
// that state needs, not all of c10's: None, Tensor, Double, Int, Bool,
// String, IntList, DoubleList, BoolList and TensorList. Accessors are
// strict like c10's: toDouble() on an Int is an error, not a conversion.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tensor/error.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace ember {

class IValue {
 public:
  IValue() = default;  // None
  IValue(Tensor t) : v_(std::in_place_type<Tensor>, std::move(t)) {}  // NOLINT
  IValue(double d) : v_(std::in_place_type<double>, d) {}              // NOLINT
  // Every integer type is an Int (a plain `5` must not be ambiguous between
  // int64_t, double and bool).
  template <typename T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  IValue(T i) : v_(std::in_place_type<int64_t>, static_cast<int64_t>(i)) {}  // NOLINT
  IValue(bool b) : v_(std::in_place_type<bool>, b) {}                          // NOLINT
  // Without this overload a string literal would become a Bool.
  IValue(const char* s) : v_(std::in_place_type<std::string>, s) {}             // NOLINT
  IValue(std::string s) : v_(std::in_place_type<std::string>, std::move(s)) {}  // NOLINT
  IValue(std::vector<int64_t> v)  // NOLINT
      : v_(std::in_place_type<std::vector<int64_t>>, std::move(v)) {}
  IValue(IntArrayRef v)  // NOLINT: x.sizes()
      : v_(std::in_place_type<std::vector<int64_t>>, v.begin(), v.end()) {}
  IValue(const DimVector& v)  // NOLINT
      : v_(std::in_place_type<std::vector<int64_t>>, v.begin(), v.end()) {}
  IValue(std::vector<double> v)  // NOLINT
      : v_(std::in_place_type<std::vector<double>>, std::move(v)) {}
  IValue(std::vector<bool> v)  // NOLINT
      : v_(std::in_place_type<std::vector<bool>>, std::move(v)) {}
  IValue(std::vector<Tensor> v)  // NOLINT
      : v_(std::in_place_type<std::vector<Tensor>>, std::move(v)) {}
  // A number keeps its kind: Double, Int or Bool.
  IValue(const Scalar& s) {  // NOLINT
    if (s.is_floating_point()) {
      v_.emplace<double>(s.toDouble());
    } else if (s.is_bool()) {
      v_.emplace<bool>(s.toBool());
    } else {
      v_.emplace<int64_t>(s.toLong());
    }
  }

  bool isNone() const { return std::holds_alternative<std::monostate>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isDoubleList() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool isBoolList() const { return std::holds_alternative<std::vector<bool>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool isScalar() const { return isDouble() || isInt() || isBool(); }

  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  double toDouble() const { return get<double>("Double"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  bool toBool() const { return get<bool>("Bool"); }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  const std::vector<int64_t>& toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  const std::vector<double>& toDoubleVector() const {
    return get<std::vector<double>>("DoubleList");
  }
  const std::vector<bool>& toBoolVector() const { return get<std::vector<bool>>("BoolList"); }
  const std::vector<Tensor>& toTensorVector() const {
    return get<std::vector<Tensor>>("TensorList");
  }
  Scalar toScalar() const {
    if (isDouble()) return Scalar(toDouble());
    if (isInt()) return Scalar(toInt());
    EMBER_CHECK(isBool(), "IValue is not a Scalar");
    return Scalar(toBool());
  }

  // The kind's name, as c10's: "None", "Tensor", "Double", "Int", ...
  const char* tagKind() const {
    static constexpr const char* kNames[] = {"None",    "Tensor",     "Double",   "Int",
                                             "Bool",    "String",     "IntList",  "DoubleList",
                                             "BoolList", "TensorList"};
    return kNames[v_.index()];
  }

 private:
  template <typename T>
  const T& get(const char* kind) const {
    const T* p = std::get_if<T>(&v_);
    EMBER_CHECK(p != nullptr, "Expected ", kind, " but got ", tagKind());
    return *p;
  }

  // Order matches tagKind's names.
  std::variant<std::monostate, Tensor, double, int64_t, bool, std::string, std::vector<int64_t>,
               std::vector<double>, std::vector<bool>, std::vector<Tensor>>
      v_;
};

}  // namespace ember

#endif  // EMBER_AUTOGRAD_IVALUE_H_
