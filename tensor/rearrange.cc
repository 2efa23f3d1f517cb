// Ops that rearrange data into a new tensor: repeat, flip, roll, tril/triu,
// diag. Each is a view of the input (or of the output) plus one copy_, so
// the elementwise engine does the strided work and the casts.

#include <algorithm>
#include <cstring>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/copy.h"
#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/index_kernels.h"
#include "tensor/parallel.h"
#include "tensor/shape.h"

namespace ember {

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(triangle_kernel, TriangleKernelFn);
}  // namespace detail

namespace {

using detail::make_view;
using detail::wrap_dim;

// Note [Flip by rows]: flip of a contiguous CPU tensor. copy_ of the
// negative-stride view walks a flipped last dim one element at a time
// (fliplr of a [256, 256] double tensor took 102 us, libtorch 45). Here the
// dims merge where they can (adjacent dims flipped alike), and each output
// row is its source row, reversed when the last dim is flipped: a loop GCC
// vectorizes with permutes, or a memcpy. The work splits over output
// elements, so that a 1-d flip runs on every thread too.
template <typename T>
void flip_rows(const T* src, T* dst, const DimVector& sizes, const std::vector<bool>& flipped,
               int64_t numel) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const int64_t inner = sizes[nd - 1];
  const bool reverse = flipped[nd - 1];
  parallel_for(0, numel, kGrainSize, [&](int64_t begin, int64_t end) {
    int64_t pos = begin;
    while (pos < end) {
      const int64_t row = pos / inner, col = pos % inner;
      const int64_t len = std::min(inner - col, end - pos);
      int64_t rem = row, src_row = 0, mult = 1;
      for (int64_t d = nd - 2; d >= 0; --d) {
        int64_t i = rem % sizes[d];
        rem /= sizes[d];
        if (flipped[d]) i = sizes[d] - 1 - i;
        src_row += i * mult;
        mult *= sizes[d];
      }
      T* o = dst + pos;
      if (reverse) {
        const T* s = src + src_row * inner + (inner - 1 - col);
        for (int64_t j = 0; j < len; ++j) o[j] = s[-j];
      } else {
        std::memcpy(o, src + src_row * inner + col, len * sizeof(T));
      }
      pos += len;
    }
  });
}

// Whether flip_rows took it: a contiguous CPU tensor of a 1-, 2-, 4- or
// 8-byte dtype; `out` is contiguous.
bool flip_contiguous(const Tensor& self, const absl::InlinedVector<bool, 6>& flipped,
                     const Tensor& out) {
  if (!self.is_cpu() || self.is_quantized() || !self.is_contiguous() || !out.is_contiguous()) {
    return false;
  }
  // Merge adjacent dims flipped alike; size-1 dims drop out.
  DimVector sizes;
  std::vector<bool> flips;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t n = self.sizes()[d];
    if (n == 1) continue;
    if (!sizes.empty() && flips.back() == flipped[d]) {
      sizes.back() *= n;
    } else {
      sizes.push_back(n);
      flips.push_back(flipped[d]);
    }
  }
  if (sizes.empty()) return false;
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    flip_rows(static_cast<const T*>(self.data_ptr()), static_cast<T*>(out.data_ptr()), sizes, flips,
              self.numel());
    return true;
  };
  switch (self.element_size()) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    case 8:
      return run(uint64_t{});
    default:
      return false;
  }
}

// tril/triu need a matrix; PyTorch reports a missing one as a bad dim -2.
void check_matrix(const Tensor& t) {
  EMBER_CHECK_INDEX(t.dim() > 0, "Dimension specified as -2 but tensor has no dimensions");
  wrap_dim(-2, t.dim());
}

Tensor contiguous_copy(const Tensor& t) {
  Tensor r = empty(t.sizes(), t.options());
  r.copy_(t);
  return r;
}

// Zeroes, in each matrix of the contiguous `r` (dims -2, -1), the columns
// [lo(i), hi(i)) of row i. All-zero bytes are zero in every dtype.
template <typename Range>
void zero_row_ranges(Tensor& r, const Range& range) {
  const int64_t m = r.size(-2), n = r.size(-1);
  if (r.numel() == 0) return;
  const int64_t rows = r.numel() / n;
  const int64_t esz = r.element_size();
  char* base = static_cast<char*>(r.data_ptr());
  parallel_for(0, rows, std::max<int64_t>(kGrainSize / std::max<int64_t>(n, 1), 1),
               [&](int64_t b, int64_t e) {
                 for (int64_t row = b; row < e; ++row) {
                   int64_t lo, hi;
                   range(row % m, &lo, &hi);
                   lo = std::min(std::max<int64_t>(lo, 0), n);
                   hi = std::min(std::max(hi, lo), n);
                   if (hi > lo) std::memset(base + (row * n + lo) * esz, 0, (hi - lo) * esz);
                 }
               });
}

DimVector dim_vector(IntArrayRef v) { return DimVector(v.begin(), v.end()); }

}  // namespace

// Each op here records itself once (Note [Op recording]): when the input
// requires grad, the op re-enters itself inside the recording scope, where
// the views and copies it makes record nothing.

