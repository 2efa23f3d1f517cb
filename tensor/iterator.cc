#include "tensor/iterator.h"

#include <algorithm>

#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/layout.h"

namespace ember {
namespace {

// PyTorch's ResultTypeState: dim tensors, 0-dim tensors and wrapped numbers
// are promoted separately, then combined by category.
struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;
};

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

void update_state(ResultTypeState& st, const Tensor& t) {
  ScalarType cur = t.dtype();
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    if (is_floating_point(cur)) cur = get_default_dtype();
    st.wrapped_result = promote_skip_undefined(st.wrapped_result, cur);
  } else if (t.dim() == 0) {
    st.zero_result = promote_skip_undefined(st.zero_result, cur);
  } else {
    st.dim_result = promote_skip_undefined(st.dim_result, cur);
  }
}

ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

ScalarType result_of(const ResultTypeState& st) {
  return combine_categories(st.dim_result, combine_categories(st.zero_result, st.wrapped_result));
}

}  // namespace

ScalarType result_type(TensorList tensors) {
  ResultTypeState st;
  for (const Tensor& t : tensors) update_state(st, t);
  return result_of(st);
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState st;
  update_state(st, a);
  update_state(st, b);
  return result_of(st);
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  return result_type(a, wrapped_scalar_tensor(b));
}

