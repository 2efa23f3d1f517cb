#include "tensor/copy.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/layout.h"
#include "tensor/loops.h"

namespace ember {
namespace {

CrossDeviceCopyFn g_cross_copy[kNumDeviceTypes] = {nullptr, nullptr};

thread_local bool t_non_blocking = false;

class NonBlockingScope {
 public:
  explicit NonBlockingScope(bool on) : saved_(t_non_blocking) { t_non_blocking = on; }
  ~NonBlockingScope() { t_non_blocking = saved_; }

 private:
  bool saved_;
};

// Both fill one block of memory with their elements in the same order, so
// that copy_ can run over the two blocks as flat arrays.
bool same_dense_block(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  if (a.is_contiguous() && b.is_contiguous()) return true;
  return a.strides() == b.strides() && is_non_overlapping_and_dense(a.sizes(), a.strides());
}

// float <-> float16 eight at a time with F16C (vcvtps2ph/vcvtph2ps, the
// instructions Half's scalar conversions use, so the same bits): the
// element loop calls the scalar instruction per element, which GCC does not
// vectorize (58 us for 65536 floats, libtorch 28).
void convert_block(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
#endif
  for (; i < n; ++i) dst[i] = Half(src[i]);
}

// double -> float -> float16, as Half's constructor from a double rounds.
void convert_block(const double* src, Half* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(src + i + 4)),
                                     _mm256_cvtpd_ps(_mm256_loadu_pd(src + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
  }
#endif
  for (; i < n; ++i) dst[i] = Half(static_cast<float>(src[i]));
}

void convert_block(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

template <typename From, typename To>
void convert_dense(const Tensor& src, const Tensor& dst) {
  const From* s = src.data_ptr<From>();
  To* d = dst.data_ptr<To>();
  parallel_for(0, src.numel(), kGrainSize * 4,
               [&](int64_t b, int64_t e) { convert_block(s + b, d + b, e - b); });
}

}  // namespace

bool detail::copy_is_non_blocking() { return t_non_blocking; }

void register_cross_device_copy(DeviceType t, CrossDeviceCopyFn fn) {
  g_cross_copy[static_cast<int>(t)] = fn;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  return t.is_contiguous() || ::ember::is_non_overlapping_and_dense(t.sizes(), t.strides());
}

Tensor detail::in_layout_of_input(const Tensor& out, const Tensor& input) {
  if (!out.defined() || out.dim() != input.dim()) return out;
  const MemoryFormat f = input.suggest_memory_format();
  return f == MemoryFormat::Contiguous ? out : out.contiguous(f);
}

bool Tensor::is_contiguous(MemoryFormat memory_format) const {
  if (memory_format == MemoryFormat::Contiguous || memory_format == MemoryFormat::Preserve) {
    return is_contiguous();
  }
  return is_contiguous_in(sizes(), strides(), memory_format);
}

MemoryFormat Tensor::suggest_memory_format(bool channels_last_strides_exact_match) const {
  return ::ember::suggest_memory_format(sizes(), strides(), channels_last_strides_exact_match);
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  EMBER_CHECK(src.defined(), "copy_: the source tensor is undefined");
  NonBlockingScope scope(non_blocking);
  if (!detail::input_requires_grad(mut()) && !detail::input_requires_grad(src)) {
    profiler::RecordFunction range("copy_", profiler::RangeKind::kInplaceOp, mut(), src);
    return copy_nograd_(src);
  }
  // Arg: src's device, where its gradient goes back to.
  detail::record_out_op(
      "copy_", mut(), {mut(), src}, [&] { return copy_nograd_(src); },
      [&] { return OpArgs{src.device().str()}; });
  return mut();
}

Tensor& Tensor::copy_nograd_(const Tensor& src) const {
  if (is_same(src)) return mut();
  if (!is_cpu() || !src.is_cpu()) {
    DeviceType t = is_cpu() ? src.device().type() : device().type();
    CrossDeviceCopyFn fn = g_cross_copy[static_cast<int>(t)];
    EMBER_CHECK(fn != nullptr, "Torch not compiled with CUDA enabled");
    fn(mut(), src);
    impl_->bump_version();
    return mut();
  }
  if (is_quantized() || src.is_quantized()) {
    EMBER_CHECK(dtype() == src.dtype(), "copy_ between quantized and non-quantized tensors (",
                scalar_type_name(src.dtype()), " to ", scalar_type_name(dtype()),
                ") is not supported");
    impl_->set_quant_params(src.impl()->quant_params());
  }
  IterConfig c;
  c.promote_inputs = false;
  c.cast_inputs = false;
  c.check_output_cast = false;
  c.allow_output_cast = false;
  c.shape_from_output = true;
  c.output_dtype = dtype();
  TensorIterator iter(c);
  iter.add_output(mut()).add_input(src).build();
  ScalarType dst_t = is_quantized() ? (dtype() == kQInt8 ? kChar : kByte) : dtype();
  ScalarType src_t = src.is_quantized() ? (src.dtype() == kQInt8 ? kChar : kByte) : src.dtype();
  const bool flat = same_dense_block(*this, src);
  if (dst_t == src_t) {
    if (flat) {
      char* d = static_cast<char*>(data_ptr());
      const char* s = static_cast<const char*>(src.data_ptr());
      int64_t esz = element_size();
      parallel_for(0, numel(), kGrainSize * 4, [&](int64_t b, int64_t e) {
        std::memcpy(d + b * esz, s + b * esz, (e - b) * esz);
      });
      return mut();
    }
    switch (element_size()) {  // a plain copy only moves bytes
      case 1: cpu_kernel(iter, [](uint8_t v) -> uint8_t { return v; }); break;
      case 2: cpu_kernel(iter, [](uint16_t v) -> uint16_t { return v; }); break;
      case 4: cpu_kernel(iter, [](uint32_t v) -> uint32_t { return v; }); break;
      default: cpu_kernel(iter, [](uint64_t v) -> uint64_t { return v; }); break;
    }
    return mut();
  }
  if (flat && src_t == kFloat && dst_t == kHalf) {
    convert_dense<float, Half>(src, *this);
    return mut();
  }
  if (flat && src_t == kDouble && dst_t == kHalf) {
    convert_dense<double, Half>(src, *this);
    return mut();
  }
  if (flat && src_t == kHalf && dst_t == kFloat) {
    convert_dense<Half, float>(src, *this);
    return mut();
  }
  EMBER_DISPATCH_ALL_TYPES(dst_t, "copy_", [&] {
    using out_t = scalar_t;
    EMBER_DISPATCH_ALL_TYPES(src_t, "copy_", [&] {
      cpu_kernel(iter, [](scalar_t v) -> out_t { return cast_value<out_t>(v); });
    });
  });
  return mut();
}

namespace {
// t.grad().cpu() on a tensor without a gradient: an error, not a crash
// (libtorch: "to() called on an undefined Tensor").
void check_defined_for_to(const Tensor& t) {
  EMBER_CHECK(t.defined(), "to() called on an undefined Tensor");
}
}  // namespace

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  check_defined_for_to(*this);
  EMBER_CHECK(!(options.memory_format_opt() && memory_format),
              "Cannot set memory_format both in TensorOptions and explicit argument; please "
              "delete the redundant setter.");
  const MemoryFormat f =
      memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Preserve));
  ScalarType dt = options.has_dtype() ? options.dtype() : dtype();
  Device dev = options.device();
  // "cuda" without an index names the device the tensor is on when it is
  // already on one of that type (PyTorch compares against the current
  // device, which is the same in single-device programs).
  bool same_device = dev.type() == device().type() &&
                     (!dev.has_index() || dev.index() == device().index());
  // PyTorch's to_will_alias: a named format aliases when it is the one the
  // strides suggest, even where is_contiguous(format) is false.
  if (!copy && dt == dtype() && same_device &&
      (f == MemoryFormat::Preserve || suggest_memory_format() == f)) {
    return *this;
  }
  // Arg: the source device, where the gradient goes back to.
  return detail::record_out_op("to", Tensor(), {*this}, [&] {
    Tensor r = detail::empty_in_layout_of(*this, TensorOptions(dt).device(dev), f);
    r.copy_(*this, non_blocking);
    return r;
  }, [&] { return OpArgs{device().str()}; });
}

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  check_defined_for_to(*this);
  return to(TensorOptions(dtype).device(device()), non_blocking, copy, memory_format);
}
Tensor Tensor::to(Device device, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  check_defined_for_to(*this);
  return to(TensorOptions(dtype()).device(device), non_blocking, copy, memory_format);
}
Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  check_defined_for_to(*this);
  return to(TensorOptions(dtype).device(device), non_blocking, copy, memory_format);
}
Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return to(other.options(), non_blocking, copy, memory_format);
}

Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  if (is_contiguous(memory_format)) return *this;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "preserve memory format is unsupported by the contiguous operator");
  return detail::record_out_op("clone", Tensor(), {*this}, [&] {
    Tensor r = detail::empty_in_layout_of(*this, options(), memory_format);
    r.copy_(*this);
    return r;
  }, detail::no_args);
}

