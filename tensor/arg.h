#ifndef EMBER_TENSOR_ARG_H_
#define EMBER_TENSOR_ARG_H_

// libtorch's TORCH_ARG, for the options structs of nn, nn::functional and
// optim: `EMBER_ARG(double, momentum) = 0;` gives a chained setter
// (`SGDOptions(0.1).momentum(0.9)`) and a getter (`o.momentum()`).

#include <utility>

#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_

#endif  // EMBER_TENSOR_ARG_H_
