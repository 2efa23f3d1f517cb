#ifndef EMBER_TENSOR_TENSOR_H_
#define EMBER_TENSOR_TENSOR_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/scalar.h"
#include "tensor/tensor_impl.h"
#include "tensor/tensor_options.h"

namespace ember {

class Tensor;
class TensorIndex;
class Generator;  // tensor/random.h
namespace cuda {
class CUDAStream;  // tensor/cuda/stream.h
}  // namespace cuda
template <typename T, size_t N>
class TensorAccessor;  // tensor/accessor.h
namespace autograd {
class Node;
}  // namespace autograd
using TensorList = absl::Span<const Tensor>;
// A read-only run of indices (tensor/indexing.h). Unlike absl::Span it has no
// (pointer, size) constructor: `x.index({0, 5})` in a file that forgot to
// include indexing.h must fail to compile, not become Span(nullptr, 5).
// The members are defined in tensor/indexing.h, where TensorIndex is complete.
class TensorIndexList {
 public:
  TensorIndexList(std::initializer_list<TensorIndex> l);  // NOLINT
  TensorIndexList(const std::vector<TensorIndex>& v);     // NOLINT
  const TensorIndex* begin() const { return data_; }
  const TensorIndex* end() const;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const TensorIndex& operator[](size_t i) const;

