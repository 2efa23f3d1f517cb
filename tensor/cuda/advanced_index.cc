// The CUDA entry of advanced_index_kernel (tensor/index_kernels.h, Note
// [Advanced indexing on devices]): x[indices] and index_put_ run
// advanced_index.cu's walk; index_put_ with accumulate sorts the indexed
// offsets first (index_put_accumulate.cu) so that its sums do not depend
// on the order threads run in.

#include <climits>
#include <vector>

#include "tensor/cuda/advanced_index_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/cuda/index_launch.h"
#include "tensor/index_kernels.h"

namespace ember {
namespace cuda {
namespace {

using ember::detail::AdvancedIndexLoop;
using ember::detail::AdvancedIndexMode;

// The loop dims `dims` (row-major order) with size-1 dims dropped and
// neighbours merged where every operand steps alike, innermost first (the
// kernels' order). The product of the sizes and the linear order of the
// positions are unchanged.
struct Coalesced {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  // one per operand
  int ndim() const { return static_cast<int>(sizes.size()); }
};

Coalesced coalesce(const DimVector& sizes, const std::vector<const DimVector*>& operands,
                   const std::vector<int64_t>& dims) {
  Coalesced c;
  c.strides.resize(operands.size());
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    const int64_t size = sizes[*it];
    if (size == 1) continue;
    bool merge = !c.sizes.empty();
    for (size_t t = 0; t < operands.size() && merge; ++t) {
      merge = c.strides[t].back() * c.sizes.back() == (*operands[t])[*it];
    }
    if (merge) {
      c.sizes.back() *= size;
      continue;
    }
    c.sizes.push_back(size);
    for (size_t t = 0; t < operands.size(); ++t) c.strides[t].push_back((*operands[t])[*it]);
  }
  EMBER_CHECK(c.ndim() <= kernels::kMaxLoopDims, "CUDA indexing supports at most ",
              kernels::kMaxLoopDims, " non-collapsible dims");
  return c;
}

std::vector<int64_t> dim_range(int64_t begin, int64_t end) {
  std::vector<int64_t> d;
  for (int64_t k = begin; k < end; ++k) d.push_back(k);
  return d;
}

// The kernel's loop over `dims`: self and other step with operands 0 and 1
// of `c` when `with_operands` (else they stay at 0), index tensor k with
// operand first_index + k.
kernels::AdvancedIndexLoop kernel_loop(const AdvancedIndexLoop& loop, const Coalesced& c,
                                       bool with_operands, size_t first_index) {
  kernels::AdvancedIndexLoop l;
  l.ndim = c.ndim();
  l.nindex = static_cast<int>(loop.indices.size());
  l.check = static_cast<int32_t>(ember::detail::IndexCheck::kOutOfBoundsIndex);
  l.numel = 1;
  for (int d = 0; d < l.ndim; ++d) {
    l.sizes[d] = c.sizes[d];
    l.numel *= c.sizes[d];
    l.self_strides[d] = with_operands ? c.strides[0][d] : 0;
    l.other_strides[d] = with_operands ? c.strides[1][d] : 0;
    for (int k = 0; k < l.nindex; ++k) l.index_strides[k][d] = c.strides[first_index + k][d];
  }
  for (int k = 0; k < l.nindex; ++k) {
    l.index[k] = loop.indices[k].data_ptr<int64_t>();
    l.indexed_sizes[k] = loop.indexed_sizes[k];
    l.indexed_strides[k] = loop.indexed_strides[k];
    l.indexed_dims[k] = loop.indexed_dims[k];
  }
  return l;
}

// Note [Advanced indexing on devices]'s accumulate: keys, sort, sums of runs.
void index_put_accumulate_cuda(const AdvancedIndexLoop& loop, const Tensor& self,
                               const Tensor& values, int device) {
  const int64_t n = static_cast<int64_t>(loop.sizes.size());
  // (1) The indexed part of self's offset for each position of B.
  std::vector<const DimVector*> index_ops;
  for (const DimVector& s : loop.index_strides) index_ops.push_back(&s);
  const Coalesced b = coalesce(loop.sizes, index_ops, dim_range(loop.b_begin, loop.b_end));
  kernels::AdvancedIndexLoop kl = kernel_loop(loop, b, /*with_operands=*/false, 0);
  const int64_t n_b = kl.numel;
  EMBER_CHECK(n_b <= INT_MAX, "index_put_ with accumulate=True on CUDA supports at most ", INT_MAX,
              " index positions, got ", n_b);
  // Keys of valid values are below `sentinel`, which marks the bad ones.
  uint64_t sentinel = 1;
  for (size_t k = 0; k < loop.indices.size(); ++k) {
    if (loop.indexed_sizes[k] > 1) {
      sentinel += static_cast<uint64_t>((loop.indexed_sizes[k] - 1) * loop.indexed_strides[k]);
    }
  }
  int end_bit = 0;
  while (end_bit < 64 && (sentinel >> end_bit) != 0) ++end_bit;
  Tensor buf = empty({4, n_b}, TensorOptions(kLong).device(self.device()));
  int64_t* base = buf.data_ptr<int64_t>();
  uint64_t* keys_in = reinterpret_cast<uint64_t*>(base);
  int64_t* perm_in = base + n_b;
  uint64_t* keys = reinterpret_cast<uint64_t*>(base + 2 * n_b);
  int64_t* perm = base + 3 * n_b;
  kernels::IndexErrorRecord* err = detail::record_for_launch(device);
  detail::check(kernels::launch_index_put_keys(kl, sentinel, keys_in, perm_in, err));
  // (2) Stable sort by key: equal keys keep the order of their positions.
  size_t temp_bytes = 0;
  detail::check(kernels::sort_index_put_keys(nullptr, &temp_bytes, keys_in, keys, perm_in, perm,
                                             static_cast<int>(n_b), end_bit));
  Tensor temp =
      empty({static_cast<int64_t>(temp_bytes) + 1}, TensorOptions(kByte).device(self.device()));
  detail::check(kernels::sort_index_put_keys(temp.data_ptr(), &temp_bytes, keys_in, keys, perm_in,
                                             perm, static_cast<int>(n_b), end_bit));
  // (3) One thread per run and position of the other dims.
  std::vector<int64_t> rest = dim_range(0, loop.b_begin);
  for (int64_t d = loop.b_end; d < n; ++d) rest.push_back(d);
  const Coalesced r = coalesce(loop.sizes, {&loop.self_strides, &loop.other_strides}, rest);
  const Coalesced vb =
      coalesce(loop.sizes, {&loop.other_strides}, dim_range(loop.b_begin, loop.b_end));
  kernels::IndexPutAccumulateLoop al;
  al.ndim = r.ndim();
  for (int d = 0; d < al.ndim; ++d) {
    al.sizes[d] = r.sizes[d];
    al.n_rest *= r.sizes[d];
    al.self_strides[d] = r.strides[0][d];
    al.values_strides[d] = r.strides[1][d];
  }
  al.b_ndim = vb.ndim();
  for (int d = 0; d < al.b_ndim; ++d) {
    al.b_sizes[d] = vb.sizes[d];
    al.b_strides[d] = vb.strides[0][d];
  }
  al.n_b = n_b;
  al.keys = keys;
  al.perm = perm;
  al.sentinel = sentinel;
  al.self = self.data_ptr();
  al.values = values.data_ptr();
  detail::check_launch(kernels::launch_index_put_accumulate(detail::kernel_dtype(self.dtype()), al),
                       "index_put_with_sort_kernel", self.dtype());
}

void advanced_index_cuda(const AdvancedIndexLoop& loop, const Tensor& self, const Tensor& other) {
  EMBER_CHECK(static_cast<int64_t>(loop.indices.size()) <= kernels::kMaxIndexTensors,
              "CUDA indexing supports at most ", kernels::kMaxIndexTensors, " index tensors, got ",
              loop.indices.size());
  const int device = self.device().index();
  detail::DeviceGuard guard(device);
  if (loop.mode == AdvancedIndexMode::kAccumulate) {
    index_put_accumulate_cuda(loop, self, other, device);
    return;
  }
  std::vector<const DimVector*> operands = {&loop.self_strides, &loop.other_strides};
  for (const DimVector& s : loop.index_strides) operands.push_back(&s);
  const Coalesced c =
      coalesce(loop.sizes, operands, dim_range(0, static_cast<int64_t>(loop.sizes.size())));
  kernels::AdvancedIndexLoop l = kernel_loop(loop, c, /*with_operands=*/true, 2);
  l.self = self.data_ptr();
  l.other = other.data_ptr();
  const bool put = loop.mode == AdvancedIndexMode::kPut;
  detail::check_launch(kernels::launch_advanced_index(put, static_cast<int>(self.element_size()), l,
                                                      detail::record_for_launch(device)),
                       put ? "index_put_cuda" : "index_cuda", self.dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(advanced_index_kernel, kCUDA, &cuda::advanced_index_cuda);
}  // namespace detail

}  // namespace ember
