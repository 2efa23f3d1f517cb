#include "nn/functional/padding.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/autograd_hook.h"
#include "tensor/nn_util.h"
#include "tensor/record_function.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

// Negative padding may crop a dim to nothing, not below.
void check_output_size(int64_t n, int64_t before, int64_t after, int64_t dim) {
  EMBER_CHECK(n + before + after >= 0, "The input size ", n, ", plus negative padding ", before,
              " and ", after, " resulted in a negative output size, which is invalid. Check dimension ",
              dim, " of your input.");
}

// Cuts the negative sides off `dim` and leaves only the positive padding.
Tensor crop_negative(const Tensor& x, int64_t dim, int64_t* before, int64_t* after) {
  if (*before >= 0 && *after >= 0) return x;
  const int64_t start = *before < 0 ? -*before : 0;
  const int64_t stop = *after < 0 ? x.size(dim) + *after : x.size(dim);
  *before = std::max<int64_t>(*before, 0);
  *after = std::max<int64_t>(*after, 0);
  return x.narrow(dim, start, stop - start);
}

// Constant mode, one dim: crop a negative side, then add blocks of `value`.
Tensor pad_constant_dim(Tensor x, int64_t dim, int64_t before, int64_t after, double value) {
  check_output_size(x.size(dim), before, after, dim);
  x = crop_negative(x, dim, &before, &after);
  std::vector<Tensor> parts;
  auto block = [&](int64_t len) {
    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
    shape[dim] = len;
    parts.push_back(full(shape, value, x.options()));
  };
  if (before > 0) block(before);
  parts.push_back(x);
  if (after > 0) block(after);
  return parts.size() == 1 ? x : cat(parts, dim);
}

// Reflect and replicate, one dim: output position j reads input position
// idx(j - before). `index`, when given, receives the positions read.
Tensor pad_indexed_dim(Tensor x, int64_t dim, int64_t before, int64_t after, PadMode mode,
                       Tensor* index = nullptr) {
  const int64_t n = x.size(dim);
  const int64_t out = n + before + after;
  std::vector<int64_t> idx(out > 0 ? out : 0);
  for (int64_t j = 0; j < out; ++j) {
    int64_t i = j - before;
    if (mode == kReflect) {
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    } else {
      i = i < 0 ? 0 : i >= n ? n - 1 : i;
    }
    idx[j] = i;
  }
  Tensor positions = tensor(idx).to(x.device());
  if (index != nullptr) *index = positions;
  return x.index_select(dim, positions);
}

// Circular, as 1.13's _pad_circular builds it (so that autograd records
// its chain of CopySlices / SliceBackward0 nodes): an empty result, the
// input (cropped where a pad is negative) copied into its middle, then per
// dim, last first, the left pad copied from the right end of what is there
// and the right pad from the left end (corners are written more than once).
// `p` is checked: one (before, after) pair per dim after [N, C].
Tensor pad_circular(const Tensor& input, const std::vector<int64_t>& p) {
  const int64_t nd = static_cast<int64_t>(p.size()) / 2;
  std::vector<int64_t> out_shape(input.sizes().begin(), input.sizes().end());
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = input.dim() - 1 - i;
    out_shape[dim] += p[2 * i] + p[2 * i + 1];
  }
  Tensor out = input.new_empty(out_shape);
  Tensor out_slice = out, in_slice = input;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = input.dim() - 1 - i;
    const int64_t l = p[2 * i], r = p[2 * i + 1];
    out_slice =
        out_slice.slice(dim, std::max<int64_t>(l, 0), out_shape[dim] - std::max<int64_t>(r, 0));
    in_slice =
        in_slice.slice(dim, std::max<int64_t>(-l, 0), input.size(dim) - std::max<int64_t>(-r, 0));
  }
  out_slice.copy_(in_slice);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = input.dim() - 1 - i;
    const int64_t l = p[2 * i], r = p[2 * i + 1];
    const int64_t size = out_shape[dim];
    if (l > 0) {
      out.slice(dim, 0, l).copy_(
          out.slice(dim, size - l - std::max<int64_t>(r, 0), size - std::max<int64_t>(r, 0)));
    }
    if (r > 0) {
      out.slice(dim, size - r, size)
          .copy_(out.slice(dim, std::max<int64_t>(l, 0), std::max<int64_t>(l, 0) + r));
    }
  }
  return out;
}

