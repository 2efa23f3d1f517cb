// shape_ops.h: PyTorch 1.13's semantics written with ember's other ops.
// Ops that PyTorch records as a node of their own run their composition
// inside one recorded op (Note [Op recording]); the rest are plain
// compositions whose gradient is that of their parts.

#include "tensor/shape_ops.h"

#include "tensor/linalg_more.h"
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/composite_kernels.h"
#include "tensor/composite_ops.h"
#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {

namespace {

std::string sizes_str(IntArrayRef s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

// Integer products take beta and alpha truncated to integers, as PyTorch's
// addmv / addbmm (and ember's baddbmm).
Scalar for_dtype(const Scalar& s, ScalarType t) {
  return is_integral(t, /*include_bool=*/true) ? Scalar(s.toLong()) : s;
}

// beta * self + alpha * prod for a product of the result's dtype; self is
// not read when beta is 0 (NaN or not), as PyTorch's.
Tensor add_scaled(const Tensor& self, const Tensor& prod, const Scalar& beta, const Scalar& alpha) {
  const Tensor scaled = alpha.toDouble() == 1 ? prod : prod * alpha;
  if (beta.toDouble() == 0) {
    const DimVector shape = infer_size(self.sizes(), prod.sizes());
    return IntArrayRef(shape) == prod.sizes() ? scaled : scaled.expand(shape).contiguous();
  }
  const Tensor s = self.to(prod.dtype());
  return (beta.toDouble() == 1 ? s : s * beta) + scaled;
}

// The C++ type PyTorch's in-place dtype errors name (c10's type names).
std::string cpp_type_name(ScalarType t) {
  switch (t) {
    case kFloat:
      return "float";
    case kDouble:
      return "double";
    case kHalf:
      return "c10::Half";
    case kBFloat16:
      return "c10::BFloat16";
    case kLong:
      return "long int";
    case kInt:
      return "int";
    case kShort:
      return "short int";
    case kChar:
      return "signed char";
    case kByte:
      return "unsigned char";
    case kBool:
      return "bool";
    default:
      return scalar_type_name(t);
  }
}

// The in-place form of a recorded op: the result computed from self and
// written back into it, recorded in place under `name`.
template <typename Fn, typename ArgsFn>
Tensor& recorded_inplace(const char* name, bool exact_dtype, const Tensor& self,
                         std::initializer_list<Tensor> inputs, Fn&& compute, ArgsFn&& args) {
  detail::record_out_op(
      name, self, inputs,
      [&] {
        const Tensor r = compute();
        EMBER_CHECK(r.sizes() == self.sizes(), "Bad in-place call: input tensor size ",
                    sizes_str(self.sizes()), " and output tensor size ", sizes_str(r.sizes()),
                    " should match");
        // PyTorch's structured in-place ops (addmv_) want self's dtype exactly;
        // the others cast to it when the category allows.
        EMBER_CHECK(!exact_dtype || r.dtype() == self.dtype(),
                    "Bad in-place call: input tensor dtype ", cpp_type_name(self.dtype()),
                    " and output tensor dtype ", cpp_type_name(r.dtype()), " should match");
        EMBER_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", scalar_type_name(r.dtype()),
                    " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
        self.copy_(r);
        return self;
      },
      std::forward<ArgsFn>(args));
  return const_cast<Tensor&>(self);
}

std::vector<Tensor> split_at(const Tensor& self, IntArrayRef indices, int64_t dim) {
  std::vector<Tensor> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    out.push_back(self.slice(dim, start, end));
    start = end;
  }
  out.push_back(self.slice(dim, start, std::nullopt));
  return out;
}

void check_split_dims(const Tensor& self, const char* op, int64_t min_dims) {
  EMBER_CHECK(self.dim() >= min_dims, "torch.", op, " requires a tensor with at least ", min_dims,
              " dimension, but got a tensor with ", self.dim(), " dimensions!");
}

std::vector<Tensor> split_sections(const Tensor& self, const char* op, int64_t min_dims,
                                   int64_t dim, int64_t sections) {
  check_split_dims(self, op, min_dims);
  EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, "torch.", op,
              " attempted to split along dimension ", dim, ", but the size of the dimension ",
              self.size(dim), " is not divisible by the split_size ", sections, "!");
  return tensor_split(self, sections, dim);
}

