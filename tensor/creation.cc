#include "tensor/creation.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/parallel.h"
#include "tensor/storage.h"

namespace ember {
namespace {

// Factories fill a CPU tensor and then move it where options ask; the
// requires_grad flag is applied last so the fill is not an in-place op on a
// leaf that requires grad.
TensorOptions cpu_options(ScalarType dt) {
  return TensorOptions(dt).device(Device(kCPU));
}

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.device() != t.device()) t = t.to(options.device());
  detail::apply_requires_grad(t, options);
  return t;
}

// Note [PyTorch's vectorized ramps]: arange and linspace in PyTorch fill a
// contiguous output through cpu_serial_kernel_vec. With AVX2 it writes
// blocks of two 32-byte vectors: the first lane of each vector is computed
// by the scalar formula and the other lanes as base + k * step; the tail
// (fewer than two vectors) uses the scalar formula for every element. Those
// two ways round differently, so we reproduce the same blocking to give
// bit-identical values. Work is split on block boundaries so the result
// does not depend on the thread count.
template <typename T, typename ScalarFn, typename LaneFn>
void fill_ramp(T* out, int64_t n, const ScalarFn& scalar_at, const LaneFn& lane) {
  constexpr int64_t kLanes = 32 / sizeof(T);
  constexpr int64_t kBlock = 2 * kLanes;
  const int64_t vec_end = n - n % kBlock;
  const int64_t nblocks = vec_end / kBlock;
  parallel_for(0, nblocks, kGrainSize / kBlock, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      for (int64_t v = blk * kBlock; v < (blk + 1) * kBlock; v += kLanes) {
        const T base = scalar_at(v);
        for (int64_t k = 0; k < kLanes; ++k) out[v + k] = lane(base, k);
      }
    }
  });
  for (int64_t i = vec_end; i < n; ++i) out[i] = scalar_at(i);
}

// at::acc_type on CPU: the type PyTorch's range kernels compute in.
template <typename T>
struct AccType {
  using type = std::conditional_t<std::is_integral<T>::value, int64_t, double>;
};
template <>
struct AccType<Half> {
  using type = float;
};
template <>
struct AccType<BFloat16> {
  using type = float;
};

// Note [Ramp arithmetic]: PyTorch's range kernels are compiled for AVX2 with
// FMA, and GCC fuses `start + step * i` into one fused multiply-add; we
// write the fma out so the rounding is the same whatever our flags. Half
// and bfloat16 values (c10::Half) round to their type after every
// operation, `step * i` included.
template <typename T>
constexpr bool is_reduced_float() {
  return std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
}

template <typename T>
using math_t = std::conditional_t<is_reduced_float<T>(), float, T>;

template <typename A>
A mul_add(A a, A b, A c) {
  if constexpr (std::is_floating_point<A>::value) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;
  }
}

// c10::Half-style operations: compute in float, round to T.
template <typename T>
T rmul(T a, T b) {
  return static_cast<T>(static_cast<float>(a) * static_cast<float>(b));
}
template <typename T>
T radd(T a, T b) {
  return static_cast<T>(static_cast<float>(a) + static_cast<float>(b));
}
template <typename T>
T rsub(T a, T b) {
  return static_cast<T>(static_cast<float>(a) - static_cast<float>(b));
}

// a - b as C++ evaluates it for the element type: integers promote to int
// (no wrap-around for uint8), Half/BFloat16 round back to their type.
template <typename T>
auto type_sub(T a, T b) {
  if constexpr (is_reduced_float<T>()) {
    return rsub(a, b);
  } else {
    return a - b;
  }
}

// Lane k of a vector whose first lane is `base` (Vectorized::arange).
template <typename scalar_t, typename step_t>
scalar_t linspace_lane(scalar_t base, step_t step, int64_t k) {
  if constexpr (is_reduced_float<scalar_t>()) {
    return radd(base, rmul(static_cast<scalar_t>(k), step));
  } else {
    // Unlike the first lane, the others are not fused (measured).
    const step_t offset = static_cast<step_t>(k) * step;
    return static_cast<scalar_t>(static_cast<step_t>(base) + offset);
  }
}

// (end - start) / (steps - 1), in float for float, half and bfloat16 (as
// c10::Half arithmetic does) and in double for double and integers.
template <typename step_t, typename scalar_t>
step_t linspace_step(scalar_t start, scalar_t end, int64_t steps) {
  using calc_t = std::conditional_t<std::is_same<step_t, double>::value, double, float>;
  return static_cast<step_t>(
      (static_cast<calc_t>(static_cast<step_t>(end)) - static_cast<calc_t>(static_cast<step_t>(start))) /
      static_cast<calc_t>(steps - 1));
}

