// Python-style indexing: x.index({...}) and x.index_put_({...}, v).
//
// Note [Basic and advanced indexing]: as in PyTorch's applySlicing, the
// index list is first applied left to right as views (integers select,
// slices slice, None and bools unsqueeze); index tensors are only recorded
// at the dimension of the view they refer to. If any were recorded, the
// view is then indexed by them ("advanced indexing", a copy): the index
// tensors broadcast to one shape B, and B takes the place of the indexed
// dimensions when they are adjacent, else it goes first (NumPy's rule).

#include "tensor/indexing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/fallback.h"
#include "tensor/index_kernels.h"
#include "tensor/iterator.h"
#include "tensor/layout.h"
#include "tensor/record_function.h"
#include "tensor/selection.h"
#include "tensor/strided_walk.h"

namespace ember {

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(advanced_index_kernel, AdvancedIndexFn);
}  // namespace detail

TensorIndex::TensorIndex(const char* str) : type_(indexing::TensorIndexType::Ellipsis) {
  EMBER_CHECK(std::string(str) == "...", "Expected \"...\" to represent an ellipsis index, but got \"",
              str, "\"");
}

namespace {

using indexing::TensorIndexType;

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kByte; }

// Dimensions of self the index list consumes (None, Ellipsis and bools
// consume none; a mask consumes its own rank).
int64_t count_specified_dims(TensorIndexList indices) {
  int64_t n = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) {
      ++n;
    } else if (i.is_tensor()) {
      n += is_mask(i.tensor()) ? i.tensor().dim() : 1;
    }
  }
  return n;
}

Tensor apply_select(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK_INDEX(t.dim() > 0,
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  const int64_t size = t.sizes()[dim];
  EMBER_CHECK_INDEX(index >= -size && index < size, "index ", index,
                    " is out of bounds for dimension ", real_dim, " with size ", size);
  return t.select(dim, index);
}

// A bool index is a one-element mask over a new dimension of size 1. It
// stays on the host, where it is written (a device self copies it over).
Tensor bool_to_index(bool b) {
  Tensor t = empty({b ? 1 : 0}, TensorOptions(kLong));
  if (b) t.data_ptr<int64_t>()[0] = 0;
  return t;
}

void record(std::vector<Tensor>& out, int64_t& dim, const Tensor& t) {
  if (static_cast<int64_t>(out.size()) < dim + 1) out.resize(dim + 1);
  out[dim] = t;
  ++dim;
}

// Applies the view part of an index list (Note [Basic and advanced
// indexing]) and collects the index tensors in `adv`.
Tensor apply_slicing(const Tensor& self, TensorIndexList indices, std::vector<Tensor>& adv) {
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim());
  Tensor result = self;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorIndex& obj = indices[i];
    const int64_t real_dim = static_cast<int64_t>(i);
    switch (obj.type()) {
      case TensorIndexType::Integer:
        result = apply_select(result, dim, obj.integer(), real_dim);
        break;
      case TensorIndexType::Slice: {
        const indexing::Slice& s = obj.slice();
        EMBER_CHECK_VALUE(s.step() > 0, "step must be greater than zero");
        // As PyTorch's applySlice: a slice that names the whole dim exactly
        // (start 0, stop its length, step 1) is skipped, unless it is the
        // only index (get_item's fast path). A missing stop is the maximum,
        // so `:` is still a slice (SliceBackward0, as 1.13).
        const bool whole = indices.size() > 1 && s.start().value_or(0) == 0 &&
                           s.stop() == result.size(dim) && s.step() == 1;
        if (!whole) result = result.slice(dim, s.start(), s.stop(), s.step());
        ++dim;
        break;
      }
      case TensorIndexType::Ellipsis:
        dim += self.dim() - specified;
        break;
      case TensorIndexType::None:
        result = result.unsqueeze(dim);
        ++dim;
        break;
      case TensorIndexType::Boolean:
        result = result.unsqueeze(dim);
        record(adv, dim, bool_to_index(obj.boolean()));
        break;
      case TensorIndexType::Tensor: {
        const Tensor& t = obj.tensor();
        if (t.dim() == 0 && is_integral(t.dtype(), true)) {
          if (!is_mask(t)) {  // a 0-dim integer tensor is an integer
            result = apply_select(result, dim, t.item<int64_t>(), real_dim);
          } else {
            result = result.unsqueeze(dim);
            record(adv, dim, bool_to_index(t.item<bool>()));
          }
        } else {
          record(adv, dim, t);
        }
        break;
      }
    }
  }
  return result;
}