// repeat_interleave's index on the CPU in two passes (the checks and the
// total, then the fill), with the composition's checks in its order.
Tensor repeat_interleave_cpu(const Tensor& repeats, std::optional<int64_t> output_size) {
  const Tensor r = repeats.contiguous();
  const int64_t n = r.numel();
  Tensor out;
  auto fill = [&](auto tag) {
    using index_t = decltype(tag);
    const index_t* rp = r.data_ptr<index_t>();
    index_t lo = rp[0];
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, rp[i]);
      total += rp[i];
    }
    EMBER_CHECK(lo >= 0, "repeats can not be negative");
    EMBER_CHECK(!output_size || *output_size == total,
                "allocated size does not match required size");
    out = empty({total}, r.options());
    index_t* op = out.data_ptr<index_t>();
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = rp[i];
      for (int64_t k = 0; k < c; ++k) op[j + k] = static_cast<index_t>(i);
      j += c;
    }
  };
  if (r.dtype() == kLong) {
    fill(int64_t{});
  } else {
    fill(int32_t{});
  }
  return out;
}

}  // namespace

// --- shape ---------------------------------------------------------------------

Tensor tile(const Tensor& self, IntArrayRef dims) {
  const int64_t pad = self.dim() - static_cast<int64_t>(dims.size());
  if (pad <= 0) return self.repeat(dims);
  DimVector padded(pad, 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return self.repeat(padded);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK(repeats.dtype() == kLong || repeats.dtype() == kInt, "\"repeat_interleave_",
              repeats.is_cpu() ? "cpu" : "cuda", "\" not implemented for '",
              scalar_type_name(repeats.dtype()), "'");
  const TensorOptions longs = TensorOptions(kLong).device(repeats.device());
  if (repeats.numel() == 0) return empty({0}, repeats.options());
  if (repeats.is_cpu()) return repeat_interleave_cpu(repeats, output_size);
  // Checked on the host (one sync), unless output_size spares it on a device.
  if (repeats.is_cpu() || !output_size) {
    EMBER_CHECK(repeats.min().item<int64_t>() >= 0, "repeats can not be negative");
  }
  const int64_t total =
      output_size && !repeats.is_cpu() ? *output_size : repeats.sum().item<int64_t>();
  EMBER_CHECK(!output_size || *output_size == total, "allocated size does not match required size");
  // Output j holds the number of inclusive running sums <= j: ones added at
  // each running sum, then summed up (no kernel of its own: every device).
  const Tensor ends = repeats.cumsum(0, kLong);
  Tensor marks = zeros({total + 1}, longs);
  marks.index_add_(0, ends, ones({repeats.numel()}, longs));
  return marks.cumsum(0).narrow(0, 0, total).to(repeats.dtype());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = self;
  int64_t d = 0;
  if (dim) {
    d = detail::wrap_dim(*dim, self.dim());
  } else {
    input = self.flatten();
  }
  Tensor counts = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    counts = repeats.reshape({1}).expand({input.size(d)});
  } else if (repeats.dim() == 1) {
    EMBER_CHECK(repeats.size(0) == input.size(d),
                "repeats must have the same size as input along dim");
  } else {
    EMBER_CHECK(false, "repeats must be 0-dim or 1-dim tensor");
  }
  const Tensor index = repeat_interleave(counts.to(input.device()), output_size);
  return input.index_select(d, index);
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return repeat_interleave(self, full({1}, repeats, TensorOptions(kLong).device(self.device())),
                           dim, output_size);
}

Tensor ravel(const Tensor& self) { return self.contiguous().view({-1}); }

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return self.flip({1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return self.flip({0});
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t total_dims = self.dim(), total_rot_dims = dims.size();
  EMBER_CHECK(total_rot_dims == 2,
              "expected total rotation dims == 2, but got dims = ", total_rot_dims);
  EMBER_CHECK(total_dims >= 2, "expected total dims >= 2, but got total dims = ", total_dims);
  // PyTorch compares the dims as given: {0, -2} of a matrix is refused too.
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != total_dims,
              "expected rotation dims to be different, but got dim0 = ", dims[0],
              " and dim1 = ", dims[1]);
  EMBER_CHECK(dims[0] < total_dims && dims[0] >= -total_dims,
              "Rotation dim0 out of range, dim0 = ", dims[0]);
  EMBER_CHECK(dims[1] < total_dims && dims[1] >= -total_dims,
              "Rotation dim1 out of range, dim1 = ", dims[1]);
  // One node (Rot90Backward0), as PyTorch's; odd turns are a transposed view
  // of the flipped copy.
  return detail::record_out_op(
      "rot90", Tensor(), {self},
      [&] {
        switch (((k % 4) + 4) % 4) {
          case 1:
            return self.flip({dims[1]}).transpose(dims[0], dims[1]);
          case 2:
            return self.flip(dims);
          case 3:
            return self.flip({dims[0]}).transpose(dims[0], dims[1]);
          default:
            return self.clone(MemoryFormat::Contiguous);
        }
      },
      [&] {
        return OpArgs{Scalar(k), DimVector(dims.begin(), dims.end())};
      });
}

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0,
              "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t d = detail::wrap_dim(dim, self.dim());
  const int64_t size = self.size(d), min_size = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  out.reserve(sections);
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = min_size + (i < extra ? 1 : 0);
    out.push_back(self.slice(d, start, start + len));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0,
              "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  return split_at(self, indices, detail::wrap_dim(dim, self.dim()));
}

