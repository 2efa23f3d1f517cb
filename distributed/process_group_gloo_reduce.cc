// Elementwise reductions gloo calls between segments (no gloo header needed:
// gloo takes a void(void*, const void*, const void*, size_t) function).
// Half and bfloat16 go through float, as PyTorch's CPU kernels do; bool SUM
// and MAX are "or", PRODUCT and MIN are "and" (PyTorch's gloo results).

#include <algorithm>
#include <string>

#include "distributed/process_group_gloo_impl.h"
#include "tensor/dispatch.h"

namespace ember::distributed {
namespace {

template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<Half> {
  using type = float;
};
template <>
struct Acc<BFloat16> {
  using type = float;
};

template <typename T, typename F>
void loop(void* out, const void* a, const void* b, size_t n, F f) {
  using A = typename Acc<T>::type;
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<T>(f(static_cast<A>(x[i]), static_cast<A>(y[i])));
}

template <typename T>
void sum(void* o, const void* a, const void* b, size_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    loop<T>(o, a, b, n, [](bool x, bool y) { return x || y; });
  } else {
    loop<T>(o, a, b, n, [](auto x, auto y) { return x + y; });
  }
}
template <typename T>
void product(void* o, const void* a, const void* b, size_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    loop<T>(o, a, b, n, [](bool x, bool y) { return x && y; });
  } else {
    loop<T>(o, a, b, n, [](auto x, auto y) { return x * y; });
  }
}
// NaN propagates, as torch.minimum/maximum do.
template <typename T>
void min(void* o, const void* a, const void* b, size_t n) {
  loop<T>(o, a, b, n, [](auto x, auto y) { return (x != x || x < y) ? x : y; });
}
template <typename T>
void max(void* o, const void* a, const void* b, size_t n) {
  loop<T>(o, a, b, n, [](auto x, auto y) { return (x != x || x > y) ? x : y; });
}
template <typename T>
void band(void* o, const void* a, const void* b, size_t n) {
  loop<T>(o, a, b, n, [](auto x, auto y) { return x & y; });
}
template <typename T>
void bor(void* o, const void* a, const void* b, size_t n) {
  loop<T>(o, a, b, n, [](auto x, auto y) { return x | y; });
}
template <typename T>
void bxor(void* o, const void* a, const void* b, size_t n) {
  loop<T>(o, a, b, n, [](auto x, auto y) { return x ^ y; });
}

template <typename T>
GlooReduceFn pick(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return &sum<T>;
    case ReduceOp::PRODUCT:
      return &product<T>;
    case ReduceOp::MIN:
      return &min<T>;
    case ReduceOp::MAX:
      return &max<T>;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case ReduceOp::BAND:
        return &band<T>;
      case ReduceOp::BOR:
        return &bor<T>;
      case ReduceOp::BXOR:
        return &bxor<T>;
      default:
        break;
    }
  }
  return nullptr;
}

}  // namespace

GlooReduceFn gloo_reduce_fn(ScalarType dtype, ReduceOp op, const char* caller) {
  EMBER_CHECK(!is_quantized(dtype), "ProcessGroupGloo::", caller, ": unsupported dtype ", dtype_name(dtype));
  if (op == ReduceOp::AVG) {
    EMBER_CHECK(dtype != kBool, "ProcessGroupGloo::", caller,
                ": Cannot use ReduceOp.AVG with boolean inputs");
  }
  GlooReduceFn fn = EMBER_DISPATCH_ALL_TYPES(dtype, caller, [&] { return pick<scalar_t>(op); });
  EMBER_CHECK(fn != nullptr, "ProcessGroupGloo::", caller, ": Cannot use ReduceOp.",
              reduce_op_name(op), " with non-integral dtype ", dtype_name(dtype));
  return fn;
}

void gloo_divide_in_place(void* data, ScalarType dtype, size_t n, int64_t d) {
  EMBER_DISPATCH_NUMERIC_TYPES(dtype, "avg", [&] {
    using A = typename Acc<scalar_t>::type;
    scalar_t* p = static_cast<scalar_t*>(data);
    const A div = static_cast<A>(d);
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(static_cast<A>(p[i]) / div);
  });
}

}  // namespace ember::distributed
