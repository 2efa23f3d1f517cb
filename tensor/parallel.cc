#include "tensor/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tensor/error.h"

extern "C" void openblas_set_num_threads(int);

namespace ember {
namespace {

thread_local bool t_in_parallel = false;

// Note [Spin before sleeping]: handing a job to a sleeping helper, and
// waking the caller when the helper finishes, each cost a futex wake-up:
// 20-100 us on a VM. For a 16M-float sum on 2 threads (~0.7 ms) that was
// the caller waiting ~90 us per call (its real time exceeded its CPU time by
// that much). So a helper that finished a job polls for the next one for
// kSpin before it sleeps on the condition variable, and a caller polls for
// its helpers' chunks for kSpin before it sleeps: what OpenMP runtimes do
// with their spin counts, for a much shorter time. Back-to-back parallel
// regions, the common case in a training step, then never sleep; an idle
// pool stops spinning after the bound. Measured in alternating runs: the
// 2-thread LeNet training step 14.3-16.4 -> 12.4-14.4 ms, the 2-thread sum's
// real time now equals its CPU time (BENCHMARKS.md).
//
// With more threads than cores nobody spins: a spinning thread would hold
// the core the thread it waits for needs.
constexpr auto kSpin = std::chrono::microseconds(200);

// Note [Owned ranges, stolen pieces]: a job's range is cut into
// kPiecesPerThread pieces per thread (each at least the grain), and each
// thread owns one contiguous run of them: it takes its own pieces from the
// front, so it streams through its part of memory as one half would, and
// once its run is empty it steals the other threads' pieces from the back.
// On this 2-vCPU VM a helper often starts late or loses its core for a
// while; with one fixed half per thread the caller then finished its half
// and waited (a third of the 16M-float sums took 1.0-5.0 ms instead of
// 0.7). Stealing takes that tail away: the 2-thread sum's median went
// 1.01 -> 0.86 ms (libtorch 0.93 ms) in alternating runs (BENCHMARKS.md).
// Handing all pieces out from one shared counter, tried before, was 10-30%
// slower: two threads streaming interleaved neighbouring pieces. Callers see
// only ranges of at least the grain, never which thread runs them.
constexpr int64_t kPiecesPerThread = 8;

int hardware_threads() {
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}

std::chrono::microseconds spin_bound(int num_threads) {
  return num_threads <= hardware_threads() ? kSpin : std::chrono::microseconds(0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls ready() until it holds or `bound` has passed; true if it held.
template <typename Ready>
bool spin_until(Ready ready, std::chrono::microseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

int initial_threads() {
  for (const char* var : {"EMBER_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return hardware_threads();
}

// A fixed pool of (num_threads - 1) workers; the caller is the last worker.
// One job runs at a time: callers of parallel_for_impl serialize on job_mu_.
class Pool {
 public:
  // Never destroyed: workers may be parked at exit.
  static Pool& get() {
    Pool* p = current_.load(std::memory_order_acquire);
    if (p != nullptr) return *p;
    while (creating_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    p = current_.load(std::memory_order_acquire);
    if (p == nullptr) {
      p = new Pool();
      current_.store(p, std::memory_order_release);
    }
    creating_.store(false, std::memory_order_release);
    return *p;
  }

  // Note [Pool after fork]: a fork()ed child has only the forking thread,
  // so the parent's workers are gone (and its mutexes may be held by
  // threads that no longer exist). The child drops that pool, leaked, and
  // builds a new one with the parent's thread count on first use, as
  // PyTorch's intra-op pool does. Without this, the caller took every chunk
  // itself: a spawn()ed rank silently ran on one thread.
  static void forget_after_fork() {
    Pool* old = current_.load(std::memory_order_relaxed);
    if (old != nullptr) threads_after_fork_ = old->num_threads();
    current_.store(nullptr, std::memory_order_relaxed);
    creating_.store(false, std::memory_order_relaxed);
  }

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  void set_num_threads(int n) {
    std::lock_guard<std::mutex> job(job_mu_);
    num_threads_.store(n, std::memory_order_relaxed);
    spin_.store(spin_bound(n));
    openblas_set_num_threads(n);
    std::lock_guard<std::mutex> lock(mu_);
    ensure_slots(n);
    while (static_cast<int>(workers_.size()) < n - 1) {
      int id = static_cast<int>(workers_.size());
      workers_.emplace_back([this, id] { worker_loop(id); });
      workers_.back().detach();
    }
  }

  void run(int64_t begin, int64_t end, int64_t grain, detail::RangeFn f) {
    std::lock_guard<std::mutex> job(job_mu_);
    int nt = num_threads();
    int64_t range = end - begin;
    int64_t max_chunks = std::max<int64_t>(1, range / std::max<int64_t>(grain, 1));
    int64_t chunks = std::min<int64_t>(nt, max_chunks);
    if (chunks <= 1) {
      t_in_parallel = true;
      try {
        f(begin, end);
      } catch (...) {
        t_in_parallel = false;
        throw;
      }
      t_in_parallel = false;
      return;
    }
    // Note [Owned ranges, stolen pieces].
    const int64_t pieces = std::min<int64_t>(chunks * kPiecesPerThread, max_chunks);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &f;
      begin_ = begin;
      end_ = end;
      chunks_ = chunks;
      pieces_ = pieces;
      for (int64_t t = 0; t < chunks; ++t) {
        slots_[t].range.store(pack(pieces * t / chunks, pieces * (t + 1) / chunks),
                              std::memory_order_relaxed);
      }
      pending_.store(pieces);
      error_ = nullptr;
      helpers_wanted_.store(static_cast<int>(chunks - 1), std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    work(0);
    // Wait for the chunks other threads took, and for helpers still inside
    // work(), so none of them can read the next job's fields half-written.
    auto done = [&] { return pending_.load() == 0 && active_.load() == 0; };
    spin_until(done, spin_.load(std::memory_order_relaxed));
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, done);
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Pool() {
    int n = threads_after_fork_ > 0 ? threads_after_fork_ : initial_threads();
    num_threads_.store(n);
    spin_.store(spin_bound(n));
    openblas_set_num_threads(n);
    ensure_slots(n);
    for (int i = 0; i < n - 1; ++i) {
      workers_.emplace_back([this, i] { worker_loop(i); });
      workers_.back().detach();
    }
  }

  // Called with no job running.
  void ensure_slots(int n) {
    if (n <= slot_count_) return;
    slots_.reset(new Slot[n]);
    slot_count_ = n;
  }

  // A slot's range of pieces [front, back), packed in one word so that the
  // owner (taking the front) and a thief (taking the back) agree by CAS.
  static uint64_t pack(int64_t front, int64_t back) {
    return static_cast<uint64_t>(front) | (static_cast<uint64_t>(back) << 32);
  }
  // Takes one piece of slot t, the front one if `own` else the back one;
  // -1 when the slot is empty.
  int64_t take(int64_t t, bool own) {
    std::atomic<uint64_t>& r = slots_[t].range;
    uint64_t cur = r.load(std::memory_order_acquire);
    for (;;) {
      const int64_t front = static_cast<int64_t>(cur & 0xffffffffu);
      const int64_t back = static_cast<int64_t>(cur >> 32);
      if (front >= back) return -1;
      const uint64_t next = own ? pack(front + 1, back) : pack(front, back - 1);
      if (r.compare_exchange_weak(cur, next, std::memory_order_acq_rel)) {
        return own ? front : back - 1;
      }
    }
  }

  void run_piece(int64_t piece) {
    const int64_t range = end_ - begin_;
    const int64_t b = begin_ + range * piece / pieces_;
    const int64_t e = begin_ + range * (piece + 1) / pieces_;
    try {
      (*fn_)(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    if (pending_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      done_cv_.notify_all();
    }
  }

  // Runs slot t's pieces front to back, then steals from the back of the
  // other slots until every piece is taken.
  void work(int64_t t) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    for (int64_t piece; (piece = take(t, true)) >= 0;) run_piece(piece);
    for (int64_t k = 1; k < chunks_; ++k) {
      const int64_t victim = (t + k) % chunks_;
      for (int64_t piece; (piece = take(victim, false)) >= 0;) run_piece(piece);
    }
    t_in_parallel = was;
  }

  void worker_loop(int id) {
    uint64_t seen = 0;
    for (;;) {
      auto wanted = [&] {
        return generation_.load(std::memory_order_acquire) != seen &&
               id < helpers_wanted_.load(std::memory_order_relaxed);
      };
      spin_until(wanted, spin_.load(std::memory_order_relaxed));
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, wanted);
        seen = generation_.load();
        if (pending_.load() == 0) continue;  // woke after the job ended
        ++active_;
      }
      work(id + 1);
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) done_cv_.notify_all();
    }
  }

  static std::atomic<Pool*> current_;
  static std::atomic<bool> creating_;
  static int threads_after_fork_;  // set in a forked child only

  std::mutex job_mu_;  // one parallel region at a time
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<int> num_threads_{1};
  std::atomic<std::chrono::microseconds> spin_{std::chrono::microseconds(0)};  // Note [Spin before sleeping]
  // Written under mu_; atomic so that spinning threads may read them without it.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> helpers_wanted_{0};
  std::atomic<int> active_{0};  // helpers inside work()
  const detail::RangeFn* fn_ = nullptr;
  int64_t begin_ = 0, end_ = 0, chunks_ = 0, pieces_ = 0;
  struct alignas(64) Slot {
    std::atomic<uint64_t> range{0};
  };
  std::unique_ptr<Slot[]> slots_;  // one per thread; the caller's is slots_[0]
  int slot_count_ = 0;
  std::atomic<int64_t> pending_{0};
  std::exception_ptr error_;
};

std::atomic<Pool*> Pool::current_{nullptr};
std::atomic<bool> Pool::creating_{false};
int Pool::threads_after_fork_ = 0;

[[maybe_unused]] const bool kForkHandlerRegistered =
    pthread_atfork(nullptr, nullptr, [] { Pool::forget_after_fork(); }) == 0;

}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads expects a positive integer");
  Pool::get().set_num_threads(n);
}

int get_num_threads() { return Pool::get().num_threads(); }

bool in_parallel_region() { return t_in_parallel; }

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain_size, RangeFn f) {
  Pool::get().run(begin, end, grain_size, f);
}
}  // namespace detail

}  // namespace ember
