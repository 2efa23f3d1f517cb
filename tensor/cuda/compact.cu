// Stream compaction on the device (tensor/cuda/sort_kernels.h): nonzero,
// masked_select and masked_scatter_ pick the flagged elements in order.
// Tiles of kCompactTile elements are counted (one block each), the counts
// scanned (CUB), and each tile then walks its elements again in rounds of
// one per thread, a block-wide scan giving every flagged element its place
// k. Flags are read by element size only (a bit mask decides "nonzero"),
// so each kernel has four instantiations.

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/sort_kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kTileThreads = 256;
constexpr int kTileRounds = static_cast<int>(kCompactTile / kTileThreads);

template <typename F>
__global__ void __launch_bounds__(kTileThreads)
    count_tiles(const F* flags, F mask, int64_t n, int64_t* counts) {
  using Reduce = cub::BlockReduce<int, kTileThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const int64_t base = blockIdx.x * kCompactTile;
  int c = 0;
  for (int r = 0; r < kTileRounds; ++r) {
    const int64_t i = base + r * kTileThreads + threadIdx.x;
    if (i < n && (flags[i] & mask) != 0) ++c;
  }
  const int total = Reduce(tmp).Sum(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// Calls fn(i, k) for each flagged element i of this block's tile, k its
// place among all flagged elements.
template <typename F, typename Fn>
__device__ __forceinline__ void for_each_flagged(const F* flags, F mask, int64_t n,
                                                 const int64_t* tile_offsets, const Fn& fn) {
  using Scan = cub::BlockScan<int, kTileThreads>;
  __shared__ typename Scan::TempStorage tmp;
  const int64_t base = blockIdx.x * kCompactTile;
  int64_t k0 = blockIdx.x == 0 ? 0 : tile_offsets[blockIdx.x - 1];
  for (int r = 0; r < kTileRounds; ++r) {
    const int64_t i = base + r * kTileThreads + threadIdx.x;
    const int f = (i < n && (flags[i] & mask) != 0) ? 1 : 0;
    int before = 0, round_total = 0;
    Scan(tmp).ExclusiveSum(f, before, round_total);
    if (f != 0) fn(i, k0 + before);
    k0 += round_total;
    __syncthreads();  // tmp is reused by the next round
  }
}

struct Coords {
  int ndim;
  int64_t sizes[kMaxDims];
};

template <typename F>
__global__ void __launch_bounds__(kTileThreads)
    nonzero_coords(const F* flags, F mask, int64_t n, const int64_t* tile_offsets, Coords c,
                   int64_t total, int64_t* out) {
  for_each_flagged(flags, mask, n, tile_offsets, [&](int64_t i, int64_t k) {
    for (int d = c.ndim - 1; d >= 0; --d) {
      out[d * total + k] = i % c.sizes[d];
      i /= c.sizes[d];
    }
  });
}

template <typename T>
__global__ void __launch_bounds__(kTileThreads)
    masked_compact(bool scatter, const uint8_t* mask, int64_t n, const int64_t* tile_offsets,
                   const T* src, T* dst) {
  for_each_flagged(mask, uint8_t{0xff}, n, tile_offsets, [&](int64_t i, int64_t k) {
    if (scatter) {
      dst[i] = src[k];
    } else {
      dst[k] = src[i];
    }
  });
}

template <typename F>
const F* as(const void* p) {
  return static_cast<const F*>(p);
}

}  // namespace

cudaError_t launch_count_flags(const void* flags, int elem_size, uint64_t mask, int64_t n,
                               int64_t* tile_offsets, const Scratch& scratch) {
  const int64_t tiles = compact_tiles(n);
  if (tiles == 0) return cudaSuccess;
  switch (elem_size) {
    case 1:
      count_tiles<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint8_t>(flags), static_cast<uint8_t>(mask), n, tile_offsets);
      break;
    case 2:
      count_tiles<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint16_t>(flags), static_cast<uint16_t>(mask), n, tile_offsets);
      break;
    case 4:
      count_tiles<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint32_t>(flags), static_cast<uint32_t>(mask), n, tile_offsets);
      break;
    case 8:
      count_tiles<<<tiles, kTileThreads, 0, current_stream()>>>(as<uint64_t>(flags), mask, n,
                                                                tile_offsets);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  size_t bytes = 0;
  err = cub::DeviceScan::InclusiveSum(nullptr, bytes, tile_offsets, tile_offsets, tiles,
                                      current_stream());
  if (err != cudaSuccess) return err;
  void* temp = scratch.get(bytes > 0 ? bytes : 1);
  return cub::DeviceScan::InclusiveSum(temp, bytes, tile_offsets, tile_offsets, tiles,
                                       current_stream());
}

cudaError_t launch_nonzero_coords(const void* flags, int elem_size, uint64_t mask, int64_t n,
                                  const int64_t* tile_offsets, int ndim, const int64_t* sizes,
                                  int64_t total, int64_t* out) {
  const int64_t tiles = compact_tiles(n);
  if (tiles == 0 || total == 0 || ndim == 0) return cudaSuccess;
  if (ndim > kMaxDims) return cudaErrorInvalidValue;
  Coords c{};
  c.ndim = ndim;
  for (int d = 0; d < ndim; ++d) c.sizes[d] = sizes[d];
  switch (elem_size) {
    case 1:
      nonzero_coords<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint8_t>(flags), static_cast<uint8_t>(mask), n, tile_offsets, c, total, out);
      break;
    case 2:
      nonzero_coords<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint16_t>(flags), static_cast<uint16_t>(mask), n, tile_offsets, c, total, out);
      break;
    case 4:
      nonzero_coords<<<tiles, kTileThreads, 0, current_stream()>>>(
          as<uint32_t>(flags), static_cast<uint32_t>(mask), n, tile_offsets, c, total, out);
      break;
    case 8:
      nonzero_coords<<<tiles, kTileThreads, 0, current_stream()>>>(as<uint64_t>(flags), mask, n,
                                                                   tile_offsets, c, total, out);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_masked_compact(bool scatter, const bool* mask, int64_t n,
                                  const int64_t* tile_offsets, const void* src, void* dst,
                                  int elem_size) {
  const int64_t tiles = compact_tiles(n);
  if (tiles == 0) return cudaSuccess;
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask);
  switch (elem_size) {
    case 1:
      masked_compact<<<tiles, kTileThreads, 0, current_stream()>>>(
          scatter, m, n, tile_offsets, as<uint8_t>(src), static_cast<uint8_t*>(dst));
      break;
    case 2:
      masked_compact<<<tiles, kTileThreads, 0, current_stream()>>>(
          scatter, m, n, tile_offsets, as<uint16_t>(src), static_cast<uint16_t*>(dst));
      break;
    case 4:
      masked_compact<<<tiles, kTileThreads, 0, current_stream()>>>(
          scatter, m, n, tile_offsets, as<uint32_t>(src), static_cast<uint32_t*>(dst));
      break;
    case 8:
      masked_compact<<<tiles, kTileThreads, 0, current_stream()>>>(
          scatter, m, n, tile_offsets, as<uint64_t>(src), static_cast<uint64_t*>(dst));
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
