// Note [PyTorch's mode ties] on the device: mode's CPU kernel
// (tensor/sort_ops.cc) returns whichever index std::sort leaves last in a
// run of equal values, so a device kernel that returns the same index must
// sort the same way, step for step. This is libstdc++'s std::sort
// algorithm (introsort: median-of-three quicksort down to runs of 16 with
// a heapsort past 2 * log2(n) levels, then one insertion sort), written for
// one thread over two parallel arrays (keys, indices) and compared with
// values alone. It compiles for the host too, so that
// //tensor/cuda:introsort_test checks it against std::sort without a GPU.
// Bounds checks that libstdc++'s unguarded loops leave out are added where
// a comparator that is not a strict weak order (NaN keys) could run past
// the range; they never fire where std::sort itself stays in bounds.

#ifndef EMBER_TENSOR_CUDA_INTROSORT_H_
#define EMBER_TENSOR_CUDA_INTROSORT_H_

#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember {
namespace introsort {

// The range [0, n) of keys k and their indices ix, sorted by k[i] < k[j].
template <typename K>
struct Pairs {
  K* k;
  int64_t* ix;
  EMBER_HOST_DEVICE bool less(int64_t a, int64_t b) const { return k[a] < k[b]; }
  EMBER_HOST_DEVICE void swap(int64_t a, int64_t b) const {
    const K tk = k[a];
    k[a] = k[b];
    k[b] = tk;
    const int64_t ti = ix[a];
    ix[a] = ix[b];
    ix[b] = ti;
  }
  EMBER_HOST_DEVICE void move(int64_t to, int64_t from) const {
    k[to] = k[from];
    ix[to] = ix[from];
  }
};

// Moves the element at `last` left past the larger ones before it
// (libstdc++'s unguarded insertion, kept inside the array).
template <typename K>
EMBER_HOST_DEVICE void linear_insert(const Pairs<K>& p, int64_t last) {
  const K vk = p.k[last];
  const int64_t vi = p.ix[last];
  int64_t next = last - 1;
  while (next >= 0 && vk < p.k[next]) {
    p.move(last, next);
    last = next;
    --next;
  }
  p.k[last] = vk;
  p.ix[last] = vi;
}

template <typename K>
EMBER_HOST_DEVICE void insertion_sort(const Pairs<K>& p, int64_t first, int64_t last) {
  if (first == last) return;
  for (int64_t i = first + 1; i < last; ++i) {
    if (p.less(i, first)) {
      // Smaller than the first: everything before it moves one right.
      const K vk = p.k[i];
      const int64_t vi = p.ix[i];
      for (int64_t j = i; j > first; --j) p.move(j, j - 1);
      p.k[first] = vk;
      p.ix[first] = vi;
    } else {
      linear_insert(p, i);
    }
  }
}

// The heap of [first, first + len) with the hole at `hole` filled by the
// pair (vk, vi): libstdc++'s __adjust_heap then __push_heap.
template <typename K>
EMBER_HOST_DEVICE void adjust_heap(const Pairs<K>& p, int64_t first, int64_t hole, int64_t len,
                                   K vk, int64_t vi) {
  const int64_t top = hole;
  int64_t child = hole;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (p.k[first + child] < p.k[first + child - 1]) --child;
    p.move(first + hole, first + child);
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    p.move(first + hole, first + child - 1);
    hole = child - 1;
  }
  int64_t parent = (hole - 1) / 2;
  while (hole > top && p.k[first + parent] < vk) {
    p.move(first + hole, first + parent);
    hole = parent;
    parent = (hole - 1) / 2;
  }
  p.k[first + hole] = vk;
  p.ix[first + hole] = vi;
}

// std::partial_sort(first, last, last): make_heap, then sort_heap.
template <typename K>
EMBER_HOST_DEVICE void heap_sort(const Pairs<K>& p, int64_t first, int64_t last) {
  const int64_t len = last - first;
  if (len < 2) return;
  for (int64_t parent = (len - 2) / 2;; --parent) {
    adjust_heap(p, first, parent, len, p.k[first + parent], p.ix[first + parent]);
    if (parent == 0) break;
  }
  while (last - first > 1) {
    --last;
    const K vk = p.k[last];
    const int64_t vi = p.ix[last];
    p.move(last, first);
    adjust_heap(p, first, 0, last - first, vk, vi);
  }
}

// Puts the median of a, b, c (by libstdc++'s comparisons) at `result`.
template <typename K>
EMBER_HOST_DEVICE void median_to_first(const Pairs<K>& p, int64_t result, int64_t a, int64_t b,
                                       int64_t c) {
  int64_t m;
  if (p.less(a, b)) {
    m = p.less(b, c) ? b : (p.less(a, c) ? c : a);
  } else {
    m = p.less(a, c) ? a : (p.less(b, c) ? c : b);
  }
  p.swap(result, m);
}

// The partition of [first + 1, last) around the pivot at first.
template <typename K>
EMBER_HOST_DEVICE int64_t partition_pivot(const Pairs<K>& p, int64_t first, int64_t last) {
  median_to_first(p, first, first + 1, first + (last - first) / 2, last - 1);
  const int64_t pivot = first;
  int64_t lo = first + 1, hi = last;
  while (true) {
    while (lo < last && p.less(lo, pivot)) ++lo;
    --hi;
    while (hi > first && p.less(pivot, hi)) --hi;
    if (!(lo < hi)) return lo;
    p.swap(lo, hi);
    ++lo;
  }
}

constexpr int64_t kThreshold = 16;

// std::sort(first, last) of the n pairs. The recursion on the right part
// becomes an explicit stack (depth at most 2 * log2(n) + 1).
template <typename K>
EMBER_HOST_DEVICE void sort(const Pairs<K>& p, int64_t n) {
  if (n <= 1) return;
  int lg = 0;
  while ((int64_t{1} << (lg + 1)) <= n) ++lg;
  struct Frame {
    int64_t first, last;
    int depth;
  };
  Frame stack[130];
  int top = 0;
  stack[top++] = {0, n, 2 * lg};
  while (top > 0) {
    Frame f = stack[--top];
    // libstdc++'s loop: the right part recursed (pushed; popped next, so
    // the order of work is the recursion's), the left part looped on.
    // The left part is resumed only after the right one finishes.
    if (f.last - f.first <= kThreshold) continue;
    if (f.depth == 0) {
      heap_sort(p, f.first, f.last);
      continue;
    }
    --f.depth;
    const int64_t cut = partition_pivot(p, f.first, f.last);
    stack[top++] = {f.first, cut, f.depth};
    stack[top++] = {cut, f.last, f.depth};
  }
  if (n > kThreshold) {
    insertion_sort(p, 0, kThreshold);
    for (int64_t i = kThreshold; i < n; ++i) linear_insert(p, i);
  } else {
    insertion_sort(p, 0, n);
  }
}

}  // namespace introsort
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_INTROSORT_H_