// linspace/logspace's value at i: start + step * i for the first half,
// end - step * (steps - 1 - i) for the rest, in PyTorch's arithmetic.
// `step_t` is scalar_t, or double for integral types.
template <typename scalar_t, typename step_t>
auto linspace_point(scalar_t start, scalar_t end, step_t step, int64_t steps, int64_t i) {
  if constexpr (is_reduced_float<scalar_t>()) {
    return i < steps / 2 ? radd(start, rmul(step, static_cast<scalar_t>(i)))
                         : rsub(end, rmul(step, static_cast<scalar_t>(steps - i - 1)));
  } else {
    return i < steps / 2 ? mul_add(step, static_cast<step_t>(i), static_cast<step_t>(start))
                         : mul_add(-step, static_cast<step_t>(steps - i - 1),
                                   static_cast<step_t>(end));
  }
}

template <typename T>
bool is_finite_value(T v) {
  if constexpr (std::is_integral<T>::value) {
    return true;
  } else {
    return std::isfinite(static_cast<double>(v));
  }
}

// Checks shared by arange and range (PyTorch's wording and order).
template <typename Acc>
void check_range_args(Acc xstart, Acc xend, Acc xstep) {
  EMBER_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  EMBER_CHECK(is_finite_value(xstart) && is_finite_value(xend), "unsupported range: ", xstart,
              " -> ", xend);
  EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "upper bound and larger bound inconsistent with step sign");
}

bool all_integral(std::initializer_list<const Scalar*> scalars) {
  for (const Scalar* s : scalars) {
    if (!s->is_integral(/*include_bool=*/true)) return false;
  }
  return true;
}

}  // namespace

// --- tensor() ----------------------------------------------------------------

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> list)
    : is_list_(true), children_(list) {
  sizes_.push_back(static_cast<int64_t>(children_.size()));
  // Python's rule: the shape is read off the first element at each depth;
  // fill() then checks every other element against it.
  if (!children_.empty() && !children_[0].is_scalar()) {
    const auto& inner = children_[0].sizes_;
    sizes_.insert(sizes_.end(), inner.begin(), inner.end());
  }
  for (const auto& c : children_) {
    if (!c.has_values_) continue;
    if (!has_values_ || static_cast<int>(c.kind_) > static_cast<int>(kind_)) kind_ = c.kind_;
    has_values_ = true;
  }
}

ScalarType TensorDataContainer::inferred_dtype() const {
  if (vector_dtype_ != ScalarType::Undefined) {
    switch (vector_dtype_) {
      case kInt:
      case kLong: return kLong;
      case kFloat:
      case kDouble: return get_default_dtype();
      default: return vector_dtype_;
    }
  }
  if (!has_values_) return get_default_dtype();
  switch (kind_) {
    case Scalar::Kind::Bool: return kBool;
    case Scalar::Kind::Int: return kLong;
    default: return get_default_dtype();
  }
}

void TensorDataContainer::flatten_into(std::vector<Scalar>& out) const {
  out.insert(out.end(), values_.begin(), values_.end());
}

namespace {

[[noreturn]] void throw_list_as_number(ScalarType dtype) {
  if (is_floating_point(dtype)) throw TypeError("must be real number, not list");
  throw TypeError("'list' object cannot be interpreted as an integer");
}

}  // namespace

void TensorDataContainer::fill(Tensor& t) const {
  std::vector<Scalar> values;
  values.reserve(static_cast<size_t>(t.numel()));
  // Walks the data top-down in row-major order, checking each list against
  // the shape read off the first elements, in the order of
  // torch/csrc/utils/tensor_new.cpp so the first mismatch reported is
  // Python's.
  struct Walker {
    const std::vector<int64_t>& sizes;
    ScalarType dtype;
    std::vector<Scalar>& out;
    void walk(const TensorDataContainer& c, size_t dim) {
      if (dim == sizes.size()) {
        if (!c.is_scalar()) throw_list_as_number(dtype);
        out.push_back(c.scalar_);
        return;
      }
      if (c.is_scalar()) throw TypeError("not a sequence");
      const bool flat = c.vector_dtype_ != ScalarType::Undefined;
      const int64_t n = flat ? static_cast<int64_t>(c.values_.size())
                             : static_cast<int64_t>(c.children_.size());
      if (n != sizes[dim]) {
        throw ValueError(absl::StrCat("expected sequence of length ", sizes[dim], " at dim ", dim,
                                      " (got ", n, ")"));
      }
      if (flat) {
        if (dim + 1 != sizes.size()) throw TypeError("not a sequence");
        c.flatten_into(out);
        return;
      }
      for (const auto& child : c.children_) walk(child, dim + 1);
    }
  };
  Walker{sizes_, t.dtype(), values}.walk(*this, 0);
  EMBER_DISPATCH_ALL_TYPES(t.dtype(), "tensor", [&] {
    scalar_t* p = t.data_ptr<scalar_t>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i].to<scalar_t>();
  });
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  ScalarType dt = options.has_dtype() ? options.dtype() : data.inferred_dtype();
  Tensor t = empty(data.sizes(), cpu_options(dt));
  data.fill(t);
  return finish(std::move(t), options);
}