// The index tensors of advanced indexing over `self`, one per dimension
// of self (undefined where not indexed), masks replaced by their nonzero
// coordinates and everything int64.
std::vector<Tensor> expand_masks(const Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<Tensor> out;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      out.push_back(t);
      continue;
    }
    if (is_mask(t)) {
      const int64_t src = static_cast<int64_t>(out.size());
      for (int64_t j = 0; j < t.dim(); ++j) {
        const bool ok = src + j < self.dim() && t.sizes()[j] == self.sizes()[src + j];
        EMBER_CHECK_INDEX(ok, "The shape of the mask ", detail::sizes_str(t.sizes()),
                          " at index ", j, " does not match the shape of the indexed tensor ",
                          detail::sizes_str(self.sizes()), " at index ", src + j);
      }
      for (Tensor& c : where(t)) out.push_back(std::move(c));
      if (t.dim() == 0) out.pop_back();  // where() reads a 0-dim mask as 1-dim
      continue;
    }
    EMBER_CHECK_INDEX(t.dtype() == kLong, "tensors used as indices must be long, byte or bool tensors");
    out.push_back(t);
  }
  EMBER_CHECK_INDEX(static_cast<int64_t>(out.size()) <= self.dim(),
                    "too many indices for tensor of dimension ", self.dim());
  out.resize(self.dim());
  return out;
}

// Where advanced indexing reads or writes: the output shape, and for self
// the element offsets split as before-dims x B x after-dims.
struct AdvancedIndex {
  DimVector before_sizes, before_strides;  // self dims left of B (adjacent case)
  DimVector after_sizes, after_strides;    // the other non-indexed self dims
  DimVector b_shape;                       // broadcast shape of the indices
  std::vector<int64_t> b_offsets;          // self offset of each position of B
  std::vector<DimVector> index_strides;    // each index tensor's strides over B
  DimVector out_shape;
  int64_t n_before = 1, n_b = 1, n_after = 1;
  std::vector<Tensor> idx;    // per dim of self: int64 indices, or undefined
  std::vector<int64_t> dims;  // the indexed dims