std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim) {
  EMBER_CHECK(self.dim() > 0,
              "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.is_cpu(),
              "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              t.device().str());
  EMBER_CHECK(t.dtype() == kLong,
              "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
              scalar_type_name(t.dtype()));
  EMBER_CHECK(t.dim() <= 1,
              "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with ",
              t.dim(), " dims");
  if (t.dim() == 0) return tensor_split(self, t.item<int64_t>(), dim);
  const Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  const std::vector<int64_t> indices(p, p + c.numel());
  return tensor_split(self, IntArrayRef(indices), dim);
}

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  check_split_dims(self, "hsplit", 1);  // before self.dim() picks the dim
  return split_sections(self, "hsplit", 1, self.dim() == 1 ? 0 : 1, sections);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "hsplit", 1);
  return tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return split_sections(self, "vsplit", 2, 0, sections);
}
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "vsplit", 2);
  return tensor_split(self, indices, 0);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return split_sections(self, "dsplit", 3, 2, sections);
}
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  check_split_dims(self, "dsplit", 3);
  return tensor_split(self, indices, 2);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kLong,
              "torch.take_along_dim(): dtype of indices should be Long but got ",
              scalar_type_name(indices.dtype()));
  if (!dim) return self.view({-1}).gather(0, indices.view({-1}));
  const int64_t d = detail::wrap_dim(*dim, self.dim());
  EMBER_CHECK(self.dim() == indices.dim(),
              "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  DimVector self_sizes(self.sizes().begin(), self.sizes().end());
  self_sizes[d] = indices.size(d);
  const DimVector shape = infer_size(self_sizes, indices.sizes());
  DimVector self_shape = shape;
  self_shape[d] = self.size(d);
  return self.expand(self_shape).gather(d, indices.expand(shape));
}

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  return self.transpose(axis0, axis1);
}
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.transpose(dim0, dim1);
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source (", sizes_str(source),
              " dims) should contain the same number of dims as destination (",
              sizes_str(destination), " dims)");
  const int64_t n = self.dim();
  DimVector src, dst;
  for (int64_t s : source) src.push_back(detail::wrap_dim(s, n));
  for (int64_t s : destination) dst.push_back(detail::wrap_dim(s, n));
  for (size_t i = 0; i < src.size(); ++i) {
    for (size_t j = i + 1; j < src.size(); ++j) {
      EMBER_CHECK(src[i] != src[j], "movedim: repeated dim in `source` (", sizes_str(source), ")");
      EMBER_CHECK(dst[i] != dst[j], "movedim: repeated dim in `destination` (",
                  sizes_str(destination), ")");
    }
  }
  if (n == 0) return self.movedim(0, 0);  // an alias, as PyTorch's
  // The named dims go where they are sent; the others fill the free places
  // in their order.
  DimVector order(n, -1);
  std::vector<bool> moved(n, false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    moved[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o >= 0) continue;
    while (moved[next]) ++next;
    o = next++;
  }
  return self.permute(order);
}
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return movedim(self, source, destination);
}
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}

namespace {
// PyTorch's unsafe_split: the pieces of split, recorded as outputs of one
// node (UnsafeSplitBackward0) rather than as views of self, so autograd
// does not see writes through them (hence "unsafe").
std::vector<Tensor> record_unsafe_split(const char* op, const Tensor& self, int64_t dim,
                                        const std::function<std::vector<Tensor>()>& split) {
  detail::OpScope scope(self);
  std::vector<Tensor> out = split();
  if (scope.active()) {
    scope.record_list(op, {self}, out, {Scalar(detail::wrap_dim(dim, self.dim()))});
  }
  return out;
}
}  // namespace

