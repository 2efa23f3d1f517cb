#ifndef EMBER_TENSOR_PHILOX_H_
#define EMBER_TENSOR_PHILOX_H_

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11; Random123's philox4x32 with 10 rounds), the counter-based
// engine of PyTorch's CUDA generator. A pure function of a 128-bit counter
// and a 64-bit key, so any element's random bits can be computed
// independently of every other's: Note [Device random numbers] in
// tensor/random.cc. Shared by nvcc (tensor/cuda/random.cu) and the host
// compiler (its known-answer test, philox_test.cc); includes nothing of
// ember.

#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_PHILOX_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define EMBER_PHILOX_HOST_DEVICE inline
#endif

namespace ember {

struct Philox4x32 {
  uint32_t v[4];
};

namespace philox_detail {

constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;  // the golden ratio
constexpr uint32_t kW1 = 0xBB67AE85u;  // sqrt(3) - 1

EMBER_PHILOX_HOST_DEVICE uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
}

EMBER_PHILOX_HOST_DEVICE void round(uint32_t c[4], uint32_t k0, uint32_t k1) {
  uint32_t hi0, hi1;
  const uint32_t lo0 = mulhilo(kM0, c[0], &hi0);
  const uint32_t lo1 = mulhilo(kM1, c[2], &hi1);
  const uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k1;
  c[3] = lo0;
}

}  // namespace philox_detail

// The 4 words Philox4x32-10 gives for counter c[0..3] (c[0] the lowest)
// and key k[0..1].
EMBER_PHILOX_HOST_DEVICE Philox4x32 philox4x32_10(const uint32_t c[4], const uint32_t k[2]) {
  uint32_t x[4] = {c[0], c[1], c[2], c[3]};
  uint32_t k0 = k[0], k1 = k[1];
  for (int r = 0; r < 9; ++r) {
    philox_detail::round(x, k0, k1);
    k0 += philox_detail::kW0;
    k1 += philox_detail::kW1;
  }
  philox_detail::round(x, k0, k1);
  return Philox4x32{{x[0], x[1], x[2], x[3]}};
}

// ember's use of it: the key is the seed, the counter's low 64 bits a
// position within one launch and its high 64 bits the launch's offset
// (Note [Device random numbers]).
EMBER_PHILOX_HOST_DEVICE Philox4x32 philox_draw(uint64_t seed, uint64_t offset,
                                                 uint64_t position) {
  const uint32_t c[4] = {static_cast<uint32_t>(position), static_cast<uint32_t>(position >> 32),
                         static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
  const uint32_t k[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  return philox4x32_10(c, k);
}

}  // namespace ember

#endif  // EMBER_TENSOR_PHILOX_H_
