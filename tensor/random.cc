#include "tensor/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/fallback.h"

namespace ember {

// --- generators ---------------------------------------------------------------

void GeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  // at::mt19937 keeps only the low 32 bits, seeded like std::mt19937.
  engine_.seed(static_cast<uint32_t>(seed));
  next_double_normal_.reset();
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

Generator default_generator() {
  static const auto* impl = new std::shared_ptr<GeneratorImpl>(std::make_shared<GeneratorImpl>());
  return Generator(*impl);
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

uint64_t initial_seed() { return default_generator().initial_seed(); }

namespace {

constexpr double kPi = 3.14159265358979323846;

template <typename T>
constexpr bool is_reduced_float() {
  return std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
}

// Floating element types compute in float (half, bfloat16, float) or double.
template <typename T>
using dist_acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;

// Mantissa bits of T (std::numeric_limits<T>::digits).
template <typename T>
constexpr int mantissa_digits() {
  if constexpr (std::is_same<T, Half>::value) {
    return 11;
  } else if constexpr (std::is_same<T, BFloat16>::value) {
    return 8;
  } else {
    return std::numeric_limits<T>::digits;
  }
}

// at::uniform_real_distribution<T>: the low `digits` bits of a 32-bit draw
// (64-bit for double) scaled to [0, 1), then x * (to - from) + from, fused
// as GCC fuses it in ATen's AVX2 build. (to - from) is taken in T.
template <typename T>
dist_acc_t<T> uniform_real(GeneratorImpl* g, T from, T to) {
  using acc_t = dist_acc_t<T>;
  constexpr int digits = mantissa_digits<T>();
  constexpr uint64_t mask = (uint64_t{1} << digits) - 1;
  constexpr acc_t divisor = acc_t(1) / static_cast<acc_t>(uint64_t{1} << digits);
  const uint64_t v = std::is_same<T, double>::value ? g->random64() : g->random();
  const acc_t x = static_cast<acc_t>(v & mask) * divisor;
  const T range = static_cast<T>(static_cast<acc_t>(to) - static_cast<acc_t>(from));
  return std::fma(x, static_cast<acc_t>(range), static_cast<acc_t>(from));
}

// at::normal_distribution<double>: Box-Muller, the sine half kept for the
// next call.
double normal_double(GeneratorImpl* g, double mean, double std) {
  auto& cached = g->next_double_normal_sample();
  double ret;
  if (cached.has_value()) {
    ret = *cached;
    cached.reset();
  } else {
    const double u1 = uniform_real<double>(g, 0.0, 1.0);
    const double u2 = uniform_real<double>(g, 0.0, 1.0);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * kPi * u1;
    cached = r * std::sin(theta);
    ret = r * std::cos(theta);
  }
  return std::fma(ret, std, mean);
}

// Calls write(ptr) for every element of t, in the order PyTorch's
// TensorIterator visits a lone output: memory order (dims sorted by stride,
// the largest outermost). Random fills are serial so that values land
// where PyTorch puts them.
template <typename T, typename F>
void for_each_element(Tensor& t, const F& write) {
  T* base = static_cast<T*>(t.data_ptr());
  const int64_t n = t.numel();
  if (n == 0) return;
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) write(base + i);
    return;
  }
  DimVector dims;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1) dims.push_back(d);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  const int nd = static_cast<int>(dims.size());
  DimVector idx(nd, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    write(base + off);
    for (int k = nd - 1; k >= 0; --k) {
      const int64_t d = dims[k];
      if (++idx[k] < t.size(d)) {
        off += t.stride(d);
        break;
      }
      off -= (idx[k] - 1) * t.stride(d);
      idx[k] = 0;
    }
  }
}

// Note [Random fills on devices]: a tensor on a device is filled on the
// host from the same generator and copied over (Note [CPU fallback]), so a
// seed gives the same numbers on every device; PyTorch's CUDA generator
// (Philox) gives different ones. Slow (a host fill and a transfer per call)
// until device kernels exist.

// --- normal_fill: PyTorch's path for contiguous tensors of 16+ elements ----

// Box-Muller on 16 uniforms in place: data[j] and data[j + 8] become a pair.
template <typename T>
void normal_fill_16(T* data, T mean, T std);