std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return record_unsafe_split("unsafe_split", self, dim, [&] { return self.chunk(chunks, dim); });
}
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim) {
  return record_unsafe_split("unsafe_split", self, dim,
                             [&] { return self.split(split_size, dim); });
}
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                            int64_t dim) {
  return record_unsafe_split("unsafe_split_with_sizes", self, dim,
                             [&] { return self.split_with_sizes(split_sizes, dim); });
}

// 1.13 has no derivative for narrow_copy: a node whose backward raises
// "derivative for aten::narrow_copy is not implemented".
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return detail::record_out_op(
      "narrow_copy", Tensor(), {self},
      [&] { return self.narrow(dim, start, length).clone(MemoryFormat::Contiguous); },
      detail::no_args);
}

Tensor argwhere(const Tensor& self) { return self.nonzero(); }

// --- linear algebra --------------------------------------------------------------

Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const ScalarType t = self.dtype();
  EMBER_CHECK(t == kFloat || t == kDouble || is_integral(t, /*include_bool=*/false),
              "\"trace\" not implemented for '", scalar_type_name(t), "'");
  return detail::record_out_op(
      "trace", Tensor(), {self},
      [&] { return is_integral(t, false) ? self.diagonal().sum(kLong) : self.diagonal().sum(); },
      detail::no_args);
}

namespace {
// Which dims of a `ndim`-dim tensor `dims` names (wrapped; each once).
std::vector<bool> contracted(IntArrayRef dims, int64_t ndim) {
  std::vector<bool> seen(ndim, false);
  for (int64_t d : dims) {
    const int64_t w = detail::wrap_dim(d, ndim);
    EMBER_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
  }
  return seen;
}
}  // namespace