  // On a device, b_offsets stays empty: the values are read there
  // (Note [Advanced indexing on devices]).
  AdvancedIndex(const Tensor& self, const std::vector<Tensor>& raw) {
    idx = expand_masks(self, raw);
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (idx[d].defined()) dims.push_back(d);
    }
    // Broadcast shape of the index tensors.
    bool first = true;
    for (int64_t d : dims) {
      if (first) {
        b_shape.assign(idx[d].sizes().begin(), idx[d].sizes().end());
        first = false;
        continue;
      }
      try {
        b_shape = infer_size(b_shape, idx[d].sizes());
      } catch (const Error&) {
        std::vector<std::string> shapes;
        for (int64_t e : dims) shapes.push_back(detail::sizes_str(idx[e].sizes()));
        throw IndexError(absl::StrCat(
            "shape mismatch: indexing tensors could not be broadcast together with shapes ",
            absl::StrJoin(shapes, ", ")));
      }
    }
    bool adjacent = true;
    for (size_t k = 1; k < dims.size(); ++k) adjacent &= dims[k] == dims[k - 1] + 1;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (idx[d].defined()) continue;
      const bool before = adjacent && d < dims.front();
      (before ? before_sizes : after_sizes).push_back(self.sizes()[d]);
      (before ? before_strides : after_strides).push_back(self.strides()[d]);
    }
    out_shape = before_sizes;
    out_shape.insert(out_shape.end(), b_shape.begin(), b_shape.end());
    out_shape.insert(out_shape.end(), after_sizes.begin(), after_sizes.end());
    n_before = compute_numel(before_sizes);
    n_b = compute_numel(b_shape);
    n_after = compute_numel(after_sizes);
    for (int64_t d : dims) index_strides.push_back(detail::broadcast_strides(idx[d], b_shape));
    if (!self.is_cpu()) {
      for (int64_t d : dims) {
        if (idx[d].device() != self.device()) idx[d] = idx[d].to(self.device());
      }
      return;
    }

    // Offsets of B's positions, checking every index value.
    b_offsets.assign(n_b, 0);
    for (int64_t d : dims) {
      const Tensor& t = idx[d];
      const DimVector st = detail::broadcast_strides(t, b_shape);
      const int64_t* p = t.data_ptr<int64_t>();
      const int64_t size = self.sizes()[d], stride = self.strides()[d];
      int64_t k = 0;
      detail::strided_walk<1>(b_shape, {st.data()}, {0}, 0, n_b,
                              [&](const std::array<int64_t, 1>& o) {
                                int64_t v = p[o[0]];
                                EMBER_CHECK_INDEX(v >= -size && v < size, "index ", v,
                                                  " is out of bounds for dimension ", d,
                                                  " with size ", size);
                                if (v < 0) v += size;
                                b_offsets[k++] += v * stride;
                              });
    }
  }

  // The result's strides, as PyTorch's index TensorIterator lays out its
  // result: by self's strides with B's dims broadcast, then by the index
  // tensors' over B (so a channels-last or permuted self stays so).
  DimVector out_strides() const {
    const size_t nd = out_shape.size(), b0 = before_sizes.size(), nb = b_shape.size();
    std::vector<DimVector> operands(1, DimVector(nd, 0));
    for (size_t k = 0; k < b0; ++k) operands[0][k] = before_strides[k];
    for (size_t k = 0; k < after_strides.size(); ++k) operands[0][b0 + nb + k] = after_strides[k];
    for (const DimVector& st : index_strides) {
      DimVector o(nd, 0);
      for (size_t k = 0; k < nb; ++k) o[b0 + k] = st[k];
      operands.push_back(std::move(o));
    }
    return iterator_layout_strides(out_shape, operands.data(), static_cast<int>(operands.size()));
  }
  // `out` (row-major, as the CPU loop writes it) in out_strides().
  Tensor laid_out(const Tensor& out) const {
    const DimVector strides = out_strides();
    if (out.numel() == 0 || IntArrayRef(strides) == out.strides()) return out;
    return empty_strided(out_shape, strides, out.options()).copy_(out);
  }

  // Self offsets of the before-dims' positions, in row-major order.
  std::vector<int64_t> before_offsets() const {
    std::vector<int64_t> offs;
    offs.reserve(n_before);
    detail::strided_walk<1>(before_sizes, {before_strides.data()}, {0}, 0, n_before,
                            [&](const std::array<int64_t, 1>& o) { offs.push_back(o[0]); });
    return offs;
  }

  // The device kernel's loop over the result's shape; `other`: the
  // result's or the (broadcast) values' strides over it.
  detail::AdvancedIndexLoop device_loop(const Tensor& self, detail::AdvancedIndexMode mode,
                                        DimVector other) const {
    detail::AdvancedIndexLoop l;
    l.mode = mode;
    l.sizes = out_shape;
    l.other_strides = std::move(other);
    l.b_begin = static_cast<int64_t>(before_sizes.size());
    l.b_end = l.b_begin + static_cast<int64_t>(b_shape.size());
    l.self_strides = before_strides;
    l.self_strides.resize(l.b_end, 0);
    l.self_strides.insert(l.self_strides.end(), after_strides.begin(), after_strides.end());
    for (int64_t d : dims) {
      const DimVector st = detail::broadcast_strides(idx[d], b_shape);
      DimVector over(out_shape.size(), 0);
      std::copy(st.begin(), st.end(), over.begin() + l.b_begin);
      l.indices.push_back(idx[d]);
      l.index_strides.push_back(std::move(over));
      l.indexed_sizes.push_back(self.sizes()[d]);
      l.indexed_strides.push_back(self.strides()[d]);
      l.indexed_dims.push_back(d);
    }
    return l;
  }
};

