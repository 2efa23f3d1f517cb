#ifndef EMBER_TENSOR_CUDA_TOPK_SELECT_H_
#define EMBER_TENSOR_CUDA_TOPK_SELECT_H_

// The small-k selection of topk.cu (Note [Small-k topk] there), host and
// device code so that topk_select_test.cc checks it on every machine.
// Candidates are (key, position) pairs with sort.cu's order-preserving
// keys; the pair order (key, then position) is the stable sort's, so the
// k smallest pairs are exactly the first k columns of a sorted row.

#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_TOPK_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define EMBER_TOPK_HOST_DEVICE inline
#endif

namespace ember {
namespace cuda {
namespace topk {

// Up to this many columns take the small-k path.
constexpr int kMaxK = 16;

struct Cand {
  uint64_t key;
  int64_t pos;
};

// Sorts after every real candidate (a real one has pos < INT64_MAX).
EMBER_TOPK_HOST_DEVICE Cand sentinel() { return Cand{~uint64_t{0}, INT64_MAX}; }

EMBER_TOPK_HOST_DEVICE bool less(const Cand& a, const Cand& b) {
  return a.key < b.key || (a.key == b.key && a.pos < b.pos);
}

// list[0..k) is sorted; c replaces the largest entry if it is smaller, and
// moves to its place.
EMBER_TOPK_HOST_DEVICE void insert(Cand* list, int k, const Cand& c) {
  if (!less(c, list[k - 1])) return;
  int i = k - 1;
  while (i > 0 && less(c, list[i - 1])) {
    list[i] = list[i - 1];
    --i;
  }
  list[i] = c;
}

// out[0..k) = the k smallest of the sorted lists a[0..k) and b[0..k), sorted.
EMBER_TOPK_HOST_DEVICE void merge(const Cand* a, const Cand* b, Cand* out, int k) {
  int i = 0, j = 0;
  for (int o = 0; o < k; ++o) out[o] = less(b[j], a[i]) ? b[j++] : a[i++];
}

}  // namespace topk
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_TOPK_SELECT_H_
