#ifndef EMBER_TENSOR_LIBTORCH_COMPAT_H_
#define EMBER_TENSOR_LIBTORCH_COMPAT_H_

// libtorch's spellings that a program keeps after the mechanical rename
// (torch:: / at:: / c10:: -> ember::, tools/libtorch_port.py) and that
// have no other home in ember: c10's macros, which keep their TORCH_ / AT_
// names (the rename touches only `torch::`), c10::str, and c10::optional.
// For users, through ember.h only: the project's own files use EMBER_CHECK
// (tensor/error.h) and std::optional. Errors are ember::Error and its
// subclasses, as everywhere in ember.

#include <atomic>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "tensor/error.h"

namespace ember {

// c10::optional / c10::nullopt (std's since libtorch 2.x; aliases here).
using std::nullopt;
using std::nullopt_t;
using std::optional;

// c10::str: every argument streamed with operator<< into one string
// (str("dcgan-sample-", 3, ".pt") is "dcgan-sample-3.pt").
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}

namespace detail {
// TORCH_CHECK's message: the caller's parts, or c10's default.
inline std::string check_msg(const char* cond) {
  return str("Expected ", cond, " to be true, but got false.");
}
template <typename... Args>
std::string check_msg(const char* /*cond*/, const Args&... args) {
  return str(args...);
}
template <typename... Args>
std::string internal_assert_msg(const char* cond, const char* file, int line,
                                const Args&... args) {
  return str(cond, " INTERNAL ASSERT FAILED at \"", file, "\":", line,
             ", please report a bug to ember. ", args...);
}
}  // namespace detail

}  // namespace ember

// TORCH_CHECK(cond, parts...): throws ember::Error(str(parts...)) unless cond
// holds; without parts, "Expected cond to be true, but got false.". The
// parts are evaluated only on failure. _INDEX / _VALUE / _TYPE throw
// ember::IndexError / ValueError / TypeError (c10's IndexError...).
#define EMBER_LIBTORCH_CHECK_(error, cond, ...)                                       \
  do {                                                                                \
    if (__builtin_expect(!(cond), 0)) {                                               \
      throw error(::ember::detail::check_msg(#cond, ##__VA_ARGS__));                  \
    }                                                                                 \
  } while (0)
#define TORCH_CHECK(cond, ...) EMBER_LIBTORCH_CHECK_(::ember::Error, cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) \
  EMBER_LIBTORCH_CHECK_(::ember::IndexError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) \
  EMBER_LIBTORCH_CHECK_(::ember::ValueError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) \
  EMBER_LIBTORCH_CHECK_(::ember::TypeError, cond, ##__VA_ARGS__)

// TORCH_INTERNAL_ASSERT(cond, parts...) and AT_ASSERT(cond, parts...): a
// broken invariant, not bad input: 'x == y INTERNAL ASSERT FAILED at
// "file.cc":12, please report a bug to ember. parts'.
#define TORCH_INTERNAL_ASSERT(cond, ...)                                               \
  do {                                                                                 \
    if (__builtin_expect(!(cond), 0)) {                                                \
      throw ::ember::Error(                                                            \
          ::ember::detail::internal_assert_msg(#cond, __FILE__, __LINE__, ##__VA_ARGS__)); \
    }                                                                                  \
  } while (0)
#define AT_ASSERT(cond, ...) TORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)

// TORCH_WARN(parts...): "Warning: parts (function f)" on stderr, as
// libtorch's default warning handler prints it; _ONCE: the first time only.
#define TORCH_WARN(...)                                                              \
  (::std::cerr << "Warning: " << ::ember::str(__VA_ARGS__) << " (function " << __func__ \
               << ")" << ::std::endl)
#define TORCH_WARN_ONCE(...)                                        \
  do {                                                              \
    static ::std::atomic<bool> ember_warned_once_{false};           \
    if (!ember_warned_once_.exchange(true)) TORCH_WARN(__VA_ARGS__); \
  } while (0)

#endif  // EMBER_TENSOR_LIBTORCH_COMPAT_H_
