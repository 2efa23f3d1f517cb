#include "tensor/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <map>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/math.h"
#include "tensor/random_kernel.h"

namespace ember {

// --- generators ---------------------------------------------------------------

void GeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  philox_offset_ = 0;
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

namespace {

// The default generators of the devices, made on first use. A device type's
// generators made after manual_seed_devices start from its seed, as
// torch.cuda.manual_seed_all queues its seeding until CUDA starts.
struct DeviceGenerators {
  std::mutex mu;
  std::map<std::pair<int, int>, std::shared_ptr<GeneratorImpl>> by_device;
  std::map<int, uint64_t> seed_for_type;
};

DeviceGenerators& device_generators() {
  static auto* g = new DeviceGenerators();
  return *g;
}

}  // namespace

namespace detail {

Generator default_generator_for(Device device) {
  if (device.is_cpu()) return default_generator();
  const int type = static_cast<int>(device.type());
  const int index = device.has_index() ? device.index() : 0;
  DeviceGenerators& all = device_generators();
  std::lock_guard<std::mutex> lock(all.mu);
  std::shared_ptr<GeneratorImpl>& impl = all.by_device[{type, index}];
  if (impl == nullptr) {
    auto seed = all.seed_for_type.find(type);
    impl = std::make_shared<GeneratorImpl>(
        seed == all.seed_for_type.end() ? kDefaultRngSeed : seed->second,
        Device(device.type(), static_cast<int8_t>(index)));
  }
  return Generator(impl);
}

void manual_seed_devices(DeviceType type, uint64_t seed) {
  DeviceGenerators& all = device_generators();
  std::lock_guard<std::mutex> lock(all.mu);
  all.seed_for_type[static_cast<int>(type)] = seed;
  for (auto& [key, impl] : all.by_device) {
    if (key.first != static_cast<int>(type)) continue;
    std::lock_guard<std::mutex> gen_lock(impl->mutex());
    impl->set_current_seed(seed);
  }
}

}  // namespace detail

void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
  detail::manual_seed_devices(kCUDA, seed);
}

uint64_t initial_seed() { return default_generator().initial_seed(); }

Tensor Generator::get_state() const {
  EMBER_CHECK(!device().is_cpu(),
              "get_state is implemented for device (Philox) generators only in ember");
  uint64_t words[2];
  {
    std::lock_guard<std::mutex> lock(impl_->mutex());
    words[0] = impl_->current_seed();
    words[1] = impl_->philox_offset();
  }
  Tensor state = empty({16}, TensorOptions(kByte));
  uint8_t* b = state.data_ptr<uint8_t>();
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < 8; ++i) b[w * 8 + i] = static_cast<uint8_t>(words[w] >> (8 * i));
  }
  return state;
}

Generator& Generator::set_state(const Tensor& state) {
  EMBER_CHECK(!device().is_cpu(),
              "set_state is implemented for device (Philox) generators only in ember");
  EMBER_CHECK(state.defined() && state.dtype() == kByte,
              "expected a torch.ByteTensor as the RNG state");
  EMBER_CHECK(state.numel() == 16, "RNG state is wrong size");
  const Tensor host = state.to(Device(kCPU)).contiguous();
  const uint8_t* b = host.data_ptr<uint8_t>();
  uint64_t words[2] = {0, 0};
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < 8; ++i) words[w] |= static_cast<uint64_t>(b[w * 8 + i]) << (8 * i);
  }
  std::lock_guard<std::mutex> lock(impl_->mutex());
  impl_->set_current_seed(words[0]);
  impl_->set_philox_offset(words[1]);
  return *this;
}

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(random_fill_kernel, RandomFillFn);
EMBER_DEFINE_KERNEL_TABLE(randperm_kernel, RandpermFn);
EMBER_DEFINE_KERNEL_TABLE(dropout_kernel, DropoutFn);

void reserve_device_draw(RandomFill& fill, const Generator& gen) {
  GeneratorImpl* g = gen.impl();
  std::lock_guard<std::mutex> lock(g->mutex());
  fill.seed = g->current_seed();
  fill.offset = g->reserve_philox_offset(1);
  fill.generator = g;
}
}  // namespace detail

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

