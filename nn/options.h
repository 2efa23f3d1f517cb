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
inline const char* py_bool(bool b) { return b ? "True" : "False"; }
// A Python tuple of ints: "(5, 5)", "(10,)".
template <typename Ints>
std::string py_tuple(const Ints& v) {
  const size_t n = static_cast<size_t>(std::end(v) - std::begin(v));
  return absl::StrCat("(", absl::StrJoin(v, ", "), n == 1 ? ",)" : ")");
}
// A pooling size as PyTorch prints what it was given. ExpandingArray does
// not remember whether one int or D ints were given, so equal sizes print as
// the one int (MaxPool2d(2) -> "2"; MaxPool2d({2, 2}) also prints "2",
// where PyTorch prints "(2, 2)").
template <typename Sizes>
std::string py_size(const Sizes& a) {
  for (size_t i = 1; i < a.size(); ++i) {
    if (a[i] != a[0]) return py_tuple(a);
  }
  return absl::StrCat(a[0]);
}

}  // namespace detail
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_OPTIONS_H_