 private:
  const TensorIndex* data_;
  size_t size_;
};

// A handle to a TensorImpl. Copying a Tensor copies the handle, not the data:
// `Tensor b = a;` aliases a, as in Python. Methods are defined next to the op
// they forward to (creation.cc, shape.cc, math.cc, ...): one op, one place.
//
// Note [Const in-place methods]: as in libtorch, `const` applies to the
// handle, not to the data it points at, so every in-place method (add_,
// zero_, requires_grad_, ...) is a const member: `p.grad().zero_()` works
// though grad() returns a const reference, and so does an in-place op on a
// `const Tensor&` parameter or loop variable. They return Tensor& (libtorch:
// const Tensor&), so `Tensor& y = x.add_(1);` keeps working. Assigning to a
// temporary Tensor writes into its data, as libtorch's rvalue operator=
// does: `x[0] = 5` fills, `p.grad().data() = g / n` copies; assigning to a
// named Tensor rebinds the handle, as always.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  // On a temporary: copies (fills) the values in (Note [Const in-place methods]).
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& value) && { return fill_(value); }

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  // True when both handles refer to the same TensorImpl.
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  long use_count() const { return impl_.use_count(); }

  // --- metadata -----------------------------------------------------------
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  IntArrayRef shape() const { return sizes(); }
  int64_t size(int64_t dim) const;    // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t numel() const { return impl_->numel(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_contiguous(MemoryFormat memory_format) const;
  // ChannelsLast (ChannelsLast3d) when a 4-D (5-D) tensor's strides are in
  // that order, else Contiguous (tensor/layout.h).
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  int64_t storage_offset() const { return impl_->storage_offset(); }
  int64_t element_size() const { return ::ember::element_size(dtype()); }
  int64_t itemsize() const { return element_size(); }
  int64_t nbytes() const { return numel() * element_size(); }
  bool is_floating_point() const { return ::ember::is_floating_point(dtype()); }
  bool is_signed() const { return ::ember::is_signed(dtype()); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_quantized() const { return ::ember::is_quantized(dtype()); }
  bool is_complex() const { return false; }
  // Every ember tensor is strided (memory_format.h).
  Layout layout() const { return kStrided; }
  // ember has no inference mode (c10::InferenceMode), so no tensor is an
  // inference tensor.
  bool is_inference() const { return false; }
  // Whether the data lies in page-locked host memory, and a copy there
  // (tensor/cuda/pinned.cc; Note [pin_memory without CUDA]). `device` names
  // the accelerator, as libtorch's; only CUDA is accepted.
  bool is_pinned(std::optional<Device> device = std::nullopt) const;
  Tensor pin_memory(std::optional<Device> device = std::nullopt) const;
  // Marks the CUDA memory of this tensor as used by `stream`, so that the
  // caching allocator does not reuse it until the work queued there when
  // the tensor is freed has finished (Note [CUDA streams] in
  // tensor/cuda/stream.cc). Defined by //tensor/cuda.
  void record_stream(cuda::CUDAStream stream) const;
  bool is_same_size(const Tensor& o) const { return sizes() == o.sizes(); }
  uint32_t _version() const { return impl_->version(); }

  // Raw element pointer (element 0 of this view). Checks T against dtype().
  template <typename T>
  T* data_ptr() const;
  void* data_ptr() const { return impl_->data(); }
  // libtorch's older spelling of data_ptr<T>().
  template <typename T>
  T* data() const {
    return data_ptr<T>();
  }
  // libtorch's x.data(): a tensor sharing x's storage that does not require
  // grad and is not in any graph, for updates autograd must not record:
  // `p.data().add_(delta)`. ember keeps the version counter in the storage,
  // so it is detach(): unlike libtorch's, an in-place change through it of
  // a tensor that backward still needs is reported, not silently used.
  Tensor data() const { return detach(); }
  // t.accessor<float, 2>()[i][j] (tensor/accessor.h). The accessor points
  // into this tensor, so a temporary's is refused.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // The single value of a one-element tensor.
  Scalar item() const;
  template <typename T>
  T item() const {
    return item().to<T>();
  }

  // --- autograd (behaviour installed by //autograd; see autograd_hook.h) ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  Tensor& set_requires_grad(bool r) const { return requires_grad_(r); }
  // The accumulated gradient (undefined until a backward reaches this leaf).
  const Tensor& grad() const;
  // The .grad slot itself: assign an undefined Tensor to set it to None.
  Tensor& mutable_grad() const;
  // The node that made this tensor (nullptr for leaves); name() is PyTorch's
  // ("MulBackward0").
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  int64_t output_nr() const;
  // Backpropagates from this tensor: `gradient` may be undefined only for a
  // one-element tensor. retain_graph defaults to create_graph.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  // Makes backward() fill grad() for this non-leaf tensor too.
  void retain_grad() const;
  bool retains_grad() const;
  // A hook run with this tensor's gradient each time it is computed; it may
  // return a replacement (a defined Tensor) or nothing (void / undefined).
  // Returns a handle for remove_hook.
  template <typename F>
  unsigned register_hook(F&& hook) const;
  void remove_hook(unsigned handle) const;

  // --- conversion (copy.cc) -------------------------------------------------
  // A copy is made when dtype, device or the memory format differ (or copy
  // is true); memory_format defaults to Preserve (Note [Result layout]).
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  // t.to(kCPU), t.to(kCUDA): without this overload both to(Device) and
  // to(const TensorOptions&) take a DeviceType by one conversion (ambiguous).
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const {
    return to(Device(type), non_blocking, copy, memory_format);
  }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA)); }
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor type_as(const Tensor& other) const { return to(other.dtype()); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  // Itself when already laid out in memory_format, else a copy that is
  // (Preserve is refused, as PyTorch does).
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  // A copy; nullopt is Preserve (Note [Result layout]).
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor detach() const;
  Tensor& detach_() const;
  Tensor& fill_(const Scalar& value) const;
  Tensor& fill_(const Tensor& value) const;
  Tensor& zero_() const;

  // --- shape and views (shape.cc) -------------------------------------------
  Tensor view(IntArrayRef size) const;
  Tensor view(ScalarType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor& unsqueeze_(int64_t dim) const;
  Tensor expand(IntArrayRef size) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor& t_() const;
  Tensor mT() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
               int64_t step = 1) const;
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor& as_strided_(IntArrayRef size, IntArrayRef stride,
                      std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor as_strided_scatter(const Tensor& src, IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0) const;
  Tensor& triu_(int64_t diagonal = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor diag(int64_t diagonal = 0) const;

  // --- indexing (indexing.cc) -------------------------------------------------
  Tensor index(TensorIndexList indices) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor& index_put_(TensorIndexList indices, const Tensor& value) const;
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  Tensor& index_put_(TensorIndexList indices, const Scalar& value) const;
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const;
  // Out of place: a copy with the values put (as PyTorch's index_put).
  Tensor index_put(TensorIndexList indices, const Tensor& value) const;
  Tensor index_put(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  // x[i] for an integer i, like Python.
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor operator[](const Tensor& index) const;

  // --- selection (selection.cc) ----------------------------------------------
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor nonzero() const;
  Tensor take(const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  // On CUDA, as in PyTorch: scatter_add_ and index_add_ accumulate with
  // atomics, so floating results may differ in the last bits from run to
  // run (integers are exact); where index repeats a value, scatter_ and
  // index_copy_ keep one of the written elements, and which one varies. A
  // device's index values are checked on the device: one out of range
  // raises the CPU's error at the next synchronization (a copy to the host,
  // item(), cuda::synchronize()), not in the op (Note [Device-side index
  // checks], tensor/cuda/index_ops.cc).
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha = 1) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  // (values, indices)
  // libtorch's overloads (selection.h): stable comes first, never third.
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int dim) const { return argsort(static_cast<int64_t>(dim)); }
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;

  // --- elementwise math (binary.cc, pointwise.cc, unary.cc, compare.cc) ------
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor& mul_(const Tensor& other) const;
  Tensor& mul_(const Scalar& other) const;
  // rounding_mode: "" (true division), "trunc" or "floor".
  Tensor div(const Tensor& other, const std::string& rounding_mode = "") const;
  Tensor div(const Scalar& other, const std::string& rounding_mode = "") const;
  Tensor& div_(const Tensor& other, const std::string& rounding_mode = "") const;
  Tensor& div_(const Scalar& other, const std::string& rounding_mode = "") const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor& remainder_(const Tensor& other) const;
  Tensor& remainder_(const Scalar& other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(const Scalar& other) const;
  Tensor& fmod_(const Tensor& other) const;
  Tensor& fmod_(const Scalar& other) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(const Scalar& other) const;
  Tensor& floor_divide_(const Tensor& other) const;
  Tensor& floor_divide_(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor& pow_(const Tensor& exponent) const;
  Tensor& pow_(const Scalar& exponent) const;
  Tensor atan2(const Tensor& other) const;
  Tensor& atan2_(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor fmax(const Tensor& other) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(const Tensor& min, const Tensor& max) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor& clamp_min_(const Scalar& min) const;
  Tensor& clamp_max_(const Scalar& max) const;
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const {
    return clamp(min, max);
  }
  Tensor& clip_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const {
    return clamp_(min, max);
  }

#define EMBER_UNARY_METHOD(name) \
  Tensor name() const;           \
  Tensor& name##_() const;
  EMBER_UNARY_METHOD(neg)
  EMBER_UNARY_METHOD(abs)
  EMBER_UNARY_METHOD(sqrt)
  EMBER_UNARY_METHOD(rsqrt)
  EMBER_UNARY_METHOD(square)
  EMBER_UNARY_METHOD(exp)
  EMBER_UNARY_METHOD(exp2)
  EMBER_UNARY_METHOD(expm1)
  EMBER_UNARY_METHOD(log)
  EMBER_UNARY_METHOD(log2)
  EMBER_UNARY_METHOD(log10)
  EMBER_UNARY_METHOD(log1p)
  EMBER_UNARY_METHOD(sin)
  EMBER_UNARY_METHOD(cos)
  EMBER_UNARY_METHOD(tan)
  EMBER_UNARY_METHOD(asin)
  EMBER_UNARY_METHOD(acos)
  EMBER_UNARY_METHOD(atan)
  EMBER_UNARY_METHOD(sinh)
  EMBER_UNARY_METHOD(cosh)
  EMBER_UNARY_METHOD(tanh)
  EMBER_UNARY_METHOD(sigmoid)
  EMBER_UNARY_METHOD(relu)
  EMBER_UNARY_METHOD(erf)
  EMBER_UNARY_METHOD(erfc)
  EMBER_UNARY_METHOD(asinh)
  EMBER_UNARY_METHOD(acosh)
  EMBER_UNARY_METHOD(atanh)
  EMBER_UNARY_METHOD(floor)
  EMBER_UNARY_METHOD(ceil)
  EMBER_UNARY_METHOD(round)
  EMBER_UNARY_METHOD(trunc)
  EMBER_UNARY_METHOD(frac)
  EMBER_UNARY_METHOD(sign)
  EMBER_UNARY_METHOD(reciprocal)
  EMBER_UNARY_METHOD(logical_not)
  EMBER_UNARY_METHOD(bitwise_not)
#undef EMBER_UNARY_METHOD
  Tensor round(int64_t decimals) const;
  Tensor negative() const { return neg(); }
  Tensor& negative_() const { return neg_(); }
  Tensor absolute() const { return abs(); }
  Tensor& absolute_() const { return abs_(); }
  // reduce_ops.h
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          const std::string& reduce, bool include_self = true) const;
  Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source,
                      const std::string& reduce, bool include_self = true) const;
  Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source,
                        const std::string& reduce, bool include_self = true) const;
  Tensor igamma(const Tensor& other) const;
  Tensor& igamma_(const Tensor& other) const;
  Tensor igammac(const Tensor& other) const;
  Tensor& igammac_(const Tensor& other) const;
  std::tuple<Tensor, Tensor> histogram(
      int64_t bins = 100, const std::optional<std::vector<double>>& range = std::nullopt,
      const std::optional<Tensor>& weight = std::nullopt, bool density = false) const;
  std::tuple<Tensor, Tensor> histogram(const Tensor& bins,
                                       const std::optional<Tensor>& weight = std::nullopt,
                                       bool density = false) const;
  // special.h: special functions, float-format and integer ops.
  Tensor erfinv() const;
  Tensor& erfinv_() const;
  Tensor lgamma() const;
  Tensor& lgamma_() const;
  Tensor digamma() const;
  Tensor& digamma_() const;
  Tensor polygamma(int64_t n) const;
  Tensor& polygamma_(int64_t n) const;
  Tensor i0() const;
  Tensor& i0_() const;
  Tensor sinc() const;
  Tensor& sinc_() const;
  Tensor signbit() const;
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(const Scalar& other) const;
  Tensor& copysign_(const Tensor& other) const;
  Tensor& copysign_(const Scalar& other) const;
  Tensor hypot(const Tensor& other) const;
  Tensor& hypot_(const Tensor& other) const;
  Tensor nextafter(const Tensor& other) const;
  Tensor& nextafter_(const Tensor& other) const;
  Tensor ldexp(const Tensor& other) const;
  Tensor& ldexp_(const Tensor& other) const;
  Tensor float_power(const Tensor& exponent) const;
  Tensor float_power(const Scalar& exponent) const;
  Tensor& float_power_(const Tensor& exponent) const;
  Tensor& float_power_(const Scalar& exponent) const;
  Tensor gcd(const Tensor& other) const;
  Tensor& gcd_(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor& lcm_(const Tensor& other) const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor& bitwise_left_shift_(const Tensor& other) const;
  Tensor& bitwise_left_shift_(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor& bitwise_right_shift_(const Tensor& other) const;
  Tensor& bitwise_right_shift_(const Scalar& other) const;
  Tensor& operator<<=(const Tensor& other) const { return bitwise_left_shift_(other); }
  Tensor& operator<<=(const Scalar& other) const { return bitwise_left_shift_(other); }
  Tensor& operator>>=(const Tensor& other) const { return bitwise_right_shift_(other); }
  Tensor& operator>>=(const Scalar& other) const { return bitwise_right_shift_(other); }
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor isreal() const;
  // In-place forms of composite_ops.h's ops (self's dtype must hold the
  // result's: "result type Float can't be cast to the desired output type
  // Long").
  Tensor& sgn_() const;
  Tensor& deg2rad_() const;
  Tensor& rad2deg_() const;
  Tensor& logit_(std::optional<double> eps = std::nullopt) const;
  Tensor& xlogy_(const Tensor& other) const;
  Tensor& xlogy_(const Scalar& other) const;
  Tensor& heaviside_(const Tensor& values) const;
  // PyTorch's aliases.
  Tensor arccos() const { return acos(); }
  Tensor& arccos_() const { return acos_(); }
  Tensor arcsin() const { return asin(); }
  Tensor& arcsin_() const { return asin_(); }
  Tensor arctan() const { return atan(); }
  Tensor& arctan_() const { return atan_(); }
  Tensor arccosh() const { return acosh(); }
  Tensor& arccosh_() const { return acosh_(); }
  Tensor arcsinh() const { return asinh(); }
  Tensor& arcsinh_() const { return asinh_(); }
  Tensor arctanh() const { return atanh(); }
  Tensor& arctanh_() const { return atanh_(); }
  Tensor arctan2(const Tensor& other) const { return atan2(other); }
  Tensor& arctan2_(const Tensor& other) const { return atan2_(other); }
  Tensor fix() const { return trunc(); }
  Tensor& fix_() const { return trunc_(); }
  Tensor divide(const Tensor& other, const std::string& rounding_mode = "") const {
    return div(other, rounding_mode);
  }
  Tensor divide(const Scalar& other, const std::string& rounding_mode = "") const {
    return div(other, rounding_mode);
  }
  Tensor& divide_(const Tensor& other, const std::string& rounding_mode = "") const {
    return div_(other, rounding_mode);
  }
  Tensor& divide_(const Scalar& other, const std::string& rounding_mode = "") const {
    return div_(other, rounding_mode);
  }
  Tensor true_divide(const Tensor& other) const { return div(other); }
  Tensor true_divide(const Scalar& other) const { return div(other); }
  Tensor& true_divide_(const Tensor& other) const { return div_(other); }
  Tensor& true_divide_(const Scalar& other) const { return div_(other); }
  Tensor multiply(const Tensor& other) const { return mul(other); }
  Tensor multiply(const Scalar& other) const { return mul(other); }
  Tensor& multiply_(const Tensor& other) const { return mul_(other); }
  Tensor& multiply_(const Scalar& other) const { return mul_(other); }
  Tensor subtract(const Tensor& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor subtract(const Scalar& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor& subtract_(const Tensor& other, const Scalar& alpha = 1) const {
    return sub_(other, alpha);
  }
  Tensor& subtract_(const Scalar& other, const Scalar& alpha = 1) const {
    return sub_(other, alpha);
  }
#define EMBER_COMPARISON_ALIAS(alias, op)                              \
  Tensor alias(const Tensor& other) const { return op(other); }        \
  Tensor alias(const Scalar& other) const { return op(other); }        \
  Tensor& alias##_(const Tensor& other) const { return op##_(other); } \
  Tensor& alias##_(const Scalar& other) const { return op##_(other); }
  EMBER_COMPARISON_ALIAS(greater, gt)
  EMBER_COMPARISON_ALIAS(greater_equal, ge)
  EMBER_COMPARISON_ALIAS(less, lt)
  EMBER_COMPARISON_ALIAS(less_equal, le)
  EMBER_COMPARISON_ALIAS(not_equal, ne)
#undef EMBER_COMPARISON_ALIAS
  // more_ops.h and small methods (more_ops.cc).
  int64_t ndim() const { return dim(); }
  int64_t nelement() const { return numel(); }
  int64_t get_device() const;  // -1 on the CPU
  bool is_nonzero() const;     // the value of a one-element tensor
  Tensor T() const;            // the dims reversed
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor hardshrink(const Scalar& lambd = 0.5) const;
  Tensor prelu(const Tensor& weight) const;
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor& fill_diagonal_(const Scalar& fill_value, bool wrap = false) const;
  Tensor mvlgamma(int64_t p) const;
  Tensor& mvlgamma_(int64_t p) const;
  Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor& renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  std::tuple<Tensor, Tensor> frexp() const;
  Tensor cov(int64_t correction = 1, const std::optional<Tensor>& fweights = std::nullopt,
             const std::optional<Tensor>& aweights = std::nullopt) const;
  Tensor corrcoef() const;
  // Note [resize_] in more_ops.cc.
  const Tensor& resize_(IntArrayRef size,
                        std::optional<MemoryFormat> memory_format = std::nullopt) const;
  const Tensor& resize_as_(const Tensor& other,
                           std::optional<MemoryFormat> memory_format = std::nullopt) const;
  // linalg_more.h (dense linear algebra through LAPACK).
  Tensor inverse() const;
  Tensor det() const;
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor logdet() const;
  std::tuple<Tensor, Tensor> triangular_solve(const Tensor& A, bool upper = true,
                                              bool transpose = false,
                                              bool unitriangular = false) const;
  Tensor cholesky(bool upper = false) const;
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  Tensor cholesky_inverse(bool upper = false) const;
  // linalg_spectral.h
  std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
  std::tuple<Tensor, Tensor> symeig(bool eigenvectors = false, bool upper = true) const;
  Tensor pinverse(double rcond = 1e-15) const;
  Tensor matrix_exp() const;

  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  // In place: the comparison's result in self's dtype (1 / 0).
  Tensor& eq_(const Tensor& other) const;
  Tensor& eq_(const Scalar& other) const;
  Tensor& ne_(const Tensor& other) const;
  Tensor& ne_(const Scalar& other) const;
  Tensor& gt_(const Tensor& other) const;
  Tensor& gt_(const Scalar& other) const;
  Tensor& ge_(const Tensor& other) const;
  Tensor& ge_(const Scalar& other) const;
  Tensor& lt_(const Tensor& other) const;
  Tensor& lt_(const Scalar& other) const;
  Tensor& le_(const Tensor& other) const;
  Tensor& le_(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor& logical_and_(const Tensor& other) const;
  Tensor& logical_or_(const Tensor& other) const;
  Tensor& logical_xor_(const Tensor& other) const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor& bitwise_and_(const Tensor& other) const;
  Tensor& bitwise_or_(const Tensor& other) const;
  Tensor& bitwise_xor_(const Tensor& other) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  bool equal(const Tensor& other) const;

  // --- reductions (reduce.cc) ------------------------------------------------
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // correction: 1 is Bessel's (unbiased=True), 0 the population variance.
  // `unbiased` alone is a template parameter so that a braced dim list
  // (`x.var({1})`) can never bind to it as a bool (libtorch's pitfall).
  Tensor var() const { return var_all(true, /*take_sqrt=*/false); }
  template <typename B, std::enable_if_t<std::is_same<B, bool>::value, int> = 0>
  Tensor var(B unbiased) const {
    return var_all(unbiased, /*take_sqrt=*/false);
  }
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std() const { return var_all(true, /*take_sqrt=*/true); }
  template <typename B, std::enable_if_t<std::is_same<B, bool>::value, int> = 0>
  Tensor std(B unbiased) const {
    return var_all(unbiased, /*take_sqrt=*/true);
  }
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumsum_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumprod_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  // --- linear algebra (linalg.cc) --------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor mv(const Tensor& vec) const;
  // shape_ops.h
  Tensor tile(IntArrayRef dims) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor ravel() const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor broadcast_to(IntArrayRef size) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor& swapdims_(int64_t dim0, int64_t dim1) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const;
  std::vector<Tensor> unsafe_chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unsafe_split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> unsafe_split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
  // The sum of self down to `size` (which self's sizes must broadcast from).
  Tensor sum_to_size(IntArrayRef size) const;
  Tensor argwhere() const;
  // Factories of self's dtype and device unless options say otherwise.
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value,
                  const TensorOptions& options = {}) const;
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_empty_strided(IntArrayRef size, IntArrayRef stride,
                           const TensorOptions& options = {}) const;
  Tensor trace() const;
  Tensor inner(const Tensor& other) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
              const Scalar& alpha = 1) const;
  Tensor& addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor& addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                  const Scalar& alpha = 1) const;
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                   const Scalar& alpha = 1) const;
  Tensor matrix_power(int64_t n) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor diagflat(int64_t offset = 0) const;
  Tensor select_scatter(const Tensor& src, int64_t dim, int64_t index) const;
  Tensor slice_scatter(const Tensor& src, int64_t dim = 0,
                       std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor diagonal_scatter(const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                          int64_t dim2 = 1) const;
  // composite_ops.h
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor& nan_to_num_(std::optional<double> nan = std::nullopt,
                      std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt) const;
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
              const std::optional<Tensor>& append = std::nullopt) const;
  Tensor kron(const Tensor& other) const;
  Tensor nansum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nansum(IntArrayRef dim, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor deg2rad() const;
  Tensor rad2deg() const;
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(const Scalar& other) const;
  Tensor sgn() const;
  Tensor positive() const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor dist(const Tensor& other, const Scalar& p = 2) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  // linalg_factor.h (QR and LU through LAPACK). lu is Python's
  // torch.Tensor.lu: always (LU, pivots, infos) (linalg_factor.h says why).
  std::tuple<Tensor, Tensor> qr(bool some = true) const;
  std::tuple<Tensor, Tensor> geqrf() const;
  Tensor orgqr(const Tensor& input2) const;
  Tensor ormqr(const Tensor& input2, const Tensor& input3, bool left = true,
               bool transpose = false) const;
  std::tuple<Tensor, Tensor, Tensor> lu(bool pivot = true, bool get_infos = false) const;
  Tensor lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const;
  // sort_ops.h
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  Tensor msort() const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  const std::string& interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  const std::string& interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false, const std::string& interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     const std::string& interpolation = "linear") const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                     bool keepdim = false) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;

  Tensor dot(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const { return dot(other); }
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const { return outer(vec2); }
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;

  // --- quantization (quantize.cc) ---------------------------------------------
  Tensor dequantize() const;
  Tensor int_repr() const;
  double q_scale() const;
  int64_t q_zero_point() const;

  // --- random in place (random.cc) --------------------------------------------
  Tensor& uniform_(double from = 0, double to = 1) const;
  Tensor& normal_(double mean = 0, double std = 1) const;
  Tensor& bernoulli_(double p = 0.5) const;
  Tensor& bernoulli_(const Tensor& p) const;
  // Out of place: 1 with the probability each element of self gives.
  Tensor bernoulli() const;
  Tensor& random_(int64_t from, int64_t to) const;
  Tensor& exponential_(double lambd = 1) const;
  Tensor& cauchy_(double median = 0, double sigma = 1) const;
  Tensor& log_normal_(double mean = 1, double std = 2) const;
  Tensor& geometric_(double p) const;
  Tensor angle() const;  // more_ops.h
  // more_ops.h (tensor/multinomial.cc).
  Tensor multinomial(int64_t num_samples, bool replacement = false) const;
  Tensor multinomial(int64_t num_samples, bool replacement, const Generator& generator) const;

  // Text form, exactly as PyTorch prints it (print.cc).
  std::string toString() const;

  // shape_more.h (tensor/shape_more.cc): the conjugate transpose of the last
  // two dims, a view (ember has no complex dtypes: the transpose); 0-dim:
  // self. is_neg: ember has no lazily negated views.
  Tensor adjoint() const;
  Tensor mH() const;
  bool is_neg() const { return false; }

 private:
  // *this for the in-place methods (Note [Const in-place methods]).
  Tensor& mut() const { return const_cast<Tensor&>(*this); }
  // var()/std() over every element (reduce.cc).
  Tensor var_all(bool unbiased, bool take_sqrt) const;
  // copy_ without autograd recording (copy.cc).
  Tensor& copy_nograd_(const Tensor& src) const;
  // In-place forms built on their out-of-place op: `result` (computed from
  // self) written back into self, with PyTorch's in-place checks (same
  // shape, a result dtype that casts to self's). `op` names it in errors.
  Tensor& assign_result_(const Tensor& result, const char* op) const;

  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Operators with tensors and numbers on either side (binary.cc, unary.cc,
// compare.cc), every one libtorch's ATen/TensorOperators.h defines.
// Deliberately different: a number on the left of -, / or % is Python's
// (rsub, true division, remainder: 2.5 - an int64 tensor is float, node
// RsubBackward1; True - t raises as issue 22 asks). libtorch's C++
// operators instead fill a tensor like b with the number and work in place
// (empty_like(b).fill_(a).sub_(b): 2.5 - an int64 tensor is 2 - b in int64,
// 1.5 / an int64 tensor raises, node SubBackward0); write that to get it.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator%(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator==(const Scalar& a, const Tensor& b);
Tensor operator!=(const Scalar& a, const Tensor& b);
Tensor operator<(const Scalar& a, const Tensor& b);
Tensor operator<=(const Scalar& a, const Tensor& b);
Tensor operator>(const Scalar& a, const Tensor& b);
Tensor operator>=(const Scalar& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator~(const Tensor& a);
Tensor operator!(const Tensor& a);

// --- template definitions -------------------------------------------------

namespace detail {
unsigned register_tensor_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook);
}  // namespace detail

template <typename F>
unsigned Tensor::register_hook(F&& hook) const {
  if constexpr (std::is_void<decltype(hook(std::declval<const Tensor&>()))>::value) {
    return detail::register_tensor_hook(
        *this, [h = std::forward<F>(hook)](const Tensor& g) mutable -> Tensor {
          h(g);
          return Tensor();
        });
  } else {
    return detail::register_tensor_hook(*this, std::function<Tensor(const Tensor&)>(
                                                   std::forward<F>(hook)));
  }
}

namespace detail {
[[noreturn]] void throw_data_ptr_type_mismatch(ScalarType expected, ScalarType actual);
}

template <typename T>
T* Tensor::data_ptr() const {
  constexpr ScalarType want = scalar_type_of<T>();
  ScalarType have = dtype();
  // Quantized tensors expose their integer representation.
  bool ok = have == want || (have == kQInt8 && want == kChar) || (have == kQUInt8 && want == kByte);
  if (!ok) detail::throw_data_ptr_type_mismatch(want, have);
  return static_cast<T*>(impl_->data());
}

}  // namespace ember

#include "tensor/accessor.h"  // Tensor::accessor's definition

#endif  // EMBER_TENSOR_TENSOR_H_