Tensor Tensor::clone(std::optional<MemoryFormat> memory_format) const {
  return detail::record_out_op("clone", Tensor(), {*this}, [&] {
    Tensor r = detail::empty_in_layout_of(*this, options(),
                                          memory_format.value_or(MemoryFormat::Preserve));
    r.copy_(*this);
    return r;
  }, detail::no_args);
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>(impl_->storage(), dtype(), sizes(), strides(),
                                           storage_offset());
  impl->set_quant_params(impl_->quant_params());
  return Tensor(std::move(impl));
}

Tensor& Tensor::detach_() const {
  impl_->set_autograd_meta(nullptr);
  return mut();
}

EMBER_DEFINE_KERNEL_TABLE(fill_kernel, FillFn);

namespace {
void fill_cpu(const Tensor& self, const Scalar& value) {
  TensorIterator iter = TensorIterator::nullary_op(self);
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    cpu_kernel(iter, [v]() -> scalar_t { return v; });
  });
}
}  // namespace
EMBER_REGISTER_KERNEL(fill_kernel, kCPU, &fill_cpu);

// fill_ / zero_ record under PyTorch's names for the in-place overloads
// (FillBackward2, FillBackward3, ZeroBackward0): the value's gradient is the
// sum of self's, self's is zero.
Tensor& Tensor::assign_result_(const Tensor& result, const char* op) const {
  EMBER_CHECK(can_cast(result.dtype(), dtype()), "result type ", scalar_type_name(result.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(dtype()));
  EMBER_CHECK(result.sizes() == sizes(), op, ": output with shape [",
              absl::StrJoin(sizes(), ", "), "] doesn't match the broadcast shape [",
              absl::StrJoin(result.sizes(), ", "), "]");
  return copy_(result);
}

Tensor& Tensor::fill_(const Scalar& value) const {
  check_convertible(value, dtype());
  detail::record_out_op(
      "fill_", mut(), {mut()},
      [&] {
        fill_kernel(device())(mut(), value);
        return mut();
      },
      detail::no_args);
  return mut();
}

Tensor& Tensor::fill_(const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0,
              "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  if (value.is_cpu()) check_convertible(value.item(), dtype());
  detail::record_out_op(
      "fill_tensor_", mut(), {mut(), value}, [&] { return copy_(value); }, detail::no_args);
  return mut();
}

Tensor& Tensor::zero_() const {
  detail::record_out_op(
      "zero_", mut(), {mut()}, [&] { return fill_(Scalar(0)); }, detail::no_args);
  return mut();
}

}  // namespace ember