// c10::BFloat16 has std::log/sqrt/cos/sin overloads and arithmetic that
// return BFloat16, so every step rounds to bfloat16 (and nothing is fused).
template <>
void normal_fill_16<BFloat16>(BFloat16* data, BFloat16 mean, BFloat16 std) {
  using B = BFloat16;
  auto f = [](B v) { return static_cast<float>(v); };
  for (int j = 0; j < 8; ++j) {
    const B u1 = B(1.0f - f(data[j]));
    const B u2 = data[j + 8];
    const B radius = B(std::sqrt(f(B(-2.0f * f(B(std::log(f(u1))))))));
    const B theta = B(static_cast<float>(2.0f * kPi * static_cast<double>(f(u2))));
    const B c = B(f(B(f(radius) * f(B(std::cos(f(theta)))))) * f(std));
    const B s = B(f(B(f(radius) * f(B(std::sin(f(theta)))))) * f(std));
    data[j] = B(f(c) + f(mean));
    data[j + 8] = B(f(s) + f(mean));
  }
}

template <typename T>
void normal_fill_16(T* data, T mean, T std) {
  using acc_t = dist_acc_t<T>;
  for (int j = 0; j < 8; ++j) {
    const T u1 = static_cast<T>(acc_t(1) - static_cast<acc_t>(data[j]));  // (0, 1] for log
    const T u2 = data[j + 8];
    const T radius = static_cast<T>(std::sqrt(acc_t(-2) * std::log(static_cast<acc_t>(u1))));
    const T theta = static_cast<T>(2.0f * kPi * static_cast<double>(u2));
    const acc_t r = static_cast<acc_t>(radius);
    data[j] = static_cast<T>(std::fma(r * std::cos(static_cast<acc_t>(theta)),
                                      static_cast<acc_t>(std), static_cast<acc_t>(mean)));
    data[j + 8] = static_cast<T>(std::fma(r * std::sin(static_cast<acc_t>(theta)),
                                          static_cast<acc_t>(std), static_cast<acc_t>(mean)));
  }
}

// Note [AVX2 normal_fill]: for float, PyTorch's AVX2 kernel uses the
// Cephes-style log256_ps / sincos256_ps of avx_mathfun.h (not libm), with
// GCC fusing their multiply-adds. These scalar versions do the same
// operations in the same order, so randn's floats match bit for bit.
float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t float_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float cephes_logf(float x) {
  x = std::max(x, bits_to_float(0x00800000u));  // smallest normal
  int32_t emm0 = static_cast<int32_t>(float_to_bits(x) >> 23);
  x = bits_to_float((float_to_bits(x) & ~0x7f800000u) | float_to_bits(0.5f));
  emm0 -= 0x7f;
  float e = static_cast<float>(emm0) + 1.0f;
  const bool below = x < 0.707106781186547524f;
  const float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2f;
  for (float p : {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f,
                  -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f}) {
    y = std::fma(y, x, p);
  }
  y = y * x;
  y = y * z;
  y = std::fma(e, -2.12194440e-4f, y);
  y = std::fma(z, -0.5f, y);
  x = x + y;
  x = std::fma(e, 0.693359375f, x);
  return x;
}

void cephes_sincosf(float x, float* s, float* c) {
  uint32_t sign_sin = float_to_bits(x) & 0x80000000u;
  x = std::fabs(x);
  float y = x * 1.27323954473516f;  // 4 / pi
  int32_t j = static_cast<int32_t>(y);
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sign_sin = static_cast<uint32_t>(j & 4) << 29;
  const bool poly_sin = (j & 2) == 0;
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sign_sin;
  const float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = std::fma(yc, z, -1.388731625493765E-003f);
  yc = std::fma(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;
  ys = std::fma(ys, z, 8.3321608736E-3f);
  ys = std::fma(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  const float sv = poly_sin ? ys : yc;
  const float cv = poly_sin ? yc : ys;
  *s = bits_to_float(float_to_bits(sv) ^ sign_sin);
  *c = bits_to_float(float_to_bits(cv) ^ sign_cos);
}

void normal_fill_16_avx2(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0 * kPi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    float s, c;
    cephes_sincosf(two_pi * u2, &s, &c);
    data[j] = std::fma(radius * c, std, mean);
    data[j + 8] = std::fma(radius * s, std, mean);
  }
}

template <typename T, typename Fill16>
void normal_fill(T* data, int64_t n, GeneratorImpl* g, const Fill16& fill16) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(uniform_real<T>(g, T(0), T(1)));
  for (int64_t i = 0; i + 16 <= n; i += 16) fill16(data + i);
  if (n % 16 != 0) {
    // The last 16 are drawn afresh and transformed again, overlapping.
    T* tail = data + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = static_cast<T>(uniform_real<T>(g, T(0), T(1)));
    fill16(tail);
  }
}