// libtorch 1.13's tensordot: a contracted dim of size 1 on one side is
// summed away on the other (keepdim; an integer sum is int64, so mm then
// sees two dtypes: "expected scalar type Long but found Int", as in 1.13),
// the rest is one mm of the permuted, flattened operands.
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                 IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(),
              "both dimension lists should have same length");
  Tensor t1 = self, t2 = other;
  int64_t csize = 1;  // the contracted dims' total size
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t s1 = self.size(dims_self[i]), s2 = other.size(dims_other[i]);
    if (s2 == 1) {
      t1 = t1.sum({dims_self[i]}, true);
    } else if (s1 == 1) {
      t2 = t2.sum({dims_other[i]}, true);
    } else {
      EMBER_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1,
                  " in dim ", dims_self[i], " and second has size ", s2, " in dim ", dims_other[i]);
      csize *= s1;
    }
  }
  const std::vector<bool> c1 = contracted(dims_self, self.dim());
  const std::vector<bool> c2 = contracted(dims_other, other.dim());
  DimVector p1, p2, rsizes;
  int64_t size1 = 1, size2 = 1;  // counted, not inferred: csize may be 0
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (c1[d]) continue;
    p1.push_back(d);
    size1 *= t1.size(d);
    rsizes.push_back(t1.size(d));
  }
  for (int64_t d : dims_self) p1.push_back(detail::wrap_dim(d, self.dim()));
  for (int64_t d : dims_other) p2.push_back(detail::wrap_dim(d, other.dim()));
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (c2[d]) continue;
    p2.push_back(d);
    size2 *= t2.size(d);
    rsizes.push_back(t2.size(d));
  }
  return t1.permute(p1)
      .reshape({size1, csize})
      .mm(t2.permute(p2).reshape({csize, size2}))
      .reshape(rsizes);
}

Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  EMBER_CHECK(self.size(-1) == other.size(-1),
              "inner() the last dimension must match on both input tensors but got shapes ",
              sizes_str(self.sizes()), " and ", sizes_str(other.sizes()));
  return tensordot(self, other, {-1}, {-1});
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta_,
             const Scalar& alpha_) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1,
              "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(), ", ",
              vec.dim());
  const int64_t self_len = self.dim() == 0 ? 1 : self.size(0);
  EMBER_CHECK(mat.size(1) == vec.size(0) && (self_len == 1 || self_len == mat.size(0)),
              "size mismatch, got ", self_len, ", ", mat.size(0), "x", mat.size(1), ",",
              vec.size(0));
  const ScalarType t = promote_types(mat.dtype(), vec.dtype());
  const Scalar beta = for_dtype(beta_, t), alpha = for_dtype(alpha_, t);
  return detail::record_out_op(
      "addmv", Tensor(), {self, mat, vec},
      [&] { return add_scaled(self, mat.mv(vec), beta, alpha); },
      [&] {
        return OpArgs{beta, alpha};
      });
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  EMBER_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const ScalarType t = promote_types(self.dtype(), promote_types(vec1.dtype(), vec2.dtype()));
  // self is expanded to the product's [n, m], one way (expand's errors, as
  // PyTorch's).
  const DimVector out_sizes{vec1.size(0), vec2.size(0)};
  if (t == kBool) {
    const Tensor prod = alpha.toBool() ? vec1.outer(vec2) : zeros(out_sizes, kBool);
    const Tensor s = self.expand(out_sizes);
    return beta.toBool() ? s.logical_or(prod) : prod;
  }
  if (is_integral(t, false)) {
    EMBER_CHECK(!beta.is_floating_point(),
                "For integral input tensors, argument beta must not be a floating point number.");
    EMBER_CHECK(!alpha.is_floating_point(),
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  return detail::record_out_op(
      "addr", Tensor(), {self, vec1, vec2},
      [&] {
        // (alpha * vec1[i]) * vec2[j] + beta * self, each product rounded in
        // the result's dtype in PyTorch's order (Half and BFloat16 results
        // depend on it). Float and double on the CPU in one pass (three
        // passes took 483 us for a [1024, 1024] result, libtorch 125).
        // The result's layout is the composition's: row-major, unless beta
        // is nonzero and self is laid out column-major (a transposed matrix),
        // where the iterator gives self's layout; other layouts (of a size-1
        // dim) run the composition.
        const bool cpu = self.device().type() == kCPU && vec1.device().type() == kCPU &&
                         vec2.device().type() == kCPU;
        const Tensor s =
            cpu && (t == kFloat || t == kDouble) ? self.to(t).expand(out_sizes) : Tensor();
        const bool read_self = beta.toDouble() != 0;
        const int64_t st0 = s.defined() ? s.strides()[0] : 0;
        const int64_t st1 = s.defined() ? s.strides()[1] : 0;
        const bool by_rows = !read_self || st0 == 0 || st1 == 0 || st0 >= st1;
        const bool by_columns = !by_rows && out_sizes[0] > 1 && out_sizes[1] > 1;
        if (s.defined() && (by_rows || by_columns)) {
          const Tensor v1 = vec1.to(t);
          const Tensor v2 = vec2.to(t).contiguous();
          const Tensor out = by_columns ? empty({out_sizes[1], out_sizes[0]}, v1.options()).t()
                                        : empty(out_sizes, v1.options());
          EMBER_DISPATCH_FLOAT_DOUBLE(t, "addr_cpu", [&] {
            detail::addr_cpu(out.data_ptr<scalar_t>(), s.data_ptr<scalar_t>(), st0, st1,
                             v1.data_ptr<scalar_t>(), v1.strides()[0], v2.data_ptr<scalar_t>(),
                             out_sizes[0], out_sizes[1], static_cast<scalar_t>(beta.toDouble()),
                             static_cast<scalar_t>(alpha.toDouble()), read_self, by_columns);
          });
          return out;
        }
        const Tensor v1 = vec1.to(t);
        const Tensor prod = (alpha.toDouble() == 1 ? v1 : v1 * alpha).outer(vec2.to(t));
        return add_scaled(self.expand(out_sizes).to(t), prod, beta, 1);
      },
      [&] {
        return OpArgs{beta, alpha};
      });
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta_,
              const Scalar& alpha_) {
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(batch1.size(0) == batch2.size(0),
              "batch1 and batch2 must have same number of batches, got ", batch1.size(0), " and ",
              batch2.size(0));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (",
              batch1.size(1), "x", batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2),
              ")");
  EMBER_CHECK(self.dtype() == batch1.dtype() && self.dtype() == batch2.dtype(),
              "self and mat2 must have the same dtype");
  const int64_t b = batch1.size(0), n = batch1.size(1), m = batch1.size(2), p = batch2.size(2);
  const Scalar beta = for_dtype(beta_, self.dtype()), alpha = for_dtype(alpha_, self.dtype());
  return detail::record_out_op(
      "addbmm", Tensor(), {self, batch1, batch2},
      [&] {
        // sum_b batch1[b] @ batch2[b] is one product: [n, b*m] @ [b*m, p].
        const Tensor prod =
            b == 0 || m == 0
                ? zeros({n, p}, self.options())
                : batch1.transpose(0, 1).reshape({n, b * m}).mm(batch2.reshape({b * m, p}));
        // self broadcast to [n, p] (expand's errors, as PyTorch's).
        return add_scaled(self.expand({n, p}), prod, beta, alpha);
      },
      [&] {
        return OpArgs{beta, alpha};
      });
}

