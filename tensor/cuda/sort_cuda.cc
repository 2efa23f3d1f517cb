// The CUDA entries of tensor/sort_kernels.h's tables (sort's rows, nonzero,
// masked_select, masked_scatter_) and cuda::sort_int64_pairs: each prepares
// sort.cu's or compact.cu's buffers from ember's allocator and launches
// them. Only nonzero, masked_select and masked_scatter_ wait for the
// device: they read the number of selected elements back (the output's
// size, or masked_scatter_'s check against source).

#include <vector>

#include "tensor/creation.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/device_sort.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/sort_kernels.h"
#include "tensor/cuda/topk_select.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/sort_kernels.h"

namespace ember {
namespace cuda {
namespace {

// kernels::Scratch from uint8 tensors on `device`, freed (back to the
// caching allocator, ordered on the stream) when the pool goes.
class ScratchPool {
 public:
  explicit ScratchPool(Device device) : device_(device) {}
  kernels::Scratch scratch() { return kernels::Scratch{&ScratchPool::alloc, this}; }

 private:
  static void* alloc(void* ctx, size_t bytes) {
    auto* self = static_cast<ScratchPool*>(ctx);
    self->held_.push_back(empty({static_cast<int64_t>(bytes > 0 ? bytes : 1)},
                                TensorOptions(kByte).device(self->device_)));
    return self->held_.back().data_ptr();
  }
  Device device_;
  std::vector<Tensor> held_;
};

void sort_rows_cuda(const Tensor& rows, bool descending, int64_t take, Tensor& values,
                    Tensor& indices) {
  detail::DeviceGuard guard(rows.device().index());
  const int64_t len = rows.size(-1), n_rows = rows.numel() / len;
  const kernels::DType dtype = detail::kernel_dtype(rows.dtype());
  if (take <= topk::kMaxK && len <= kernels::kTopkMaxLen) {  // Note [Small-k topk]
    detail::check_launch(
        kernels::launch_topk_rows(dtype, rows.data_ptr(), n_rows, len, static_cast<int>(take),
                                  descending, values.data_ptr(), indices.data_ptr<int64_t>()),
        "topk_cuda", rows.dtype());
    return;
  }
  ScratchPool pool(rows.device());
  Tensor v = values, ix = indices;
  if (take != len) {
    v = empty(rows.sizes(), values.options());
    ix = empty(rows.sizes(), indices.options());
  }
  detail::check_launch(
      kernels::launch_sort_rows(dtype, rows.data_ptr(), n_rows, len, descending, v.data_ptr(),
                                ix.data_ptr<int64_t>(), pool.scratch()),
      "sort_cuda", rows.dtype());
  if (take != len) {
    values.copy_(v.narrow(-1, 0, take));
    indices.copy_(ix.narrow(-1, 0, take));
  }
}

// Bits that make an element nonzero: all but the sign for floating dtypes
// (-0.0 is zero, NaN is not).
uint64_t nonzero_mask(ScalarType t) {
  const int bits = 8 * static_cast<int>(element_size(t));
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return is_floating_point(t) ? all >> 1 : all;
}

// The inclusive scan of the tiles' counts of `flags`, and the total (read
// back: the one synchronization).
std::pair<Tensor, int64_t> count_flags(const Tensor& flags, uint64_t mask, ScratchPool& pool) {
  const int64_t n = flags.numel();
  const int64_t tiles = kernels::compact_tiles(n);
  Tensor offsets = empty({tiles}, TensorOptions(kLong).device(flags.device()));
  if (tiles == 0) return {offsets, 0};
  detail::check_launch(
      kernels::launch_count_flags(flags.data_ptr(), static_cast<int>(flags.element_size()), mask, n,
                                  offsets.data_ptr<int64_t>(), pool.scratch()),
      "nonzero_cuda", flags.dtype());
  return {offsets, offsets[tiles - 1].item<int64_t>()};
}

Tensor nonzero_cuda(const Tensor& self, IntArrayRef sizes) {
  detail::DeviceGuard guard(self.device().index());
  ScratchPool pool(self.device());
  auto [offsets, total] = count_flags(self, nonzero_mask(self.dtype()), pool);
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  EMBER_CHECK(ndim <= kernels::kMaxDims, "nonzero is not supported for tensors with more than ",
              kernels::kMaxDims, " dimensions");
  Tensor out = empty({ndim, total}, TensorOptions(kLong).device(self.device()));
  detail::check_launch(kernels::launch_nonzero_coords(
                           self.data_ptr(), static_cast<int>(self.element_size()),
                           nonzero_mask(self.dtype()), self.numel(), offsets.data_ptr<int64_t>(),
                           static_cast<int>(ndim), sizes.data(), total, out.data_ptr<int64_t>()),
                       "nonzero_cuda", self.dtype());
  return out;
}

Tensor masked_select_cuda(const Tensor& self, const Tensor& mask) {
  detail::DeviceGuard guard(self.device().index());
  ScratchPool pool(self.device());
  auto [offsets, total] = count_flags(mask, 0xff, pool);
  Tensor out = empty({total}, self.options());
  if (total > 0) {
    detail::check_launch(
        kernels::launch_masked_compact(false, mask.data_ptr<bool>(), mask.numel(),
                                       offsets.data_ptr<int64_t>(), self.data_ptr(), out.data_ptr(),
                                       static_cast<int>(self.element_size())),
        "masked_select_cuda", self.dtype());
  }
  return out;
}

void masked_scatter_cuda(const Tensor& self, const Tensor& mask, const Tensor& source) {
  detail::DeviceGuard guard(self.device().index());
  ScratchPool pool(self.device());
  auto [offsets, total] = count_flags(mask, 0xff, pool);
  EMBER_CHECK(total <= source.numel(), "Number of elements of source < number of ones in mask");
  if (total == 0) return;
  detail::check_launch(
      kernels::launch_masked_compact(true, mask.data_ptr<bool>(), mask.numel(),
                                     offsets.data_ptr<int64_t>(), source.data_ptr(),
                                     self.data_ptr(), static_cast<int>(self.element_size())),
      "masked_scatter_cuda", self.dtype());
}

}  // namespace

std::tuple<Tensor, Tensor> sort_int64_pairs(const Tensor& keys, const Tensor& values) {
  EMBER_CHECK(keys.is_cuda() && values.is_cuda() && keys.device() == values.device(),
              "sort_int64_pairs: expected keys and values on one CUDA device");
  EMBER_CHECK(keys.dtype() == kLong && values.dtype() == kLong,
              "sort_int64_pairs: expected int64 keys and values");
  EMBER_CHECK(keys.numel() == values.numel(),
              "sort_int64_pairs: expected as many values as keys, got ", values.numel(), " and ",
              keys.numel());
  detail::DeviceGuard guard(keys.device().index());
  ScratchPool pool(keys.device());
  const Tensor k = keys.reshape({-1}).contiguous();
  const Tensor v = values.reshape({-1}).contiguous();
  Tensor k_out = empty({k.numel()}, k.options());
  Tensor v_out = empty({k.numel()}, k.options());
  detail::check_launch(kernels::launch_sort_int64_pairs(
                           k.data_ptr<int64_t>(), v.data_ptr<int64_t>(), k.numel(),
                           k_out.data_ptr<int64_t>(), v_out.data_ptr<int64_t>(), pool.scratch()),
                       "sort_int64_pairs", kLong);
  return {k_out, v_out};
}

}  // namespace cuda

EMBER_REGISTER_KERNEL(sort_rows_kernel, kCUDA, &cuda::sort_rows_cuda);
EMBER_REGISTER_KERNEL(nonzero_kernel, kCUDA, &cuda::nonzero_cuda);
EMBER_REGISTER_KERNEL(masked_select_kernel, kCUDA, &cuda::masked_select_cuda);
EMBER_REGISTER_KERNEL(masked_scatter_kernel, kCUDA, &cuda::masked_scatter_cuda);

}  // namespace ember