// Note [Device random numbers]: a tensor on a device is filled there, by
// the kernel its random_fill_kernel holds (tensor/random_kernel.h), from
// the device generator's Philox4x32-10 (tensor/philox.h), as PyTorch's
// CUDA generator does: the key is the seed and the counter is (position,
// offset). Each fill reserves one offset, so consecutive fills never share
// a counter, and the element at row-major position i of the output takes
// its bits from the counter (i / k, offset), where one draw of four 32-bit
// words serves k elements (4, or 2 where each needs 64 bits: double
// values, and ranges of 2^32 or more). The numbers therefore depend on the
// seed, the offset and the element's position only, never on the launch
// geometry or the output's strides: a fill of a transposed view holds the
// same values, position by position, as a fill of a contiguous tensor from
// the same state. They are not PyTorch's CUDA numbers (whose counter
// depends on its launch configuration), nor the CPU generator's.

// The generator must be one for the tensor's device type (PyTorch's check).
void check_generator_device(const Generator& gen, const Tensor& t) {
  if (gen.device().type() == t.device().type()) return;
  throw Error(absl::StrCat("Expected a '", t.is_cpu() ? "cpu" : "cuda",
                           "' device type for generator but found '",
                           gen.device().is_cpu() ? "cpu" : "cuda", "'"));
}

// Fills t (not on the CPU) on its device, drawing from gen.
void fill_on_device(Tensor& t, detail::RandomFill fill, const Generator& gen) {
  const detail::RandomFillFn fn = detail::random_fill_kernel(t.device());
  detail::reserve_device_draw(fill, gen);
  if (t.numel() != 0) fn(t, fill);
  t.unsafeGetTensorImpl()->bump_version();
}

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
  profiler::RecordFunction prof_range("uniform_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  if (!t.is_cpu()) {  // Note [Device random numbers]
    if (!is_floating_point(t.dtype())) detail::throw_not_implemented("uniform_kernel_cuda", t.dtype());
    EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
                " > to=", to);
    detail::RandomFill fill;
    fill.kind = detail::RandomKind::kUniform;
    fill.a = from;
    fill.b = to;
    fill_on_device(t, fill, gen);
    return t;
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
  profiler::RecordFunction prof_range("normal_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (!t.is_cpu()) {  // Note [Device random numbers]
    if (!is_floating_point(t.dtype())) detail::throw_not_implemented("normal_kernel_cuda", t.dtype());
    detail::RandomFill fill;
    fill.kind = detail::RandomKind::kNormal;
    fill.a = mean;
    fill.b = std;
    fill_on_device(t, fill, gen);
    return t;
  }
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
  profiler::RecordFunction prof_range("bernoulli_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (!t.is_cpu()) {  // Note [Device random numbers]
    detail::RandomFill fill;
    fill.kind = detail::RandomKind::kBernoulli;
    fill.a = p;
    fill_on_device(t, fill, gen);
    return t;
  }
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
  profiler::RecordFunction prof_range("exponential_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(lambd >= 0.0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  if (!t.is_cpu()) {  // Note [Device random numbers]
    if (!is_floating_point(t.dtype())) detail::throw_not_implemented("exponential_cuda", t.dtype());
    detail::RandomFill fill;
    fill.kind = detail::RandomKind::kExponential;
    fill.a = lambd;
    fill_on_device(t, fill, gen);
    return t;
  }
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