// Note [Pads are single nodes]: PyTorch records a pad as one node
// (ConstantPadNdBackward0, ReflectionPad2DBackward0, ...); ember computes it
// from narrow / cat / index_select with recording suspended and records that
// node, whose derivative (autograd/derivatives/nn.cc) crops or pads the
// gradient back (constant) or adds it into the positions each output read
// (reflect, replicate: the index tensors are the node's other inputs).
const char* indexed_pad_node(PadMode mode, int64_t npad) {
  static const char* const kReflection[] = {"reflection_pad1d", "reflection_pad2d",
                                         "reflection_pad3d"};
  static const char* const kReplication[] = {"replication_pad1d", "replication_pad2d",
                                           "replication_pad3d"};
  return mode == kReflect ? kReflection[npad - 1] : kReplication[npad - 1];
}

}  // namespace

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const std::vector<int64_t>& p = options.pad();
  const PadMode mode = options.mode();
  EMBER_CHECK(p.size() % 2 == 0, "Padding length must be divisible by 2");
  const int64_t ndim = input.dim();
  EMBER_CHECK(static_cast<int64_t>(p.size()) / 2 <= ndim, "Padding length too large");
  const int64_t npad = static_cast<int64_t>(p.size()) / 2;
  if (mode == kConstant) {
    profiler::RecordFunction prof_range("constant_pad_nd", profiler::RangeKind::kOp, input);
    detail::OpScope scope(input);  // Note [Pads are single nodes]
    Tensor x = input;
    for (int64_t k = 0; k < npad; ++k) {
      x = pad_constant_dim(x, ndim - 1 - k, p[2 * k], p[2 * k + 1], options.value());
    }
    // A new tensor in the input's suggest_memory_format, as 1.13's
    // constant_pad_nd (a crop alone would otherwise be a view of the input,
    // and cat's blocks make the result contiguous).
    const MemoryFormat f = input.suggest_memory_format();
    if (x.unsafeGetTensorImpl()->storage() == input.unsafeGetTensorImpl()->storage()) {
      x = x.clone(f);
    } else if (!x.is_contiguous(f)) {
      x = x.contiguous(f);
    }
    if (scope.active()) {
      scope.record("constant_pad_nd", {input}, {x},
                   {DimVector(p.begin(), p.end()), Scalar(options.value())});
    }
    return x;
  }
  EMBER_CHECK(options.value() == 0, "Padding mode \"", pad_mode_name(mode),
              "\" doesn't take in value argument");
  if (mode == kCircular) {  // batched input only in PyTorch 1.13
    EMBER_CHECK(ndim >= 3 && static_cast<int64_t>(p.size()) == 2 * (ndim - 2),
                "Invalid padding size, expected ", 2 * (ndim - 2), " but got ", p.size());
  }
  EMBER_CHECK(npad >= 1 && npad <= 3 && (ndim == npad + 1 || ndim == npad + 2),
              "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  if (mode != kCircular) {
    // Every dim but a batch dim must be non-empty.
    bool ok = true;
    for (int64_t d = ndim - npad - 1; d < ndim; ++d) ok = ok && input.size(d) != 0;
    EMBER_CHECK(ok, "Expected ", npad + 1, "D or ", npad + 2,
                "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
                "for input, but got: ",
                detail::bracketed(input.sizes()));
  }
  for (int64_t k = 0; k < npad; ++k) {
    const int64_t dim = ndim - 1 - k;
    const int64_t n = input.size(dim);
    const int64_t before = p[2 * k], after = p[2 * k + 1];
    if (mode == kReflect) {
      EMBER_CHECK(before < n && after < n,
                  "Argument #4: Padding size should be less than the corresponding input "
                  "dimension, but got: padding (",
                  before, ", ", after, ") at dimension ", dim, " of input ",
                  detail::bracketed(input.sizes()));
    } else if (mode == kCircular) {
      EMBER_CHECK(before <= n && after <= n, "Padding value causes wrapping around more than once.");
    }
    check_output_size(n, before, after, dim);
    if (mode == kCircular) {
      // A pad longer than what a negative pad leaves would copy from the
      // result to an overlapping part of it (1.13 raises), or, with nothing
      // left, from uninitialized memory (1.13 returns it).
      const int64_t left = n - std::max<int64_t>(-before, 0) - std::max<int64_t>(-after, 0);
      EMBER_CHECK(left > 0 || n + before + after <= 0, "Padding of ", pad_mode_name(mode),
                  " mode cannot fill dimension ", dim, ": nothing is left of it to copy");
      EMBER_CHECK(left <= 0 || (before <= left && after <= left),
                  "unsupported operation: some elements of the input tensor and the written-to "
                  "tensor refer to a single memory location. Please clone() the tensor before "
                  "performing the operation.");
    }
  }
  if (mode == kCircular) {
    profiler::RecordFunction prof_range("_pad_circular", profiler::RangeKind::kOp, input);
    return pad_circular(input, p);
  }
  // Note [Pads are single nodes]
  profiler::RecordFunction prof_range(indexed_pad_node(mode, npad), profiler::RangeKind::kOp,
                                      input);
  detail::OpScope scope(input);
  std::vector<Tensor> indices{input};
  Tensor x = input;
  for (int64_t k = 0; k < npad; ++k) {
    indices.emplace_back();
    x = pad_indexed_dim(x, ndim - 1 - k, p[2 * k], p[2 * k + 1], mode, &indices.back());
  }
  if (scope.active()) scope.record_list(indexed_pad_node(mode, npad), indices, {x});
  return x;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