DimVector infer_size(IntArrayRef a, IntArrayRef b) {
  size_t na = a.size(), nb = b.size();
  size_t n = std::max(na, nb);
  DimVector out(n);
  for (ptrdiff_t i = static_cast<ptrdiff_t>(n) - 1; i >= 0; --i) {
    ptrdiff_t off = static_cast<ptrdiff_t>(n) - 1 - i;
    ptrdiff_t ia = static_cast<ptrdiff_t>(na) - 1 - off;
    ptrdiff_t ib = static_cast<ptrdiff_t>(nb) - 1 - off;
    int64_t sa = ia >= 0 ? a[ia] : 1;
    int64_t sb = ib >= 0 ? b[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      throw Error(absl::StrCat("The size of tensor a (", sa, ") must match the size of tensor b (",
                               sb, ") at non-singleton dimension ", i));
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

TensorIterator& TensorIterator::add_output(const Tensor& out) {
  EMBER_CHECK(ninputs() == 0, "TensorIterator: outputs must be added before inputs");
  operands_.push_back(out);
  ++num_outputs_;
  return *this;
}

TensorIterator& TensorIterator::add_input(const Tensor& in) {
  EMBER_CHECK(in.defined(), "TensorIterator: undefined input tensor");
  EMBER_CHECK(ntensors() < kMaxOperands, "TensorIterator: too many operands");
  operands_.push_back(in);
  return *this;
}

TensorIterator& TensorIterator::build() {
  compute_device();
  compute_shape();
  compute_types();
  allocate_or_check_outputs();
  coalesce();
  return *this;
}

// Note [Iterator devices]. The device is the first defined operand's that
// is not a 0-dim CPU input (outputs first, as PyTorch); none: CPU.
void TensorIterator::compute_device() {
  device_ = Device(kCPU);
  bool found = false;
  for (int i = 0; i < ntensors(); ++i) {
    const Tensor& t = operands_[i];
    if (!t.defined() || (i >= num_outputs_ && t.dim() == 0 && t.is_cpu())) continue;
    if (!found) {
      device_ = t.device();
      found = true;
    } else if (t.device() != device_) {
      throw Error(absl::StrCat(
          "Expected all tensors to be on the same device, but found at least two devices, ",
          device_.str(), " and ", t.device().str(), "!"));
    }
  }
  if (device_.is_cpu()) return;
  for (int i = num_outputs_; i < ntensors(); ++i) {
    if (operands_[i].is_cpu()) operands_[i] = operands_[i].to(device_);
  }
}

void TensorIterator::compute_shape() {
  bool first = true;
  if (config_.shape_from_output) {
    broadcast_shape_.assign(operands_[0].sizes().begin(), operands_[0].sizes().end());
    first = false;
  }
  for (int i = num_outputs_; i < ntensors(); ++i) {
    const Tensor& t = operands_[i];
    if (first) {
      broadcast_shape_.assign(t.sizes().begin(), t.sizes().end());
      first = false;
    } else if (t.sizes() != IntArrayRef(broadcast_shape_)) {
      broadcast_shape_ = infer_size(broadcast_shape_, t.sizes());
      same_shape_ = false;
    }
  }
  if (first) {  // no inputs: the output's shape
    for (int i = 0; i < num_outputs_; ++i) {
      if (operands_[i].defined()) {
        broadcast_shape_.assign(operands_[i].sizes().begin(), operands_[i].sizes().end());
        break;
      }
    }
  }
  for (int i = 0; i < num_outputs_; ++i) {
    const Tensor& o = operands_[i];
    if (o.defined() && o.sizes() != IntArrayRef(broadcast_shape_)) {
      throw Error(absl::StrCat("output with shape ", detail::sizes_str(o.sizes()),
                               " doesn't match the broadcast shape ",
                               detail::sizes_str(broadcast_shape_)));
    }
  }
  numel_ = compute_numel(broadcast_shape_);
}

void TensorIterator::compute_types() {
  if (config_.common_dtype) {
    common_dtype_ = *config_.common_dtype;
  } else if (ninputs() > 0) {
    if (config_.promote_inputs) {
      ResultTypeState st;
      for (int i = num_outputs_; i < ntensors(); ++i) update_state(st, operands_[i]);
      common_dtype_ = result_of(st);
    } else {
      common_dtype_ = input_dtype(0);
    }
  } else {
    common_dtype_ = operands_[0].defined() ? operands_[0].dtype() : get_default_dtype();
  }
  if (config_.promote_integer_inputs_to_float && is_integral(common_dtype_, true)) {
    common_dtype_ = get_default_dtype();
  }
  if (config_.cast_inputs) {
    for (int i = num_outputs_; i < ntensors(); ++i) {
      if (operands_[i].dtype() != common_dtype_) operands_[i] = operands_[i].to(common_dtype_);
    }
  }
}

void TensorIterator::allocate_or_check_outputs() {
  ScalarType out_dtype = config_.output_dtype.value_or(common_dtype_);
  for (int i = 0; i < num_outputs_; ++i) {
    Tensor& o = operands_[i];
    if (!o.defined()) continue;
    if (config_.check_output_cast && !config_.output_dtype && !can_cast(common_dtype_, o.dtype())) {
      throw Error(absl::StrCat("result type ", scalar_type_name(common_dtype_),
                               " can't be cast to the desired output type ",
                               scalar_type_name(o.dtype())));
    }
    for (int64_t d = 0; d < o.dim(); ++d) {
      if (o.strides()[d] == 0 && o.sizes()[d] > 1) {
        throw Error(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.");
      }
    }
    if (o.dtype() != out_dtype && config_.allow_output_cast) {
      original_outputs_.resize(num_outputs_);
      original_outputs_[i] = o;
      o = empty(broadcast_shape_, TensorOptions(out_dtype).device(o.device()));
    }
    o.unsafeGetTensorImpl()->bump_version();
  }
  compute_layout(out_dtype);
}

// Note [Result layout] (tensor/layout.h), PyTorch's fast_set_up and
// reorder_dimensions: perm_ (innermost dim first) is the order the loops
// walk and the order new outputs are laid out in.
void TensorIterator::compute_layout(ScalarType out_dtype) {
  const int nt = ntensors();
  const int64_t nd = static_cast<int64_t>(broadcast_shape_.size());
  // Inputs (and so every operand: compute_shape checked the outputs) have
  // the broadcast shape.
  const bool same_shape = same_shape_;
  bool all_contiguous = true, any_undefined = false;
  int last_defined = -1;
  for (int i = 0; i < nt; ++i) {
    const Tensor& t = operands_[i];
    if (!t.defined()) {
      any_undefined = true;
      continue;
    }
    last_defined = i;
    all_contiguous = all_contiguous && t.is_contiguous();
  }
  const TensorOptions out_options = TensorOptions(out_dtype).device(device_);
  if (config_.row_major_outputs && any_undefined) {
    for (int i = 0; i < num_outputs_; ++i) {
      if (!operands_[i].defined()) operands_[i] = empty(broadcast_shape_, out_options);
    }
    any_undefined = false;
  }
  row_major_ = same_shape && all_contiguous;
  if (row_major_) {  // the common case: row-major everywhere
    for (int i = 0; i < num_outputs_; ++i) {
      if (!operands_[i].defined()) operands_[i] = empty(broadcast_shape_, out_options);
    }
    return;
  }
  perm_.resize(nd);
  const IntArrayRef shape(broadcast_shape_);
  if (same_shape && any_undefined) {
    // One dense layout everywhere (channels-last, or the same strides):
    // outputs take it.
    bool all_channels_last = nd == 4, same_strides = true;
    IntArrayRef strides = operands_[last_defined].strides();
    for (int i = 0; i < nt; ++i) {
      const Tensor& t = operands_[i];
      if (!t.defined()) continue;
      all_channels_last =
          all_channels_last && is_contiguous_in(t.sizes(), t.strides(), MemoryFormat::ChannelsLast);
      same_strides = same_strides && t.strides() == strides;
    }
    same_strides = same_strides && is_non_overlapping_and_dense(shape, strides);
    if (all_channels_last || same_strides) {
      for (int i = 0; i < num_outputs_; ++i) {
        if (operands_[i].defined()) continue;
        operands_[i] = all_channels_last
                           ? empty(broadcast_shape_, out_options.memory_format(
                                                         MemoryFormat::ChannelsLast))
                           : empty_strided(broadcast_shape_, strides, out_options);
      }
      any_undefined = false;
    }
  }
  // Each defined operand's byte strides over the broadcast dims; a
  // broadcast dim has stride 0 and orders nothing.
  StrideVector st[kMaxOperands];
  for (int i = 0; i < nt; ++i) {
    const Tensor& t = operands_[i];
    if (!t.defined()) continue;
    st[i].assign(nd, 0);
    const int64_t offset = nd - t.dim();
    const int64_t esz = t.element_size();
    for (int64_t k = 0; k < t.dim(); ++k) {
      if (t.sizes()[k] == 1 && broadcast_shape_[offset + k] != 1) continue;
      st[i][offset + k] = t.strides()[k] * esz;
    }
  }
  sort_dims_by_layout(perm_.data(), nd, [&](int64_t d0, int64_t d1) {
    return compare_dims_by_strides(st, nt, broadcast_shape_, d0, d1);
  });
  if (!any_undefined) return;
  bool row_major = true;
  for (int64_t k = 0; k < nd && row_major; ++k) row_major = perm_[k] == nd - 1 - k;
  DimVector strides(nd);
  int64_t next = 1;
  for (int64_t k = 0; k < nd; ++k) {
    strides[perm_[k]] = next;
    next *= broadcast_shape_[perm_[k]];
  }
  for (int i = 0; i < num_outputs_; ++i) {
    if (operands_[i].defined()) continue;
    operands_[i] = row_major ? empty(broadcast_shape_, out_options)
                             : empty_strided(broadcast_shape_, strides, out_options);
  }
}

void TensorIterator::coalesce() {
  const int nt = ntensors();
  const int64_t nd = static_cast<int64_t>(broadcast_shape_.size());
  // In perm_'s order (reversed dims when row_major_): dim 0 is the
  // innermost. Broadcast dims get stride 0.
  shape_.clear();
  for (int i = 0; i < nt; ++i) strides_[i].clear();
  for (int64_t k = 0; k < nd; ++k) {
    const int64_t d = row_major_ ? nd - 1 - k : perm_[k];
    int64_t size = broadcast_shape_[d];
    if (size == 1) continue;
    shape_.push_back(size);
    for (int i = 0; i < nt; ++i) {
      const Tensor& t = operands_[i];
      int64_t td = d - (nd - t.dim());
      int64_t st = 0;
      if (td >= 0 && t.sizes()[td] != 1) st = t.strides()[td] * t.element_size();
      strides_[i].push_back(st);
    }
  }
  if (shape_.empty()) {
    shape_.push_back(1);
    for (int i = 0; i < nt; ++i) strides_[i].push_back(0);
    return;
  }
  // Merge dim d+1 into d when every operand steps through them as one.
  int out = 0;
  for (size_t d = 1; d < shape_.size(); ++d) {
    bool can = true;
    for (int i = 0; i < nt && can; ++i) {
      can = strides_[i][out] * shape_[out] == strides_[i][d];
    }
    if (can) {
      shape_[out] *= shape_[d];
    } else {
      ++out;
      shape_[out] = shape_[d];
      for (int i = 0; i < nt; ++i) strides_[i][out] = strides_[i][d];
    }
  }
  shape_.resize(out + 1);
  for (int i = 0; i < nt; ++i) strides_[i].resize(out + 1);
  EMBER_CHECK(shape_.size() <= 16, "TensorIterator supports at most 16 non-collapsible dims");
}

Tensor TensorIterator::output(int i) {
  if (i < static_cast<int>(original_outputs_.size()) && original_outputs_[i].defined()) {
    Tensor dst = original_outputs_[i];
    dst.copy_(operands_[i]);
    operands_[i] = dst;
    original_outputs_[i] = Tensor();
  }
  return operands_[i];
}

TensorIterator TensorIterator::binary_op(const Tensor& out, const Tensor& a, const Tensor& b,
                                         IterConfig config) {
  TensorIterator it(config);
  it.add_output(out).add_input(a).add_input(b).build();
  return it;
}

TensorIterator TensorIterator::unary_op(const Tensor& out, const Tensor& a, IterConfig config) {
  TensorIterator it(config);
  it.add_output(out).add_input(a).build();
  return it;
}

TensorIterator TensorIterator::comparison_op(const Tensor& out, const Tensor& a,
                                             const Tensor& b) {
  IterConfig c;
  c.output_dtype = kBool;  // an in-place comparison computes bools, then casts back
  c.check_output_cast = false;
  TensorIterator it(c);
  it.add_output(out).add_input(a).add_input(b).build();
  return it;
}

TensorIterator TensorIterator::nullary_op(const Tensor& out) {
  TensorIterator it;
  it.add_output(out).build();
  return it;
}

}  // namespace ember
