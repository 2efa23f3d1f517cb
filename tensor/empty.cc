#include "tensor/empty.h"

#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/layout.h"
#include "tensor/storage.h"

namespace ember {
namespace detail {

int64_t check_sizes(IntArrayRef size) {
  int64_t n = 1;
  for (int64_t s : size) {
    if (s < 0) {
      throw Error(absl::StrCat("Trying to create tensor with negative dimension ", s, ": ",
                               sizes_str(size)));
    }
    n *= s;
  }
  return n;
}

void apply_requires_grad(Tensor& t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
}

TensorOptions like_options(const Tensor& t, const TensorOptions& options) {
  TensorOptions o = options;
  if (!options.has_dtype()) o = o.dtype(t.dtype());
  if (options.device() == Device(kCPU) && !t.is_cpu()) o = o.device(t.device());
  return o;
}

Tensor empty_in_layout_of(const Tensor& t, const TensorOptions& options,
                          MemoryFormat memory_format) {
  Tensor r;
  if (memory_format != MemoryFormat::Preserve) {
    r = empty(t.sizes(), options.memory_format(memory_format));
  } else if (t.is_contiguous()) {
    r = empty(t.sizes(), options.memory_format(std::nullopt));
  } else if (is_non_overlapping_and_dense(t.sizes(), t.strides())) {
    r = empty_strided(t.sizes(), t.strides(), options.memory_format(std::nullopt));
  } else {
    r = empty_strided(t.sizes(), infer_dense_strides(t.sizes(), t.strides()),
                      options.memory_format(std::nullopt));
  }
  if (t.is_quantized() && r.dtype() == t.dtype()) {
    r.unsafeGetTensorImpl()->set_quant_params(t.unsafeGetTensorImpl()->quant_params());
  }
  return r;
}

}  // namespace detail

Tensor empty(IntArrayRef size, const TensorOptions& options) {
  if (std::optional<MemoryFormat> f = options.memory_format_opt();
      f && *f != MemoryFormat::Contiguous) {
    return empty_strided(size, strides_for_memory_format(size, *f),
                         options.memory_format(std::nullopt));
  }
  int64_t n = detail::check_sizes(size);
  ScalarType dt = options.dtype();
  auto impl = std::make_shared<TensorImpl>(make_storage(n * element_size(dt), options.device()),
                                           dt, size);
  Tensor t(std::move(impl));
  detail::apply_requires_grad(t, options);
  return t;
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  EMBER_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  detail::check_sizes(size);
  int64_t extent = 1;  // elements needed: 1 + sum((size-1)*stride)
  bool empty_tensor = false;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: [",
                stride[i], "]");
    if (size[i] == 0) empty_tensor = true;
    extent += (size[i] - 1) * stride[i];
  }
  if (empty_tensor) extent = 0;
  ScalarType dt = options.dtype();
  auto impl = std::make_shared<TensorImpl>(
      make_storage(extent * element_size(dt), options.device()), dt, size, stride, 0);
  Tensor t(std::move(impl));
  detail::apply_requires_grad(t, options);
  return t;
}

Tensor empty_like(const Tensor& t, const TensorOptions& options,
                  std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!(options.memory_format_opt() && memory_format),
              "Cannot set memory_format both in TensorOptions and explicit argument; please "
              "delete the redundant setter.");
  const MemoryFormat f =
      memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Preserve));
  return detail::empty_in_layout_of(t, detail::like_options(t, options), f);
}

Tensor scalar_tensor(const Scalar& s, const TensorOptions& options) {
  ScalarType dt = options.has_dtype() ? options.dtype()
                  : s.is_floating_point() ? get_default_dtype()
                                          : s.type();
  Tensor t = empty({}, options.dtype(dt));
  EMBER_DISPATCH_ALL_TYPES(dt, "scalar_tensor", [&] { *t.data_ptr<scalar_t>() = s.to<scalar_t>(); });
  return t;
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  // Note [Wrapped numbers]: a number keeps its full precision (double /
  // int64 / bool); promotion treats it as the weakest operand.
  Tensor t = empty({}, TensorOptions(s.type()));
  EMBER_DISPATCH_ALL_TYPES(s.type(), "wrapped_scalar_tensor",
                           [&] { *t.data_ptr<scalar_t>() = s.to<scalar_t>(); });
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace ember