template <typename T>
void normal_fill_contiguous(T* data, int64_t n, GeneratorImpl* g, double mean, double std) {
  if constexpr (std::is_same<T, float>::value) {
    const float m = static_cast<float>(mean), s = static_cast<float>(std);
    normal_fill(data, n, g, [&](float* d) { normal_fill_16_avx2(d, m, s); });
  } else {
    const T m = static_cast<T>(mean), s = static_cast<T>(std);
    normal_fill(data, n, g, [&](T* d) { normal_fill_16(d, m, s); });
  }
}

// C++ type names as ATen's bound checks print them.
template <typename T>
const char* cpp_type_name() {
  if constexpr (std::is_same<T, bool>::value) return "bool";
  if constexpr (std::is_same<T, uint8_t>::value) return "unsigned char";
  if constexpr (std::is_same<T, int8_t>::value) return "signed char";
  if constexpr (std::is_same<T, int16_t>::value) return "short int";
  if constexpr (std::is_same<T, int32_t>::value) return "int";
  if constexpr (std::is_same<T, int64_t>::value) return "long int";
  if constexpr (std::is_same<T, float>::value) return "float";
  if constexpr (std::is_same<T, double>::value) return "double";
  if constexpr (std::is_same<T, Half>::value) return "c10::Half";
  return "c10::BFloat16";
}

template <typename T>
void check_in_range(int64_t v, const char* what) {
  int64_t lo, hi;
  if constexpr (std::is_integral<T>::value) {
    lo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
    hi = static_cast<int64_t>(std::numeric_limits<T>::max());
  } else if constexpr (std::is_same<T, Half>::value) {
    hi = 65504;  // float16's largest finite value
    lo = -hi;
  } else {
    // float, double and bfloat16 only warn in PyTorch 1.13 (values beyond
    // 2^digits are not all representable); nothing to check.
    return;
  }
  EMBER_CHECK(v >= lo && v <= hi, what, " is out of bounds for ", cpp_type_name<T>());
}

}  // namespace

// --- in-place fills ---------------------------------------------------------------