// cauchy_, log_normal_ and geometric_ draw as PyTorch's CPU kernels do
// (at::cauchy_distribution, lognormal_distribution, geometric_distribution
// over double draws), one element at a time in memory order. On a device
// they transform the device's uniform_ / normal_ draws in place.
Tensor& cauchy_(Tensor& t, double median, double sigma, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op(
        "cauchy_", t, {t}, [&] { return cauchy_(t, median, sigma, gen); }, detail::no_args);
    return t;
  }
  profiler::RecordFunction prof_range("cauchy_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  if (!t.is_cpu()) {
    if (!is_floating_point(t.dtype())) detail::throw_not_implemented("cauchy_cuda", t.dtype());
    uniform_(t, 0.0, 1.0, gen);
    t.sub_(0.5).mul_(kPi).tan_().mul_(sigma).add_(median);
    return t;
  }
  GeneratorImpl* g = gen.impl();
  EMBER_DISPATCH_FLOATING_TYPES(t.dtype(), "cauchy_cpu", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(t, [&](scalar_t* p) {
      const double u = uniform_real<double>(g, 0.0, 1.0);
      *p = static_cast<scalar_t>(median + sigma * std::tan(kPi * (u - 0.5)));
    });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& log_normal_(Tensor& t, double mean, double std, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op(
        "log_normal_", t, {t}, [&] { return log_normal_(t, mean, std, gen); }, detail::no_args);
    return t;
  }
  profiler::RecordFunction prof_range("log_normal_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  if (!t.is_cpu()) {
    if (!is_floating_point(t.dtype())) detail::throw_not_implemented("log_normal_cuda", t.dtype());
    normal_(t, mean, std, gen);
    t.exp_();
    return t;
  }
  GeneratorImpl* g = gen.impl();
  EMBER_DISPATCH_FLOATING_TYPES(t.dtype(), "log_normal_cpu", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(
        t, [&](scalar_t* p) { *p = static_cast<scalar_t>(std::exp(normal_double(g, mean, std))); });
  });
  t.unsafeGetTensorImpl()->bump_version();
  return t;
}