// --- from_blob -----------------------------------------------------------------

namespace {

void call_deleter(void* ctx, void* ptr) {
  auto* fn = static_cast<std::function<void(void*)>*>(ctx);
  (*fn)(ptr);
  delete fn;
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  detail::check_sizes(sizes);
  // Bytes the view can reach: 1 + sum((size - 1) * stride) elements.
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {
      extent = 0;
      break;
    }
    extent += (sizes[i] - 1) * strides[i];
  }
  const ScalarType dt = options.dtype();
  DataPtr ptr;
  ptr.ptr = data;
  ptr.device = options.device();
  if (deleter) {
    ptr.ctx = new std::function<void(void*)>(deleter);
    ptr.deleter = &call_deleter;
  }
  auto storage = std::make_shared<StorageImpl>(ptr, static_cast<size_t>(extent * element_size(dt)));
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), dt, sizes, strides, 0));
  detail::apply_requires_grad(t, options);
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), deleter, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return from_blob(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), nullptr, options);
}

// --- zeros / ones / full --------------------------------------------------------

Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options) {
  ScalarType dt = options.has_dtype()         ? options.dtype()
                  : fill_value.is_bool()      ? kBool
                  : fill_value.is_integral()  ? kLong
                                              : get_default_dtype();
  // Filled where it lives: a device tensor must not be filled on the host and
  // uploaded (zeros_like of an activation was a 20 MB copy per backward).
  Tensor t = empty(size, TensorOptions(dt).device(options.device()).memory_format(
                            options.memory_format_opt()));
  t.fill_(fill_value);
  detail::apply_requires_grad(t, options);
  return t;
}

Tensor zeros(IntArrayRef size, const TensorOptions& options) {
  return full(size, 0, options.dtype(options.dtype()));
}

Tensor ones(IntArrayRef size, const TensorOptions& options) {
  return full(size, 1, options.dtype(options.dtype()));
}

// empty_like(t).fill_(v): laid out like t (Note [Result layout]).
Tensor full_like(const Tensor& t, const Scalar& fill_value, const TensorOptions& options) {
  Tensor r = empty_like(t, options.requires_grad(false));
  r.fill_(fill_value);
  detail::apply_requires_grad(r, options);
  return r;
}

Tensor zeros_like(const Tensor& t, const TensorOptions& options) {
  return full_like(t, 0, options);
}

Tensor ones_like(const Tensor& t, const TensorOptions& options) {
  return full_like(t, 1, options);
}

// --- eye ---------------------------------------------------------------------------

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Tensor t = zeros({n, m}, cpu_options(options.dtype()));
  const int64_t d = n < m ? n : m;
  EMBER_DISPATCH_ALL_TYPES(t.dtype(), "eye", [&] {
    scalar_t* p = t.data_ptr<scalar_t>();
    for (int64_t i = 0; i < d; ++i) p[i * m + i] = static_cast<scalar_t>(1);
  });
  return finish(std::move(t), options);
}

// --- arange / range ------------------------------------------------------------------

Tensor arange(const Scalar& end, const TensorOptions& options) {
  return arange(0, end, 1, options);
}

Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options) {
  const ScalarType dt = options.has_dtype()                     ? options.dtype()
                        : all_integral({&start, &end, &step})   ? kLong
                                                                : get_default_dtype();
  Tensor t;
  EMBER_DISPATCH_NUMERIC_TYPES(dt, "arange_cpu", [&] {
    using acc_t = typename AccType<scalar_t>::type;
    const acc_t xstart = start.to<acc_t>();
    const acc_t xend = end.to<acc_t>();
    const acc_t xstep = step.to<acc_t>();
    // PyTorch computes the length in double (int64 keeps its exact
    // difference) so that CPU and CUDA agree.
    double size_d;
    if constexpr (std::is_same<scalar_t, int64_t>::value) {
      size_d = std::ceil(static_cast<double>(xend - xstart) / xstep);
    } else {
      size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
    }
    check_range_args(xstart, xend, xstep);
    EMBER_CHECK(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
                "invalid size, possible overflow?");
    const int64_t n = static_cast<int64_t>(size_d);
    t = empty({n}, cpu_options(dt));
    fill_ramp<scalar_t>(
        t.data_ptr<scalar_t>(), n,
        [=](int64_t i) {
          return static_cast<scalar_t>(mul_add(xstep, static_cast<acc_t>(i), xstart));
        },
        [=](scalar_t base, int64_t k) {
          return static_cast<scalar_t>(
              mul_add(static_cast<acc_t>(k), xstep, static_cast<acc_t>(base)));
        });
  });
  return finish(std::move(t), options);
}

