// sort on the device (tensor/cuda/sort_kernels.h): CUB's stable LSD radix
// sort over unsigned keys that order as the CPU's comparisons do
// (tensor/sort.cc). Every dtype maps onto an unsigned key of its own size,
// so CUB's sort is instantiated for four key types only, all with int64
// values (the element's flat position):
//
//   integers   two's complement with the sign bit flipped; bool and uint8 as is
//   floating   sign-magnitude made monotone (negative: all bits flipped;
//              positive: the sign bit set); -0.0 keyed as 0.0; every NaN
//              (either sign, any payload) the largest key. Half and
//              bfloat16 order as the floats they widen to, so their 16 bits
//              key directly.
//   descending the key's bits flipped: NaN first, and the sort's stability
//              still orders equal keys by position, as the CPU does.
//
// Several rows sort at once with the row number above the key's bits (one
// pass of a 64-bit key), or, for 8-byte keys, by a second stable sort on
// the row number. The values are then gathered from the input by position,
// so they are the input's bits (a -0.0 stays -0.0, a NaN keeps its payload).

#include <cub/device/device_radix_sort.cuh>

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/sort_keys.cuh"
#include "tensor/cuda/sort_kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <int N>
struct UnsignedOf;
template <>
struct UnsignedOf<1> {
  using type = uint8_t;
};
template <>
struct UnsignedOf<2> {
  using type = uint16_t;
};
template <>
struct UnsignedOf<4> {
  using type = uint32_t;
};
template <>
struct UnsignedOf<8> {
  using type = uint64_t;
};

// keys[i] = x[i]'s key, with i's row above bit `row_shift` when with_row;
// pos[i] = i.
template <typename U, typename K>
__global__ void make_keys(const U* x, K* keys, int64_t* pos, int64_t n, int64_t len, KeySpec s,
                          bool with_row) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    K k = static_cast<K>(order_key<U>(x[i], s));
    if (with_row) k |= static_cast<K>(i / len) << s.key_bits;
    keys[i] = k;
    pos[i] = i;
  }
}

__global__ void row_keys(const int64_t* pos, uint64_t* keys, int64_t n, int64_t len) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    keys[i] = static_cast<uint64_t>(pos[i] / len);
  }
}

// values[i] = x[pos[i]]; indices[i] = pos[i]'s place in its row.
template <typename U>
__global__ void gather_sorted(const U* x, const int64_t* pos, U* values, int64_t* indices,
                              int64_t n, int64_t len) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t p = pos[i];
    values[i] = x[p];
    indices[i] = p % len;
  }
}

// to_key: keys[i] = in[i]'s key, out[i] = vals[i]; else out[i] = the int64 of keys[i].
__global__ void int64_keys(const int64_t* in, uint64_t* keys, const int64_t* vals, int64_t* pos,
                           int64_t n, bool to_key) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    if (to_key) {
      keys[i] = static_cast<uint64_t>(in[i]) ^ kSign;
      pos[i] = vals[i];
    } else {
      pos[i] = static_cast<int64_t>(keys[i] ^ kSign);
    }
  }
}

// CUB's stable radix sort of (keys, vals) on bits [0, end_bit); the
// DoubleBuffers' current halves hold the result.
template <typename K>
cudaError_t radix_sort(cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<int64_t>& vals, int64_t n,
                       int end_bit, const Scratch& scratch) {
  size_t bytes = 0;
  cudaError_t err =
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, n, 0, end_bit, current_stream());
  if (err != cudaSuccess) return err;
  void* temp = scratch.get(bytes > 0 ? bytes : 1);
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, vals, n, 0, end_bit, current_stream());
}

int bit_width(uint64_t v) {
  int b = 0;
  while (v != 0) {
    ++b;
    v >>= 1;
  }
  return b;
}

template <typename K, typename U>
cudaError_t sort_keys(const U* x, int64_t n, int64_t len, const KeySpec& s, int row_bits,
                      int64_t** sorted_pos, const Scratch& scratch) {
  K* ka = static_cast<K*>(scratch.get(n * sizeof(K)));
  K* kb = static_cast<K*>(scratch.get(n * sizeof(K)));
  int64_t* pa = static_cast<int64_t*>(scratch.get(n * sizeof(int64_t)));
  int64_t* pb = static_cast<int64_t*>(scratch.get(n * sizeof(int64_t)));
  make_keys<U, K>
      <<<grid_for(n), kBlockThreads, 0, current_stream()>>>(x, ka, pa, n, len, s, row_bits > 0);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  cub::DoubleBuffer<K> keys(ka, kb);
  cub::DoubleBuffer<int64_t> pos(pa, pb);
  err = radix_sort(keys, pos, n, s.key_bits + row_bits, scratch);
  *sorted_pos = pos.Current();
  return err;
}

