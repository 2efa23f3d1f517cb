#ifndef EMBER_TENSOR_PARALLEL_H_
#define EMBER_TENSOR_PARALLEL_H_

#include <cstdint>
#include <type_traits>
#include <utility>

namespace ember {

// Note [Thread budget]: ember owns one thread budget. set_num_threads sizes
// ember's pool and OpenBLAS's together, so that BLAS calls and elementwise
// kernels never run more threads than asked (OpenBLAS's own pool beside an
// OpenMP one made a 2-core machine run 4 busy threads).
void set_num_threads(int n);
int get_num_threads();

// Work below this many elements runs on the calling thread.
constexpr int64_t kGrainSize = 32768;

// True inside a parallel_for body (nested calls then run serially).
bool in_parallel_region();

namespace detail {
// Type-erased callable reference: no allocation per call.
class RangeFn {
 public:
  template <typename F>
  RangeFn(const F& f)  // NOLINT
      : obj_(&f), call_([](const void* o, int64_t b, int64_t e) { (*static_cast<const F*>(o))(b, e); }) {}
  void operator()(int64_t b, int64_t e) const { call_(obj_, b, e); }

 private:
  const void* obj_;
  void (*call_)(const void*, int64_t, int64_t);
};
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain_size, RangeFn f);
}  // namespace detail

// Calls f(chunk_begin, chunk_end) over [begin, end) split across the pool;
// chunks are at least grain_size long. Exceptions from f propagate (the
// first one).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  if (end - begin <= grain_size || get_num_threads() == 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  detail::parallel_for_impl(begin, end, grain_size, detail::RangeFn(f));
}

}  // namespace ember

#endif  // EMBER_TENSOR_PARALLEL_H_
