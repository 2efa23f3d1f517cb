#ifndef EMBER_TENSOR_LOOPS_H_
#define EMBER_TENSOR_LOOPS_H_

// Kernels for TensorIterator (Note [Elementwise engine]).
//
//   auto iter = TensorIterator::binary_op(out, a, b);
//   EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "mul_cpu", [&] {
//     cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return x * y; });
//   });
//
// The lambda's argument types are the inputs' element types and its return
// type the output's. Contiguous runs and runs with one broadcast scalar
// input (of two or three) get their own loops (vectorized by the
// compiler); others step by strides.

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensor/iterator.h"

namespace ember {

template <typename T>
struct function_traits : function_traits<decltype(&T::operator())> {};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result_type = R;
  static constexpr int arity = sizeof...(Args);
  using args_tuple = std::tuple<std::decay_t<Args>...>;
  template <int i>
  using arg = std::tuple_element_t<i, args_tuple>;
};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...)> : function_traits<R (C::*)(Args...) const> {};
template <typename R, typename... Args>
struct function_traits<R (*)(Args...)> {
  using result_type = R;
  static constexpr int arity = sizeof...(Args);
  using args_tuple = std::tuple<std::decay_t<Args>...>;
  template <int i>
  using arg = std::tuple_element_t<i, args_tuple>;
};

namespace detail {

template <typename traits, std::size_t... I>
bool all_contiguous(const int64_t* strides, std::index_sequence<I...>) {
  using out_t = typename traits::result_type;
  return strides[0] == sizeof(out_t) &&
         ((strides[I + 1] == sizeof(typename traits::template arg<I>)) && ...);
}

// Contiguous except input `s`, which is a broadcast scalar (stride 0).
template <typename traits, std::size_t... I>
bool contiguous_but_scalar(const int64_t* strides, int s, std::index_sequence<I...>) {
  using out_t = typename traits::result_type;
  return strides[0] == sizeof(out_t) && strides[s + 1] == 0 &&
         (((static_cast<int>(I) == s) ||
           strides[I + 1] == sizeof(typename traits::template arg<I>)) &&
          ...);
}

template <typename traits, typename F, std::size_t... I>
void contiguous_loop(char** data, int64_t n, const F& op, std::index_sequence<I...>) {
  using out_t = typename traits::result_type;
  out_t* out = reinterpret_cast<out_t*>(data[0]);
  std::tuple<const typename traits::template arg<I>*...> in{
      reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1])...};
  for (int64_t k = 0; k < n; ++k) out[k] = op(std::get<I>(in)[k]...);
}

template <typename traits, int S, typename F, std::size_t... I>
void scalar_loop(char** data, int64_t n, const F& op, std::index_sequence<I...>) {
  using out_t = typename traits::result_type;
  out_t* out = reinterpret_cast<out_t*>(data[0]);
  std::tuple<const typename traits::template arg<I>*...> in{
      reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1])...};
  const auto s = *std::get<S>(in);
  auto pick = [&](auto idx, int64_t k) {
    constexpr std::size_t J = decltype(idx)::value;
    if constexpr (J == static_cast<std::size_t>(S)) {
      return s;
    } else {
      return std::get<J>(in)[k];
    }
  };
  for (int64_t k = 0; k < n; ++k) out[k] = op(pick(std::integral_constant<std::size_t, I>{}, k)...);
}

template <typename traits, typename F, std::size_t... I>
void strided_loop(char** data, const int64_t* strides, int64_t n, const F& op,
                  std::index_sequence<I...>) {
  using out_t = typename traits::result_type;
  char* out = data[0];
  [[maybe_unused]] char* in[sizeof...(I) + 1] = {data[I + 1]...};  // unused when nullary
  for (int64_t k = 0; k < n; ++k) {
    *reinterpret_cast<out_t*>(out + k * strides[0]) =
        op(*reinterpret_cast<const typename traits::template arg<I>*>(in[I] + k * strides[I + 1])...);
  }
}

}  // namespace detail

// Runs `op` element by element: out = op(in0, in1, ...).
template <typename F>
void cpu_kernel(TensorIterator& iter, const F& op, int64_t grain_size = kGrainSize) {
  using traits = function_traits<F>;
  constexpr int arity = traits::arity;
  using Seq = std::make_index_sequence<arity>;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (detail::all_contiguous<traits>(strides, Seq{})) {
          detail::contiguous_loop<traits>(data, n, op, Seq{});
          return;
        }
        if constexpr (arity == 2 || arity == 3) {
          // One broadcast scalar among contiguous inputs (x * 2, where(m, g, 0)).
          if (detail::contiguous_but_scalar<traits>(strides, arity - 1, Seq{})) {
            detail::scalar_loop<traits, arity - 1>(data, n, op, Seq{});
            return;
          }
          if (detail::contiguous_but_scalar<traits>(strides, arity - 2, Seq{})) {
            detail::scalar_loop<traits, arity - 2>(data, n, op, Seq{});
            return;
          }
          if constexpr (arity == 3) {
            if (detail::contiguous_but_scalar<traits>(strides, 0, Seq{})) {
              detail::scalar_loop<traits, 0>(data, n, op, Seq{});
              return;
            }
          }
        }
        detail::strided_loop<traits>(data, strides, n, op, Seq{});
      },
      grain_size);
}

// Casts between element types the way PyTorch does (bool: nonzero; half
// and bfloat16 through float).
template <typename To, typename From>
inline To cast_value(From v) {
  if constexpr (std::is_same<To, bool>::value) {
    if constexpr (std::is_same<From, Half>::value || std::is_same<From, BFloat16>::value) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (std::is_same<From, Half>::value || std::is_same<From, BFloat16>::value) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember

#endif  // EMBER_TENSOR_LOOPS_H_