Tensor matrix_power(const Tensor& self, int64_t n) {
  EMBER_CHECK(self.dim() >= 2,
              "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(self.size(-1) == self.size(-2),
              "linalg.matrix_power: A must be batches of square matrices, but they are ",
              self.size(-2), " by ", self.size(-1), " matrices");
  // A^-k = (A^-1)^k, as PyTorch (inverse refuses integer dtypes).
  if (n < 0) return matrix_power(linalg_inv(self), -n);
  // 1.13 writes the identity into a clone of A, so the result stays in A's
  // graph (CopyBackwards, a zero gradient for A).
  if (n == 0) {
    return self.clone(MemoryFormat::Contiguous)
        .copy_(eye(self.size(-1), self.options()).expand(self.sizes()));
  }
  if (n == 1) return self.clone(MemoryFormat::Contiguous);
  if (n == 2) return self.matmul(self);
  if (n == 3) return self.matmul(self).matmul(self);
  // PyTorch's binary decomposition of n, from the least significant bit, so
  // that the products (and their rounding) are the same.
  Tensor z, result;
  while (n > 0) {
    const bool bit = n % 2 == 1;
    n /= 2;
    z = z.defined() ? z.matmul(z) : self;
    if (bit) result = result.defined() ? result.matmul(z) : z;
  }
  return result;
}

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim() + 1;
  const int64_t d1 = detail::wrap_dim(dim1, n), d2 = detail::wrap_dim(dim2, n);
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t len = self.size(-1) + std::abs(offset);
  DimVector sizes(self.sizes().begin(), self.sizes().end() - 1);
  sizes.insert(sizes.begin() + std::min(d1, d2), len);
  sizes.insert(sizes.begin() + std::max(d1, d2), len);
  return detail::record_out_op(
      "diag_embed", Tensor(), {self},
      [&] {
        Tensor r = zeros(sizes, self.options());
        r.diagonal(offset, d1, d2).copy_(self);
        return r;
      },
      [&] {
        return OpArgs{Scalar(offset), Scalar(d1), Scalar(d2)};
      });
}

Tensor diagflat(const Tensor& self, int64_t offset) {
  return self.contiguous().view({-1}).diag(offset);
}

// --- scatter into a copy ---------------------------------------------------------