template <typename U>
cudaError_t sort_rows(const U* x, int64_t n_rows, int64_t len, const KeySpec& s, U* values,
                      int64_t* indices, const Scratch& scratch) {
  const int64_t n = n_rows * len;
  const int row_bits = n_rows > 1 ? bit_width(static_cast<uint64_t>(n_rows - 1)) : 0;
  int64_t* pos = nullptr;
  cudaError_t err = cudaSuccess;
  if (row_bits == 0) {
    err = sort_keys<U>(x, n, len, s, 0, &pos, scratch);
  } else if (s.key_bits + row_bits <= 64) {
    err = sort_keys<uint64_t>(x, n, len, s, row_bits, &pos, scratch);
  } else {
    // 8-byte keys: by key, then (stably) by row.
    err = sort_keys<U>(x, n, len, s, 0, &pos, scratch);
    if (err != cudaSuccess) return err;
    uint64_t* ka = static_cast<uint64_t*>(scratch.get(n * sizeof(uint64_t)));
    uint64_t* kb = static_cast<uint64_t*>(scratch.get(n * sizeof(uint64_t)));
    int64_t* pb = static_cast<int64_t*>(scratch.get(n * sizeof(int64_t)));
    row_keys<<<grid_for(n), kBlockThreads, 0, current_stream()>>>(pos, ka, n, len);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    cub::DoubleBuffer<uint64_t> keys(ka, kb);
    cub::DoubleBuffer<int64_t> p(pos, pb);
    err = radix_sort(keys, p, n, row_bits, scratch);
    pos = p.Current();
  }
  if (err != cudaSuccess) return err;
  gather_sorted<U>
      <<<grid_for(n), kBlockThreads, 0, current_stream()>>>(x, pos, values, indices, n, len);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_sort_rows(DType dtype, const void* x, int64_t n_rows, int64_t len,
                             bool descending, void* values, int64_t* indices,
                             const Scratch& scratch) {
  if (n_rows == 0 || len == 0) return cudaSuccess;
  int size = 0;
  const KeySpec s = key_spec(dtype, descending, &size);
  switch (size) {
    case 1:
      return sort_rows(static_cast<const uint8_t*>(x), n_rows, len, s,
                       static_cast<uint8_t*>(values), indices, scratch);
    case 2:
      return sort_rows(static_cast<const uint16_t*>(x), n_rows, len, s,
                       static_cast<uint16_t*>(values), indices, scratch);
    case 4:
      return sort_rows(static_cast<const uint32_t*>(x), n_rows, len, s,
                       static_cast<uint32_t*>(values), indices, scratch);
    case 8:
      return sort_rows(static_cast<const uint64_t*>(x), n_rows, len, s,
                       static_cast<uint64_t*>(values), indices, scratch);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_sort_int64_pairs(const int64_t* keys, const int64_t* values, int64_t n,
                                    int64_t* keys_out, int64_t* values_out,
                                    const Scratch& scratch) {
  if (n == 0) return cudaSuccess;
  uint64_t* ka = static_cast<uint64_t*>(scratch.get(n * sizeof(uint64_t)));
  uint64_t* kb = static_cast<uint64_t*>(scratch.get(n * sizeof(uint64_t)));
  int64_t* pb = static_cast<int64_t*>(scratch.get(n * sizeof(int64_t)));
  int64_keys<<<grid_for(n), kBlockThreads, 0, current_stream()>>>(keys, ka, values, values_out, n,
                                                                  true);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  cub::DoubleBuffer<uint64_t> k(ka, kb);
  cub::DoubleBuffer<int64_t> v(values_out, pb);
  err = radix_sort(k, v, n, 64, scratch);
  if (err != cudaSuccess) return err;
  if (v.Current() != values_out) {
    err = cudaMemcpyAsync(values_out, v.Current(), n * sizeof(int64_t), cudaMemcpyDeviceToDevice,
                          current_stream());
    if (err != cudaSuccess) return err;
  }
  int64_keys<<<grid_for(n), kBlockThreads, 0, current_stream()>>>(nullptr, k.Current(), nullptr,
                                                                  keys_out, n, false);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