// Note [Random fills and autograd]: filling a tensor that requires grad
// with random numbers records the fill (UniformBackward0...), whose
// gradient is zero, as in PyTorch; the fill re-enters itself inside the
// recording scope to run.
Tensor& uniform_(Tensor& t, double from, double to, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("uniform_", t, {t}, [&] { return uniform_(t, from, to, gen); }, detail::no_args);
    return t;
  }
  if (detail::cpu_fallback("uniform_", {t})) {  // Note [Random fills on devices]
    return detail::in_place_on_cpu(t, [&](Tensor& host) { uniform_(host, from, to, gen); });
  }
  EMBER_DISPATCH_FLOATING_TYPES(t.dtype(), "check_uniform_bounds", [&] {
    EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
                " > to=", to);
    GeneratorImpl* g = gen.impl();
    std::lock_guard<std::mutex> lock(g->mutex());
    const scalar_t f = static_cast<scalar_t>(from);
    const scalar_t e = static_cast<scalar_t>(to);
    for_each_element<scalar_t>(t, [&](scalar_t* p) {
      *p = static_cast<scalar_t>(uniform_real<scalar_t>(g, f, e));
    });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& normal_(Tensor& t, double mean, double std, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("normal_", t, {t}, [&] { return normal_(t, mean, std, gen); }, detail::no_args);
    return t;
  }
  if (detail::cpu_fallback("normal_", {t})) {  // Note [Random fills on devices]
    return detail::in_place_on_cpu(t, [&](Tensor& host) { normal_(host, mean, std, gen); });
  }
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  GeneratorImpl* g = gen.impl();
  const int64_t n = t.numel();
  EMBER_DISPATCH_FLOATING_TYPES(t.dtype(), "normal_kernel_cpu", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    if (n >= 16 && t.is_contiguous()) {
      normal_fill_contiguous(static_cast<scalar_t*>(t.data_ptr()), n, g, mean, std);
    } else {
      for_each_element<scalar_t>(
          t, [&](scalar_t* p) { *p = static_cast<scalar_t>(normal_double(g, mean, std)); });
    }
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& bernoulli_(Tensor& t, double p, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("bernoulli_", t, {t}, [&] { return bernoulli_(t, p, gen); }, detail::no_args);
    return t;
  }
  if (detail::cpu_fallback("bernoulli_", {t})) {  // Note [Random fills on devices]
    return detail::in_place_on_cpu(t, [&](Tensor& host) { bernoulli_(host, p, gen); });
  }
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  GeneratorImpl* g = gen.impl();
  EMBER_DISPATCH_ALL_TYPES(t.dtype(), "bernoulli_scalar_cpu_", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(t, [&](scalar_t* ptr) {
      *ptr = static_cast<scalar_t>(uniform_real<double>(g, 0.0, 1.0) < p);
    });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& exponential_(Tensor& t, double lambd, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("exponential_", t, {t}, [&] { return exponential_(t, lambd, gen); }, detail::no_args);
    return t;
  }
  if (detail::cpu_fallback("exponential_", {t})) {  // Note [Random fills on devices]
    return detail::in_place_on_cpu(t, [&](Tensor& host) { exponential_(host, lambd, gen); });
  }
  EMBER_CHECK(lambd >= 0.0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  GeneratorImpl* g = gen.impl();
  EMBER_DISPATCH_FLOATING_TYPES(t.dtype(), "exponential_cpu", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(t, [&](scalar_t* p) {
      const double u = uniform_real<double>(g, 0.0, 1.0);
      *p = static_cast<scalar_t>(-1.0 / lambd * std::log(1.0 - u));
    });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& random_(Tensor& t, int64_t from, int64_t to, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("random_", t, {t}, [&] { return random_(t, from, to, gen); }, detail::no_args);
    return t;
  }
  if (detail::cpu_fallback("random_", {t})) {  // Note [Random fills on devices]
    return detail::in_place_on_cpu(t, [&](Tensor& host) { random_(host, from, to, gen); });
  }
  EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  GeneratorImpl* g = gen.impl();
  EMBER_DISPATCH_ALL_TYPES(t.dtype(), "random_from_to_kernel_cpu", [&] {
    check_in_range<scalar_t>(from, "from");
    check_in_range<scalar_t>(to - 1, "to - 1");
    const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
    // 64-bit draws only where the type can use them and the range needs it.
    constexpr bool wide = std::is_same<scalar_t, int64_t>::value ||
                          std::is_same<scalar_t, double>::value ||
                          std::is_same<scalar_t, float>::value ||
                          std::is_same<scalar_t, BFloat16>::value;
    const bool use64 = wide && range >= (uint64_t{1} << 32);
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(t, [&](scalar_t* p) {
      const uint64_t v = use64 ? g->random64() : g->random();
      *p = static_cast<scalar_t>(static_cast<int64_t>(v % range + static_cast<uint64_t>(from)));
    });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& Tensor::uniform_(double from, double to) {
  return ::ember::uniform_(*this, from, to, default_generator());
}
Tensor& Tensor::normal_(double mean, double std) {
  return ::ember::normal_(*this, mean, std, default_generator());
}
Tensor& Tensor::bernoulli_(double p) { return ::ember::bernoulli_(*this, p, default_generator()); }

// torch.bernoulli(p) / p.bernoulli(): empty_like(p).bernoulli_(p). One draw
// per element in order, compared with its probability: a float draw for
// float / half / bfloat16 probabilities, a double draw for float64 ones
// (at::bernoulli_distribution<float> / <double>), so the same seed gives
// PyTorch's values.
Tensor Tensor::bernoulli() const {
  const ScalarType dt = dtype();
  if (!ember::is_floating_point(dt)) detail::throw_not_implemented("bernoulli_tensor_cpu_p_", dt);
  const Tensor probs = to(Device(kCPU)).to(dt == kDouble ? kDouble : kFloat).contiguous();
  const Tensor p = probs;
  auto check_range = [&](auto zero) {
    using T = decltype(zero);
    const T* q = probs.data_ptr<T>();
    for (int64_t i = 0, n = probs.numel(); i < n; ++i) {
      EMBER_CHECK(q[i] >= 0 && q[i] <= 1,
                  "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                  "error message be improved?  If so, please report an enhancement request to "
                  "PyTorch.)");
    }
  };
  if (dt == kDouble) {
    check_range(double{});
  } else {
    check_range(float{});
  }
  Tensor out = empty(p.sizes(), TensorOptions(dt));
  GeneratorImpl* g = default_generator().impl();
  EMBER_DISPATCH_FLOATING_TYPES(dt, "bernoulli_tensor_cpu_self_", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    scalar_t* o = out.data_ptr<scalar_t>();
    if (dt == kDouble) {
      const double* q = probs.data_ptr<double>();
      for (int64_t i = 0, n = out.numel(); i < n; ++i) {
        o[i] = static_cast<scalar_t>(uniform_real<double>(g, 0.0, 1.0) < q[i]);
      }
    } else {
      const float* q = probs.data_ptr<float>();
      for (int64_t i = 0, n = out.numel(); i < n; ++i) {
        o[i] = static_cast<scalar_t>(uniform_real<float>(g, 0.0f, 1.0f) < q[i]);
      }
    }
  });
  return out.to(device());
}
Tensor& Tensor::random_(int64_t from, int64_t to) {
  return ::ember::random_(*this, from, to, default_generator());
}
Tensor& Tensor::exponential_(double lambd) {
  return ::ember::exponential_(*this, lambd, default_generator());
}

// --- factories ----------------------------------------------------------------------

namespace {

// Makes the tensor on the CPU without requires_grad, fills it, then moves
// it and applies requires_grad (filling a leaf that requires grad in place
// would be an error).
template <typename Fill>
Tensor make_random(IntArrayRef size, const TensorOptions& options, ScalarType dt, const Fill& fill) {
  Tensor t = empty(size, TensorOptions(dt));
  fill(t);
  if (options.device() != t.device()) t = t.to(options.device());
  detail::apply_requires_grad(t, options);
  return t;
}

// The *_like form: laid out like `like` (Note [Result layout]), so each
// number lands where PyTorch's empty_like(like).uniform_() puts it.
template <typename Fill>
Tensor make_random_like(const Tensor& like, const TensorOptions& options, const Fill& fill) {
  const TensorOptions o = detail::like_options(like, options);
  Tensor t = detail::empty_in_layout_of(like, TensorOptions(o.dtype()),
                                        o.memory_format_opt().value_or(MemoryFormat::Preserve));
  fill(t);
  if (o.device() != t.device()) t = t.to(o.device());
  detail::apply_requires_grad(t, options);
  return t;
}

}  // namespace

Tensor rand(IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return make_random(size, options, options.dtype(),
                     [&](Tensor& t) { uniform_(t, 0.0, 1.0, gen); });
}
Tensor rand(IntArrayRef size, const TensorOptions& options) {
  return rand(size, default_generator(), options);
}

Tensor randn(IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return make_random(size, options, options.dtype(),
                     [&](Tensor& t) { normal_(t, 0.0, 1.0, gen); });
}
Tensor randn(IntArrayRef size, const TensorOptions& options) {
  return randn(size, default_generator(), options);
}

Tensor normal(double mean, double std, IntArrayRef size, const Generator& gen,
              const TensorOptions& options) {
  return make_random(size, options, options.dtype(),
                     [&](Tensor& t) { normal_(t, mean, std, gen); });
}
Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options) {
  return normal(mean, std, size, default_generator(), options);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const Generator& gen,
               const TensorOptions& options) {
  return make_random(size, options, options.dtype_or(kLong),
                     [&](Tensor& t) { random_(t, low, high, gen); });
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint(low, high, size, default_generator(), options);
}
Tensor randint(int64_t high, IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return randint(0, high, size, gen, options);
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint(0, high, size, default_generator(), options);
}

Tensor randperm(int64_t n, const Generator& gen, const TensorOptions& options) {
  const ScalarType dt = options.dtype_or(kLong);
  return make_random({n}, options, dt, [&](Tensor& t) {
    EMBER_DISPATCH_NUMERIC_TYPES(dt, "randperm", [&] {
      scalar_t* r = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) r[i] = static_cast<scalar_t>(i);
      // PyTorch's Fisher-Yates: one 32-bit draw per position, modulo.
      GeneratorImpl* g = gen.impl();
      std::lock_guard<std::mutex> lock(g->mutex());
      for (int64_t i = 0; i + 1 < n; ++i) {
        const int64_t z = static_cast<int64_t>(g->random() % static_cast<uint64_t>(n - i));
        std::swap(r[i], r[z + i]);
      }
    });
  });
}
Tensor randperm(int64_t n, const TensorOptions& options) {
  return randperm(n, default_generator(), options);
}

Tensor rand_like(const Tensor& t, const TensorOptions& options) {
  return make_random_like(t, options,
                          [&](Tensor& r) { uniform_(r, 0.0, 1.0, default_generator()); });
}
Tensor randn_like(const Tensor& t, const TensorOptions& options) {
  return make_random_like(t, options,
                          [&](Tensor& r) { normal_(r, 0.0, 1.0, default_generator()); });
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options) {
  return randint_like(t, 0, high, options);
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options) {
  return make_random_like(t, options,
                          [&](Tensor& r) { random_(r, low, high, default_generator()); });
}

}  // namespace ember
