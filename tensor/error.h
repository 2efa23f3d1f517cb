#ifndef EMBER_TENSOR_ERROR_H_
#define EMBER_TENSOR_ERROR_H_

#include <stdexcept>
#include <string>

#include "absl/strings/str_cat.h"

namespace ember {

// Every bad input raises ember::Error (or a subclass) with PyTorch's wording.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

// PyTorch raises IndexError / TypeError / ValueError for some inputs; C++
// callers can catch those distinctly or as ember::Error.
class IndexError : public Error {
 public:
  using Error::Error;
};
class TypeError : public Error {
 public:
  using Error::Error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};

}  // namespace ember

// EMBER_CHECK(cond, parts...): throws ember::Error(StrCat(parts...)) unless
// cond holds. The message parts are only evaluated on failure.
#define EMBER_CHECK(cond, ...)                                    \
  do {                                                            \
    if (__builtin_expect(!(cond), 0)) {                           \
      throw ::ember::Error(::absl::StrCat(__VA_ARGS__));          \
    }                                                             \
  } while (0)

#define EMBER_CHECK_INDEX(cond, ...)                              \
  do {                                                            \
    if (__builtin_expect(!(cond), 0)) {                           \
      throw ::ember::IndexError(::absl::StrCat(__VA_ARGS__));     \
    }                                                             \
  } while (0)

#define EMBER_CHECK_TYPE(cond, ...)                               \
  do {                                                            \
    if (__builtin_expect(!(cond), 0)) {                           \
      throw ::ember::TypeError(::absl::StrCat(__VA_ARGS__));      \
    }                                                             \
  } while (0)

#define EMBER_CHECK_VALUE(cond, ...)                              \
  do {                                                            \
    if (__builtin_expect(!(cond), 0)) {                           \
      throw ::ember::ValueError(::absl::StrCat(__VA_ARGS__));     \
    }                                                             \
  } while (0)

#endif  // EMBER_TENSOR_ERROR_H_