namespace {
// A copy of self (its layout kept) with `part(copy)` overwritten by src.
template <typename Part>
Tensor scatter_copy(const Tensor& self, const Tensor& src, Part&& part) {
  const Tensor probe = part(self);
  EMBER_CHECK(probe.sizes() == src.sizes(),
              "expected src to have a size equal to the slice of self. src size = ",
              sizes_str(src.sizes()), ", slice size = ", sizes_str(probe.sizes()));
  Tensor r = self.clone();
  part(r).copy_(src);
  return r;
}
}  // namespace

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const int64_t d = detail::wrap_dim(dim, self.dim());
  const int64_t size = self.size(d);
  EMBER_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                    " out of range for tensor of size ", sizes_str(self.sizes()), " at dimension ",
                    d);
  const int64_t i = index < 0 ? index + size : index;
  return detail::record_out_op(
      "select_scatter", Tensor(), {self, src},
      [&] { return scatter_copy(self, src, [&](const Tensor& t) { return t.select(d, i); }); },
      [&] {
        return OpArgs{Scalar(d), Scalar(i)};
      });
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  const int64_t d = detail::wrap_dim(dim, self.dim());
  EMBER_CHECK(step > 0, "slice step must be positive");
  // The bounds as slice clamps them, recorded for the derivative.
  const int64_t size = self.size(d);
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::min(std::max<int64_t>(s, 0), size);
  e = std::min(std::max(e, s), size);
  return detail::record_out_op(
      "slice_scatter", Tensor(), {self, src},
      [&] {
        return scatter_copy(self, src, [&](const Tensor& t) { return t.slice(d, s, e, step); });
      },
      [&] {
        return OpArgs{Scalar(d), Scalar(s), Scalar(e), Scalar(step)};
      });
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  const int64_t d1 = detail::wrap_dim(dim1, self.dim()), d2 = detail::wrap_dim(dim2, self.dim());
  return detail::record_out_op(
      "diagonal_scatter", Tensor(), {self, src},
      [&] {
        return scatter_copy(self, src, [&](const Tensor& t) { return t.diagonal(offset, d1, d2); });
      },
      [&] {
        return OpArgs{Scalar(offset), Scalar(d1), Scalar(d2)};
      });
}

Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size,
                          IntArrayRef stride, std::optional<int64_t> storage_offset) {
  // PyTorch differentiates only contiguous inputs (Note [as_strided_scatter
  // backward support] in its TensorShape.cpp).
  EMBER_CHECK(!self.requires_grad() || self.is_contiguous(),
              "as_strided_scatter is currently only supported for contiguous inputs");
  return detail::record_out_op(
      "as_strided_scatter", Tensor(), {self, src},
      [&] {
        return scatter_copy(
            self, src, [&](const Tensor& t) { return t.as_strided(size, stride, storage_offset); });
      },
      [&] {
        return OpArgs{DimVector(size.begin(), size.end()), DimVector(stride.begin(), stride.end()),
                      Scalar(storage_offset.value_or(-1))};
      });
}

// --- methods ---------------------------------------------------------------------

Tensor Tensor::tile(IntArrayRef dims) const { return ::ember::tile(*this, dims); }
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ::ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ::ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::ravel() const { return ::ember::ravel(*this); }
Tensor Tensor::fliplr() const { return ::ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ::ember::flipud(*this); }
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ::ember::rot90(*this, k, dims); }
std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ::ember::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return ::ember::tensor_split(*this, indices, dim);
}
std::vector<Tensor> Tensor::tensor_split(const Tensor& tensor_indices_or_sections,
                                         int64_t dim) const {
  return ::ember::tensor_split(*this, tensor_indices_or_sections, dim);
}
std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  return ::ember::hsplit(*this, sections);
}
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  return ::ember::hsplit(*this, indices);
}
std::vector<Tensor> Tensor::vsplit(int64_t sections) const {
  return ::ember::vsplit(*this, sections);
}
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const {
  return ::ember::vsplit(*this, indices);
}
std::vector<Tensor> Tensor::dsplit(int64_t sections) const {
  return ::ember::dsplit(*this, sections);
}
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const {
  return ::ember::dsplit(*this, indices);
}
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ::ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::broadcast_to(IntArrayRef size) const { return expand(size); }
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
Tensor& Tensor::swapaxes_(int64_t axis0, int64_t axis1) const { return transpose_(axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
Tensor& Tensor::swapdims_(int64_t dim0, int64_t dim1) const { return transpose_(dim0, dim1); }
Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  return ::ember::movedim(*this, source, destination);
}
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return ::ember::movedim(*this, source, destination);
}
Tensor Tensor::moveaxis(int64_t source, int64_t destination) const {
  return movedim(source, destination);
}
std::vector<Tensor> Tensor::unsafe_chunk(int64_t chunks, int64_t dim) const {
  return ::ember::unsafe_chunk(*this, chunks, dim);
}
std::vector<Tensor> Tensor::unsafe_split(int64_t split_size, int64_t dim) const {
  return ::ember::unsafe_split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::unsafe_split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  return ::ember::unsafe_split_with_sizes(*this, split_sizes, dim);
}
Tensor Tensor::as_strided_scatter(const Tensor& src, IntArrayRef size, IntArrayRef stride,
                                  std::optional<int64_t> storage_offset) const {
  return ::ember::as_strided_scatter(*this, src, size, stride, storage_offset);
}
Tensor Tensor::narrow_copy(int64_t dim, int64_t start, int64_t length) const {
  return ::ember::narrow_copy(*this, dim, start, length);
}