// Whether self's device has advanced-indexing kernels (else: Note [CPU
// fallback]).
bool on_device(const Tensor& self) {
  return !self.is_cpu() && detail::advanced_index_kernel.has(self.device().type());
}

// Index tensors may stay on the CPU when self is on a device (PyTorch
// copies them over); on the host they must be there already.
std::vector<Tensor> host_indices(const std::vector<Tensor>& indices) {
  std::vector<Tensor> host;
  host.reserve(indices.size());
  for (const Tensor& t : indices) host.push_back(detail::cpu(t));
  return host;
}

void check_index_devices(const Tensor& self, const std::vector<Tensor>& indices) {
  for (const Tensor& t : indices) {
    EMBER_CHECK(!t.defined() || t.is_cpu() || t.device() == self.device(),
                "indices should be either on cpu or on the same device as the indexed tensor (",
                self.device().str(), ")");
  }
}

}  // namespace

// index and index_put_ record with inputs (self, [values,] indices...), the
// indices as given (undefined: a whole dim; masks stay masks).
Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  if (detail::should_record(self)) {
    profiler::RecordFunction prof_range("index", profiler::RangeKind::kOp);
    detail::OpScope scope{detail::OpScope::Checked{}};
    Tensor r = index(self, indices);  // nothing records inside the scope
    if (scope.active()) {
      std::vector<Tensor> inputs{self};
      inputs.insert(inputs.end(), indices.begin(), indices.end());
      scope.record_list("index", inputs, {r});
    }
    return r;
  }
  const bool device = on_device(self);
  if (!device && detail::cpu_fallback("index", {self})) {
    return detail::to_device(index(detail::cpu(self), host_indices(indices)), self);
  }
  check_index_devices(self, indices);
  // x[mask] with a bool mask of x's shape is masked_select's result (the
  // selected elements in row-major order, [count]): one pass over the mask
  // instead of its coordinates and a gather.
  if (!device && indices.size() == 1 && indices[0].defined() && indices[0].dtype() == kBool &&
      indices[0].is_cpu() && self.dim() > 0 && indices[0].sizes() == self.sizes()) {
    return masked_select(self, indices[0]);  // below the scope: records nothing
  }
  AdvancedIndex ai(self, indices);
  // The device kernel writes the result in its layout; the CPU loop
  // row-major, moved to it at the end.
  Tensor out = device ? empty_strided(ai.out_shape, ai.out_strides(), self.options())
                      : empty(ai.out_shape, self.options());
  if (out.numel() == 0) return out;
  if (device) {
    detail::advanced_index_kernel(self.device())(
        ai.device_loop(self, detail::AdvancedIndexMode::kIndex,
                       DimVector(out.strides().begin(), out.strides().end())),
        self, out);
    return out;
  }
  const std::vector<int64_t> before = ai.before_offsets();
  const int64_t rows = ai.n_before * ai.n_b;
  const int64_t inner = ai.n_after;
  detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(self.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
      if (inner == 1) {  // one element per row, as index_put_ below
        for (int64_t r = b; r < e; ++r) dst[r] = src[before[r / ai.n_b] + ai.b_offsets[r % ai.n_b]];
        return;
      }
      for (int64_t r = b; r < e; ++r) {
        const int64_t base = before[r / ai.n_b] + ai.b_offsets[r % ai.n_b];
        T* d = dst + r * inner;
        detail::strided_walk<1>(ai.after_sizes, {ai.after_strides.data()}, {base}, 0, inner,
                                [&](const std::array<int64_t, 1>& o) { *d++ = src[o[0]]; });
      }
    });
  });
  return ai.laid_out(out);
}

Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate) {
  if (detail::should_record(self, values)) {
    profiler::RecordFunction prof_range("index_put", profiler::RangeKind::kInplaceOp);
    detail::OpScope scope{detail::OpScope::Checked{}};
    if (scope.active()) {
      Tensor before = scope.before_inplace("index_put", self);
      index_put_(self, indices, values, accumulate);  // nothing records inside the scope
      std::vector<Tensor> others{values};
      others.insert(others.end(), indices.begin(), indices.end());
      scope.record_inplace("index_put", self, std::move(before), others, {Scalar(accumulate)});
      return self;
    }
  }
  const bool device = on_device(self);
  if (!device && detail::cpu_fallback("index_put_", {self, values})) {
    return detail::in_place_on_cpu(self, [&](Tensor& host) {
      index_put_(host, host_indices(indices), detail::cpu(values), accumulate);
    });
  }
  if (device) detail::common_device({self, values});
  check_index_devices(self, indices);
  EMBER_CHECK(self.dtype() == values.dtype(),
              "Index put requires the source and destination dtypes match, got ",
              scalar_type_name(self.dtype()), " for the destination and ",
              scalar_type_name(values.dtype()), " for the source.");
  AdvancedIndex ai(self, indices);
  bool ok = values.dim() <= static_cast<int64_t>(ai.out_shape.size());
  for (int64_t d = 0; ok && d < values.dim(); ++d) {
    const int64_t vs = values.sizes()[values.dim() - 1 - d];
    ok = vs == 1 || vs == ai.out_shape[ai.out_shape.size() - 1 - d];
  }
  EMBER_CHECK(ok, "shape mismatch: value tensor of shape ", detail::sizes_str(values.sizes()),
              " cannot be broadcast to indexing result of shape ",
              detail::sizes_str(ai.out_shape));
  self.unsafeGetTensorImpl()->bump_version();
  const int64_t total = compute_numel(ai.out_shape);
  if (total == 0) return self;
  // values' strides over the output shape, split like the output.
  const DimVector vst = detail::broadcast_strides(values, ai.out_shape);
  const size_t nb = ai.before_sizes.size(), nbs = ai.b_shape.size();
  const DimVector v_before(vst.begin(), vst.begin() + nb);
  const DimVector v_b(vst.begin() + nb, vst.begin() + nb + nbs);
  const DimVector v_after(vst.begin() + nb + nbs, vst.end());
  if (device) {
    detail::advanced_index_kernel(self.device())(
        ai.device_loop(
            self,
            accumulate ? detail::AdvancedIndexMode::kAccumulate : detail::AdvancedIndexMode::kPut,
            vst),
        self, values);
    return self;
  }
  std::vector<int64_t> vb_offsets;
  vb_offsets.reserve(ai.n_b);
  detail::strided_walk<1>(ai.b_shape, {v_b.data()}, {0}, 0, ai.n_b,
                          [&](const std::array<int64_t, 1>& o) { vb_offsets.push_back(o[0]); });
  std::vector<int64_t> self_before, value_before;
  detail::strided_walk<2>(ai.before_sizes, {ai.before_strides.data(), v_before.data()}, {0, 0}, 0,
                          ai.n_before, [&](const std::array<int64_t, 2>& o) {
                            self_before.push_back(o[0]);
                            value_before.push_back(o[1]);
                          });
  const int64_t rows = ai.n_before * ai.n_b;
  auto run = [&](auto write) {
    // Repeated indices: with accumulate every value adds in, so rows run
    // in order; otherwise one of the writes wins, as in PyTorch.
    const int64_t grain = accumulate ? rows : std::max<int64_t>(1, kGrainSize / ai.n_after);
    if (ai.n_after == 1) {
      // One element per row (no dims after the indexed ones, as take's
      // backward and x[idx] = v on a 1-d x): written without the walk's
      // per-row setup, which cost 15 ns an element.
      parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t i = r / ai.n_b, j = r % ai.n_b;
          write(self_before[i] + ai.b_offsets[j], value_before[i] + vb_offsets[j]);
        }
      });
      return;
    }
    parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t i = r / ai.n_b, j = r % ai.n_b;
        detail::strided_walk<2>(ai.after_sizes, {ai.after_strides.data(), v_after.data()},
                                {self_before[i] + ai.b_offsets[j], value_before[i] + vb_offsets[j]},
                                0, ai.n_after,
                                [&](const std::array<int64_t, 2>& o) { write(o[0], o[1]); });
      }
    });
  };
  if (accumulate) {
    EMBER_DISPATCH_ALL_TYPES(self.dtype(), "index_put_", [&] {
      scalar_t* d = self.data_ptr<scalar_t>();
      const scalar_t* v = values.data_ptr<scalar_t>();
      run([&](int64_t o, int64_t i) {
        if constexpr (std::is_same<scalar_t, bool>::value) {
          d[o] = d[o] || v[i];
        } else {
          d[o] = static_cast<scalar_t>(d[o] + v[i]);
        }
      });
    });
  } else {
    detail::dispatch_by_element_size(self.element_size(), [&](auto tag) {
      using T = decltype(tag);
      T* d = static_cast<T*>(self.data_ptr());
      const T* v = static_cast<const T*>(values.data_ptr());
      run([&](int64_t o, int64_t i) { d[o] = v[i]; });
    });
  }
  return self;
}