Tensor range(const Scalar& start, const Scalar& end, const Scalar& step,
             const TensorOptions& options) {
  const ScalarType dt = options.dtype();
  Tensor t;
  EMBER_DISPATCH_NUMERIC_TYPES(dt, "range_cpu", [&] {
    using acc_t = typename AccType<scalar_t>::type;
    const acc_t xstart = start.to<acc_t>();
    const acc_t xend = end.to<acc_t>();
    const acc_t xstep = step.to<acc_t>();
    check_range_args(xstart, xend, xstep);
    const int64_t n = static_cast<int64_t>(((xend - xstart) / xstep) + 1);
    t = empty({n}, cpu_options(dt));
    scalar_t* p = t.data_ptr<scalar_t>();
    // PyTorch's range kernel is a plain (unvectorized) loop.
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        p[i] = static_cast<scalar_t>(xstart + xstep * static_cast<acc_t>(i));
      }
    });
  });
  return finish(std::move(t), options);
}

// --- linspace / logspace ---------------------------------------------------------------

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  const ScalarType dt = options.dtype();
  Tensor t = empty({steps}, cpu_options(dt));
  if (steps == 1) {
    t.fill_(start);
  } else if (steps > 1) {
    EMBER_DISPATCH_NUMERIC_TYPES(dt, "linspace_cpu", [&] {
      // The step keeps the element type (double for integers, whose range
      // may not fit).
      using step_t = std::conditional_t<std::is_integral<scalar_t>::value, double, scalar_t>;
      const scalar_t s = start.to<scalar_t>();
      const scalar_t e = end.to<scalar_t>();
      const step_t step = linspace_step<step_t>(s, e, steps);
      fill_ramp<scalar_t>(
          t.data_ptr<scalar_t>(), steps,
          [=](int64_t i) { return static_cast<scalar_t>(linspace_point(s, e, step, steps, i)); },
          [=](scalar_t base, int64_t k) { return linspace_lane(base, step, k); });
    });
  }
  return finish(std::move(t), options);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  const ScalarType dt = options.dtype();
  Tensor t = empty({steps}, cpu_options(dt));
  // PyTorch 1.13 has no CPU logspace for float16 (bfloat16 is fine).
  if (dt == kHalf) detail::throw_not_implemented("logspace_cpu", dt);
  if (steps == 1) {
    t.fill_(std::pow(base, start.toDouble()));
  } else if (steps > 1) {
    EMBER_DISPATCH_NUMERIC_TYPES(dt, "logspace_cpu", [&] {
      // PyTorch's logspace is a plain loop (no FMA) in double: the step is
      // double(end - start) / (steps - 1) with the difference taken in the
      // element type, and the exponent start + step * i (or from the end
      // for the second half) goes to pow(double, double). The counter `i`
      // is kept in the element type, as there.
      const scalar_t s = start.to<scalar_t>();
      const scalar_t e = end.to<scalar_t>();
      const double step = static_cast<double>(type_sub(e, s)) / static_cast<double>(steps - 1);
      const double ds = static_cast<double>(static_cast<math_t<scalar_t>>(s));
      const double de = static_cast<double>(static_cast<math_t<scalar_t>>(e));
      const int64_t halfway = steps / 2;
      scalar_t* p = t.data_ptr<scalar_t>();
      parallel_for(0, steps, kGrainSize, [&](int64_t lo, int64_t hi) {
        scalar_t is = static_cast<scalar_t>(lo);
        for (int64_t i = lo; i < hi; ++i) {
          const double x = i < halfway ? ds + step * static_cast<double>(static_cast<math_t<scalar_t>>(is))
                                       : de - step * static_cast<double>(steps - i - 1);
          p[i] = static_cast<scalar_t>(std::pow(base, x));
          is = static_cast<scalar_t>(static_cast<math_t<scalar_t>>(is) + 1);
        }
      });
    });
  }
  return finish(std::move(t), options);
}

}  // namespace ember