Tensor& geometric_(Tensor& t, double p, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op(
        "geometric_", t, {t}, [&] { return geometric_(t, p, gen); }, detail::no_args);
    return t;
  }
  profiler::RecordFunction prof_range("geometric_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (!t.is_cpu()) {
    if (t.dtype() == kBool) detail::throw_not_implemented("geometric_cuda", t.dtype());
    Tensor u = is_floating_point(t.dtype()) ? t : empty_like(t, kFloat);
    uniform_(u, 0.0, 1.0, gen);
    u.log_().div_(std::log1p(-p)).ceil_();
    if (!u.is_same(t)) t.copy_(u);
    return t;
  }
  GeneratorImpl* g = gen.impl();
  const double log1p_neg_p = std::log1p(-p);
  EMBER_DISPATCH_NUMERIC_TYPES(t.dtype(), "geometric_cpu", [&] {
    std::lock_guard<std::mutex> lock(g->mutex());
    for_each_element<scalar_t>(t, [&](scalar_t* ptr) {
      const double u = uniform_real<double>(g, 0.0, 1.0);
      *ptr = static_cast<scalar_t>(std::ceil(std::log(u) / log1p_neg_p));
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
  profiler::RecordFunction prof_range("random_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  if (!t.is_cpu()) {  // Note [Device random numbers]
    EMBER_DISPATCH_ALL_TYPES(t.dtype(), "random_from_to_kernel_cuda", [&] {
      check_in_range<scalar_t>(from, "from");
      check_in_range<scalar_t>(to - 1, "to - 1");
    });
    detail::RandomFill fill;
    fill.kind = detail::RandomKind::kRandom;
    fill.from = from;
    fill.range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
    fill_on_device(t, fill, gen);
    return t;
  }
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

Tensor& Tensor::uniform_(double from, double to) const {
  return ::ember::uniform_(mut(), from, to, detail::default_generator_for(device()));
}
Tensor& Tensor::normal_(double mean, double std) const {
  return ::ember::normal_(mut(), mean, std, detail::default_generator_for(device()));
}
Tensor& Tensor::bernoulli_(double p) const {
  return ::ember::bernoulli_(mut(), p, detail::default_generator_for(device()));
}
Tensor& Tensor::bernoulli_(const Tensor& p) const {
  return ::ember::bernoulli_(mut(), p, detail::default_generator_for(device()));
}

// torch.bernoulli(p) / p.bernoulli(): empty_like(p).bernoulli_(p). One draw
// per element in order, compared with its probability: a float draw for
// float / half / bfloat16 probabilities, a double draw for float64 ones
// (at::bernoulli_distribution<float> / <double>), so the same seed gives
// PyTorch's values.
namespace {
Tensor bernoulli_cpu(const Tensor& self, GeneratorImpl* g) {
  const ScalarType dt = self.dtype();
  if (!ember::is_floating_point(dt)) detail::throw_not_implemented("bernoulli_tensor_cpu_p_", dt);
  const Tensor probs = self.to(Device(kCPU)).to(dt == kDouble ? kDouble : kFloat).contiguous();
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
  return out;
}
}  // namespace

Tensor Tensor::bernoulli() const {
  if (!is_cpu()) {  // Note [Device random numbers]
    Tensor out = empty(sizes(), options().requires_grad(false));
    return ::ember::bernoulli_(out, *this, detail::default_generator_for(device()));
  }
  return bernoulli_cpu(*this, default_generator().impl());
}

// On a device, p's values are not checked: that would read them back to
// the host (PyTorch's CUDA kernel asserts on the device instead); one
// below 0 acts as 0 and one above 1 as 1. On the CPU the draws are those
// of p.bernoulli() (so PyTorch's for a contiguous t), written into t.
Tensor& bernoulli_(Tensor& t, const Tensor& p, const Generator& gen) {
  if (detail::should_record(t)) {  // Note [Random fills and autograd]
    detail::record_out_op("bernoulli_", t, {t}, [&] { return bernoulli_(t, p, gen); }, detail::no_args);
    return t;
  }
  profiler::RecordFunction prof_range("bernoulli_", profiler::RangeKind::kInplaceOp, t);
  check_generator_device(gen, t);
  EMBER_CHECK(p.defined(), "bernoulli_: p is undefined");
  if (!ember::is_floating_point(p.dtype())) {
    detail::throw_not_implemented(t.is_cpu() ? "bernoulli_tensor_cpu_p_" : "bernoulli_tensor_cuda_p_",
                                  p.dtype());
  }
  const Tensor probs = p.expand(t.sizes());
  if (t.is_cpu()) {
    t.copy_(bernoulli_cpu(detail::cpu(probs).contiguous(), gen.impl()));
    return t;
  }
  detail::RandomFill fill;
  fill.kind = detail::RandomKind::kBernoulliTensor;
  fill.p = detail::to_device(probs.to(p.dtype() == kDouble ? kDouble : kFloat), t);
  fill_on_device(t, fill, gen);
  return t;
}

Tensor& Tensor::random_(int64_t from, int64_t to) const {
  return ::ember::random_(mut(), from, to, detail::default_generator_for(device()));
}
Tensor& Tensor::exponential_(double lambd) const {
  return ::ember::exponential_(mut(), lambd, detail::default_generator_for(device()));
}
Tensor& Tensor::cauchy_(double median, double sigma) const {
  return ::ember::cauchy_(mut(), median, sigma, detail::default_generator_for(device()));
}
Tensor& Tensor::log_normal_(double mean, double std) const {
  return ::ember::log_normal_(mut(), mean, std, detail::default_generator_for(device()));
}
Tensor& Tensor::geometric_(double p) const {
  return ::ember::geometric_(mut(), p, detail::default_generator_for(device()));
}

// --- factories ----------------------------------------------------------------------

namespace {

// Makes the tensor on its device without requires_grad, fills it from gen
// (null: the device's default generator), then applies requires_grad
// (filling a leaf that requires grad in place would be an error).
template <typename Fill>
Tensor make_random(IntArrayRef size, const TensorOptions& options, ScalarType dt,
                   const Generator* gen, const Fill& fill) {
  Tensor t = empty(size, TensorOptions(dt).device(options.device()));
  fill(t, gen != nullptr ? *gen : detail::default_generator_for(t.device()));
  detail::apply_requires_grad(t, options);
  return t;
}

// The *_like form: laid out like `like` (Note [Result layout]), so each
// number lands where PyTorch's empty_like(like).uniform_() puts it.
template <typename Fill>
Tensor make_random_like(const Tensor& like, const TensorOptions& options, const Fill& fill) {
  const TensorOptions o = detail::like_options(like, options);
  Tensor t = detail::empty_in_layout_of(like, TensorOptions(o.dtype()).device(o.device()),
                                        o.memory_format_opt().value_or(MemoryFormat::Preserve));
  fill(t, detail::default_generator_for(t.device()));
  detail::apply_requires_grad(t, options);
  return t;
}

}  // namespace

Tensor rand(IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return make_random(size, options, options.dtype(), &gen,
                     [](Tensor& t, const Generator& g) { uniform_(t, 0.0, 1.0, g); });
}
Tensor rand(IntArrayRef size, const TensorOptions& options) {
  return make_random(size, options, options.dtype(), nullptr,
                     [](Tensor& t, const Generator& g) { uniform_(t, 0.0, 1.0, g); });
}

Tensor randn(IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return make_random(size, options, options.dtype(), &gen,
                     [](Tensor& t, const Generator& g) { normal_(t, 0.0, 1.0, g); });
}
Tensor randn(IntArrayRef size, const TensorOptions& options) {
  return make_random(size, options, options.dtype(), nullptr,
                     [](Tensor& t, const Generator& g) { normal_(t, 0.0, 1.0, g); });
}

namespace {
Tensor normal_factory(double mean, double std, IntArrayRef size, const Generator* gen,
                      const TensorOptions& options) {
  return make_random(size, options, options.dtype(), gen,
                     [&](Tensor& t, const Generator& g) { normal_(t, mean, std, g); });
}
Tensor randint_factory(int64_t low, int64_t high, IntArrayRef size, const Generator* gen,
                       const TensorOptions& options) {
  return make_random(size, options, options.dtype_or(kLong), gen,
                     [&](Tensor& t, const Generator& g) { random_(t, low, high, g); });
}

// PyTorch's Fisher-Yates on the CPU: one 32-bit draw per position, modulo.
// On a device, the device's kernel (randperm_kernel).
Tensor randperm_factory(int64_t n, const Generator* gen, const TensorOptions& options) {
  const ScalarType dt = options.dtype_or(kLong);
  return make_random({n}, options, dt, gen, [&](Tensor& t, const Generator& g) {
    if (!t.is_cpu()) {  // Note [Device random numbers]
      check_generator_device(g, t);
      const detail::RandpermFn fn = detail::randperm_kernel(t.device());
      if (n > 0) fn(t, g);
      return;
    }
    EMBER_DISPATCH_NUMERIC_TYPES(dt, "randperm", [&] {
      scalar_t* r = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) r[i] = static_cast<scalar_t>(i);
      GeneratorImpl* impl = g.impl();
      std::lock_guard<std::mutex> lock(impl->mutex());
      for (int64_t i = 0; i + 1 < n; ++i) {
        const int64_t z = static_cast<int64_t>(impl->random() % static_cast<uint64_t>(n - i));
        std::swap(r[i], r[z + i]);
      }
    });
  });
}
}  // namespace

Tensor normal(double mean, double std, IntArrayRef size, const Generator& gen,
              const TensorOptions& options) {
  return normal_factory(mean, std, size, &gen, options);
}
Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options) {
  return normal_factory(mean, std, size, nullptr, options);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const Generator& gen,
               const TensorOptions& options) {
  return randint_factory(low, high, size, &gen, options);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint_factory(low, high, size, nullptr, options);
}
Tensor randint(int64_t high, IntArrayRef size, const Generator& gen, const TensorOptions& options) {
  return randint_factory(0, high, size, &gen, options);
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint_factory(0, high, size, nullptr, options);
}

Tensor randperm(int64_t n, const Generator& gen, const TensorOptions& options) {
  return randperm_factory(n, &gen, options);
}
Tensor randperm(int64_t n, const TensorOptions& options) {
  return randperm_factory(n, nullptr, options);
}

Tensor rand_like(const Tensor& t, const TensorOptions& options) {
  return make_random_like(t, options,
                          [](Tensor& r, const Generator& g) { uniform_(r, 0.0, 1.0, g); });
}
Tensor randn_like(const Tensor& t, const TensorOptions& options) {
  return make_random_like(t, options,
                          [](Tensor& r, const Generator& g) { normal_(r, 0.0, 1.0, g); });
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options) {
  return randint_like(t, 0, high, options);
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options) {
  return make_random_like(t, options,
                          [&](Tensor& r, const Generator& g) { random_(r, low, high, g); });
}

namespace detail {
double uniform_double(GeneratorImpl* g) { return uniform_real<double>(g, 0.0, 1.0); }
}  // namespace detail

}  // namespace ember