// --- Tensor methods ----------------------------------------------------------------

Tensor Tensor::index(TensorIndexList indices) const {
  // x[i] with one integer reports a 0-dim tensor as PyTorch's x[i] does.
  if (indices.size() == 1 && indices[0].is_integer()) {
    return apply_select(*this, 0, indices[0].integer(), 0);
  }
  std::vector<Tensor> adv;
  Tensor result = apply_slicing(*this, indices, adv);
  if (adv.empty()) {
    // Always a new view, never this very handle (x[...] is an alias).
    if (result.is_same(*this)) {
      profiler::RecordFunction prof_range("alias", profiler::RangeKind::kOp, *this);
      detail::OpScope scope(*this);  // PyTorch's AliasBackward0
      result = as_strided(sizes(), strides(), storage_offset());
      if (scope.active()) scope.record("alias", {*this}, {result});
    }
    return result;
  }
  return ::ember::index(result, adv);
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(TensorIndexList(indices));
}

Tensor Tensor::operator[](const Tensor& index) const { return this->index({index}); }

static Tensor index_put_op(const Tensor& self, TensorIndexList indices, const Tensor& value) {
  return self.index_put(indices, value);
}
Tensor Tensor::index_put(TensorIndexList indices, const Tensor& value) const {
  EMBER_AUTOCAST(index_put, index_put_op, *this, indices, value);
  return clone().index_put_(indices, value);
}
Tensor Tensor::index_put(std::initializer_list<TensorIndex> indices, const Tensor& value) const {
  return index_put(TensorIndexList(indices), value);
}

Tensor& Tensor::index_put_(TensorIndexList indices, const Tensor& value) const {
  // Python's setitem drops the value's leading size-1 dims first.
  Tensor v = value;
  while (v.dim() > 0 && v.sizes()[0] == 1) v = v.squeeze(0);
  std::vector<Tensor> adv;
  Tensor sliced = indices.size() == 1 && indices[0].is_integer()
                      ? apply_select(mut(), 0, indices[0].integer(), 0)
                      : apply_slicing(mut(), indices, adv);
  if (adv.empty()) {
    sliced.copy_(sliced.sizes() == v.sizes() ? v : v.expand(sliced.sizes()));
    return mut();
  }
  ::ember::index_put_(sliced, adv, v);
  return mut();
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const {
  return index_put_(TensorIndexList(indices), value);
}

Tensor& Tensor::index_put_(TensorIndexList indices, const Scalar& value) const {
  return index_put_(indices, scalar_tensor(value, options()));
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const {
  return index_put_(TensorIndexList(indices), value);
}

}  // namespace ember
