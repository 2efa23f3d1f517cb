// gather / scatter_ / index_select / index_copy_ / index_fill_ / take (one
// walk, IndexLoop, that moves bytes: instantiated per element size, Note
// [CUDA kernels by element size]) and tril / triu. One thread per position;
// each checks its index value on the device (Note [Device-side index
// checks], index_ops.cc).

#include "tensor/cuda/index.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T, IndexMode kMode>
__global__ void index_move_kernel(IndexLoop l, T value, IndexErrorRecord* err) {
  T* dst = static_cast<T*>(l.dst);
  const T* src = static_cast<const T*>(l.src);
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < l.numel;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t off[3];
    index_offsets(l, i, off);
    int64_t v;
    if (!read_index(l, off[1], err, &v)) continue;
    if constexpr (kMode == IndexMode::kGather) {
      dst[off[0]] = src[off[2] + v * l.dim_stride];
    } else if constexpr (kMode == IndexMode::kScatter) {
      dst[off[0] + v * l.dim_stride] = src[off[2]];
    } else {
      dst[off[0] + v * l.dim_stride] = value;
    }
  }
}

template <typename T>
cudaError_t move_as(IndexMode mode, const IndexLoop& l, ScalarBits value, IndexErrorRecord* err) {
  const unsigned grid = grid_for(l.numel);
  switch (mode) {
    case IndexMode::kGather:
      index_move_kernel<T, IndexMode::kGather>
          <<<grid, kBlockThreads, 0, current_stream()>>>(l, T{}, err);
      break;
    case IndexMode::kScatter:
      index_move_kernel<T, IndexMode::kScatter>
          <<<grid, kBlockThreads, 0, current_stream()>>>(l, T{}, err);
      break;
    case IndexMode::kFill:
      index_move_kernel<T, IndexMode::kFill>
          <<<grid, kBlockThreads, 0, current_stream()>>>(l, from_bits<T>(value), err);
      break;
  }
  return cudaGetLastError();
}

template <typename T>
__global__ void triangle_kernel(T* r, int64_t total, int64_t m, int64_t n, int64_t diagonal,
                                bool lower) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t col = i % n, row = (i / n) % m;
    if (lower ? col > row + diagonal : col < row + diagonal) r[i] = T{};
  }
}

}  // namespace

cudaError_t launch_index_move(IndexMode mode, int elem_size, const IndexLoop& l, ScalarBits value,
                              IndexErrorRecord* err) {
  if (l.numel == 0) return cudaSuccess;
  switch (elem_size) {
    case 1:
      return move_as<uint8_t>(mode, l, value, err);
    case 2:
      return move_as<uint16_t>(mode, l, value, err);
    case 4:
      return move_as<uint32_t>(mode, l, value, err);
    case 8:
      return move_as<uint64_t>(mode, l, value, err);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t launch_triangle(int elem_size, void* r, int64_t batch, int64_t m, int64_t n,
                            int64_t diagonal, bool lower) {
  const int64_t total = batch * m * n;
  if (total == 0) return cudaSuccess;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    triangle_kernel<T><<<grid_for(total), kBlockThreads, 0, current_stream()>>>(
        static_cast<T*>(r), total, m, n, diagonal, lower);
    return cudaGetLastError();
  };
  switch (elem_size) {
    case 1:
      return run(Tag<uint8_t>{});
    case 2:
      return run(Tag<uint16_t>{});
    case 4:
      return run(Tag<uint32_t>{});
    case 8:
      return run(Tag<uint64_t>{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