Tensor Tensor::repeat(IntArrayRef repeats) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "repeat", Tensor(), {*this}, [&] { return repeat(repeats); },
        [&] { return OpArgs{dim_vector(repeats)}; });
  }
  EMBER_CHECK(static_cast<int64_t>(repeats.size()) >= dim(),
              "Number of dimensions of repeat dims can not be smaller than number of dimensions "
              "of tensor");
  const int64_t nd = static_cast<int64_t>(repeats.size());
  const int64_t num_new = nd - dim();
  DimVector padded(num_new, 1);
  padded.insert(padded.end(), sizes().begin(), sizes().end());
  DimVector target(nd);
  bool zero_tensor = false;
  for (int64_t i = 0; i < nd; ++i) {
    target[i] = padded[i] * repeats[i];
    if (repeats[i] == 0) zero_tensor = true;
  }
  if (zero_tensor) return empty(target, options());
  Tensor x = expand(padded);
  Tensor result = empty(target, options());
  if (is_quantized()) result.impl()->set_quant_params(impl_->quant_params());
  // Unfolding the result by each input size gives a view of shape
  // [repeats..., sizes...] into which the input broadcasts.
  Tensor ur = make_view(result, result.sizes(), result.strides(), 0);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t s = x.sizes()[i];
    ur = ur.unfold(i, s, std::max<int64_t>(s, 1));
  }
  ur.copy_(x.expand(ur.sizes()));
  return result;
}

Tensor Tensor::flip(IntArrayRef dims) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "flip", Tensor(), {*this}, [&] { return flip(dims); },
        [&] { return OpArgs{dim_vector(dims)}; });
  }
  absl::InlinedVector<bool, 6> flipped(std::max<int64_t>(dim(), 1), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, dim());
    EMBER_CHECK(!flipped[w], "dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  // A view that walks the flipped dims backwards (negative strides, which
  // only this internal view uses); copy_ then writes it out in order.
  DimVector strides(this->strides().begin(), this->strides().end());
  int64_t offset = storage_offset();
  for (int64_t d = 0; d < dim(); ++d) {
    if (!flipped[d] || sizes()[d] <= 1) continue;
    offset += (sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  Tensor out = empty_like(*this);
  if (numel() == 0) return out;
  if (flip_contiguous(*this, flipped, out)) return out;
  out.copy_(make_view(*this, sizes(), strides, offset));
  return out;
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "roll", Tensor(), {*this}, [&] { return roll(shifts, dims); },
        [&] { return OpArgs{dim_vector(shifts), dim_vector(dims)}; });
  }
  if (dims.size() != 1 || shifts.size() != 1) {
    EMBER_CHECK(!shifts.empty(), "`shifts` required");
    if (dims.empty() && shifts.size() == 1) {  // roll the flattened tensor
      return contiguous().view({numel()}).roll(shifts, {0}).view(sizes());
    }
    EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ",
                shifts.size(), ", dims:", dims.size());
    return roll(shifts.subspan(0, 1), dims.subspan(0, 1))
        .roll(shifts.subspan(1), dims.subspan(1));
  }
  const int64_t d = dims[0];
  EMBER_CHECK_INDEX(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  if (numel() == 0) return clone();
  const int64_t size = this->size(d);
  int64_t start = (size - shifts[0]) % size;
  if (start < 0) start += size;  // C++'s % keeps the sign; Python's does not
  std::vector<Tensor> parts = {narrow(d, start, size - start), narrow(d, 0, start)};
  return cat(parts, d);
}

Tensor& Tensor::tril_(int64_t diagonal) const { return assign_result_(tril(diagonal), "tril_"); }
Tensor& Tensor::triu_(int64_t diagonal) const { return assign_result_(triu(diagonal), "triu_"); }
Tensor Tensor::tril(int64_t diagonal) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "tril", Tensor(), {*this}, [&] { return tril(diagonal); },
        [&] { return OpArgs{Scalar(diagonal)}; });
  }
  check_matrix(*this);
  Tensor r = contiguous_copy(*this);
  if (!r.is_cpu()) {  // Note [Kernel tables]
    detail::triangle_kernel(r.device())(r, diagonal, /*lower=*/true);
    return r;
  }
  // Row i keeps columns j <= i + diagonal.
  zero_row_ranges(r, [diagonal, n = size(-1)](int64_t i, int64_t* lo, int64_t* hi) {
    *lo = i + diagonal + 1;
    *hi = n;
  });
  return r;
}

Tensor Tensor::triu(int64_t diagonal) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "triu", Tensor(), {*this}, [&] { return triu(diagonal); },
        [&] { return OpArgs{Scalar(diagonal)}; });
  }
  check_matrix(*this);
  Tensor r = contiguous_copy(*this);
  if (!r.is_cpu()) {  // Note [Kernel tables]
    detail::triangle_kernel(r.device())(r, diagonal, /*lower=*/false);
    return r;
  }
  // Row i keeps columns j >= i + diagonal.
  zero_row_ranges(r, [diagonal](int64_t i, int64_t* lo, int64_t* hi) {
    *lo = 0;
    *hi = i + diagonal;
  });
  return r;
}

Tensor Tensor::diag(int64_t diagonal) const {
  if (detail::should_record(*this)) {
    return detail::record_out_op(
        "diag", Tensor(), {*this}, [&] { return diag(diagonal); },
        [&] { return OpArgs{Scalar(diagonal)}; });
  }
  if (dim() == 1) {
    const int64_t n = sizes()[0] + (diagonal >= 0 ? diagonal : -diagonal);
    Tensor r = empty({n, n}, options());
    r.zero_();
    if (numel() > 0) r.diagonal(diagonal).copy_(*this);
    return r;
  }
  EMBER_CHECK(dim() == 2, "matrix or a vector expected");
  return contiguous_copy(this->diagonal(diagonal));
}

Tensor flip(const Tensor& self, IntArrayRef dims) { return self.flip(dims); }
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  return self.roll(shifts, dims);
}
Tensor tril(const Tensor& self, int64_t diagonal) { return self.tril(diagonal); }
Tensor triu(const Tensor& self, int64_t diagonal) { return self.triu(diagonal); }
Tensor diag(const Tensor& self, int64_t diagonal) { return self.diag(diagonal); }

}  // namespace ember