Tensor Tensor::sum_to_size(IntArrayRef size) const {
  // PyTorch's is_expandable_to(size, self.sizes()).
  const int64_t n = dim(), k = size.size();
  bool expandable = k <= n;
  for (int64_t i = 0; expandable && i < k; ++i) {
    const int64_t s = size[k - 1 - i], t = sizes()[n - 1 - i];
    expandable = s == t || s == 1;
  }
  EMBER_CHECK(expandable, "size {", sizes_str(size), "} is not expandable to size {",
              sizes_str(sizes()), "}.");
  DimVector reduce;
  const int64_t lead = n - k;
  for (int64_t i = 0; i < n; ++i) {
    if (i < lead || (size[i - lead] == 1 && sizes()[i] != 1)) reduce.push_back(i);
  }
  if (reduce.empty()) return *this;
  const Tensor r = sum(reduce, /*keepdim=*/true);
  return lead > 0 ? r.view(size) : r;
}

Tensor Tensor::argwhere() const { return ::ember::argwhere(*this); }

Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& options) const {
  return zeros(size, detail::like_options(*this, options));
}
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& options) const {
  return ones(size, detail::like_options(*this, options));
}
Tensor Tensor::new_full(IntArrayRef size, const Scalar& fill_value,
                        const TensorOptions& options) const {
  return full(size, fill_value, detail::like_options(*this, options));
}
Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& options) const {
  return empty(size, detail::like_options(*this, options));
}
Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride,
                                 const TensorOptions& options) const {
  return empty_strided(size, stride, detail::like_options(*this, options));
}

Tensor Tensor::trace() const { return ::ember::trace(*this); }
Tensor Tensor::inner(const Tensor& other) const { return ::ember::inner(*this, other); }
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ::ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                       const Scalar& alpha) const {
  const Scalar b = for_dtype(beta, dtype()), a = for_dtype(alpha, dtype());
  return recorded_inplace(
      "addmv", /*exact_dtype=*/true, *this, {*this, mat, vec},
      [&] { return ::ember::addmv(*this, mat, vec, beta, alpha); },
      [&] {
        return OpArgs{b, a};
      });
}
Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                    const Scalar& alpha) const {
  return ::ember::addr(*this, vec1, vec2, beta, alpha);
}
Tensor& Tensor::addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                      const Scalar& alpha) const {
  return recorded_inplace(
      "addr", /*exact_dtype=*/false, *this, {*this, vec1, vec2},
      [&] { return ::ember::addr(*this, vec1, vec2, beta, alpha); },
      [&] {
        return OpArgs{beta, alpha};
      });
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return ::ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor& Tensor::addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                        const Scalar& alpha) const {
  const Scalar b = for_dtype(beta, dtype()), a = for_dtype(alpha, dtype());
  return recorded_inplace(
      "addbmm", /*exact_dtype=*/true, *this, {*this, batch1, batch2},
      [&] { return ::ember::addbmm(*this, batch1, batch2, beta, alpha); },
      [&] {
        return OpArgs{b, a};
      });
}
Tensor& Tensor::baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                         const Scalar& alpha) const {
  // baddbmm is a composition that may save self (self * beta) for its
  // backward: a recorded self is read through a copy, which writing the
  // result back into self leaves intact.
  // self broadcasts one way, to the product's sizes (expand's errors, as
  // PyTorch's; detached: a check, not part of the graph).
  if (batch1.dim() == 3 && batch2.dim() == 3) {
    detach().expand({batch1.size(0), batch1.size(1), batch2.size(2)});
  }
  const Tensor base = detail::input_requires_grad(*this) ? clone() : *this;
  const Tensor r = ::ember::baddbmm(base, batch1, batch2, beta, alpha);
  EMBER_CHECK(r.sizes() == sizes(), "Bad in-place call: input tensor size ", sizes_str(sizes()),
              " and output tensor size ", sizes_str(r.sizes()), " should match");
  EMBER_CHECK(r.dtype() == dtype(), "Bad in-place call: input tensor dtype ",
              cpp_type_name(dtype()), " and output tensor dtype ", cpp_type_name(r.dtype()),
              " should match");
  return assign_result_(r, "baddbmm_");
}
Tensor Tensor::matrix_power(int64_t n) const { return ::ember::matrix_power(*this, n); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ::ember::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::diagflat(int64_t offset) const { return ::ember::diagflat(*this, offset); }
Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  return ::ember::select_scatter(*this, src, dim, index);
}
Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start,
                             std::optional<int64_t> end, int64_t step) const {
  return ::ember::slice_scatter(*this, src, dim, start, end, step);
}
Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1,
                                int64_t dim2) const {
  return ::ember::diagonal_scatter(*this, src, offset, dim1, dim2);
}

}  // namespace ember
