#ifndef EMBER_NN_OPTIONS_H_
#define EMBER_NN_OPTIONS_H_

// Python's spelling of values for the layers' extra_repr(), so that the
// printed tree is PyTorch's. (The option structs' EMBER_ARG and
// ExpandingArray are nn/functional/options.h's.)

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember {
namespace nn {
namespace detail {

// Python's str() of a float: the shortest round-tripping digits, "1.0",
// "0.01", "1e-05".
std::string py_float(double v);
// An integral value as an int ("20"), others as py_float: how the layers
// whose PyTorch defaults are ints print (Softplus, Threshold, ConstantPad).
std::string py_number(double v);
inline const char* py_bool(bool b) { return b ? "True" : "False"; }
// A Python tuple of ints: "(5, 5)", "(10,)".
template <typename Ints>
std::string py_tuple(const Ints& v) {
  const size_t n = static_cast<size_t>(std::end(v) - std::begin(v));
  return absl::StrCat("(", absl::StrJoin(v, ", "), n == 1 ? ",)" : ")");
}
// A pooling size as PyTorch prints what it was given: one int as the int
// (MaxPool2d(2) -> "2"), D ints as a tuple (MaxPool2d({2, 2}) -> "(2, 2)").
// (An ExpandingArray: anything with from_one() and operator[].)
template <typename Sizes>
std::string py_size(const Sizes& a) {
  return a.from_one() ? absl::StrCat(a[0]) : py_tuple(a);
}

}  // namespace detail
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_OPTIONS_H_
