#include "tensor/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tensor/error.h"

extern "C" void openblas_set_num_threads(int);

namespace ember {
namespace {

thread_local bool t_in_parallel = false;

int initial_threads() {
  for (const char* var : {"EMBER_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}

// A fixed pool of (num_threads - 1) workers; the caller is the last worker.
// One job runs at a time: callers of parallel_for_impl serialize on job_mu_.
class Pool {
 public:
  static Pool& get() {
    static Pool* p = new Pool();  // never destroyed: workers may be parked at exit
    return *p;
  }

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }

  void set_num_threads(int n) {
    std::lock_guard<std::mutex> job(job_mu_);
    num_threads_.store(n, std::memory_order_relaxed);
    openblas_set_num_threads(n);
    std::lock_guard<std::mutex> lock(mu_);
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
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &f;
      begin_ = begin;
      end_ = end;
      chunks_ = chunks;
      next_chunk_.store(0);
      pending_.store(chunks);
      error_ = nullptr;
      helpers_wanted_ = static_cast<int>(chunks - 1);
      ++generation_;
    }
    cv_.notify_all();
    work();
    // Wait for the chunks other threads took.
    std::unique_lock<std::mutex> lock(mu_);
    // Also wait for helpers still inside work(), so none of them can read the
    // next job's fields half-written.
    done_cv_.wait(lock, [&] { return pending_.load() == 0 && active_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Pool() {
    int n = initial_threads();
    num_threads_.store(n);
    openblas_set_num_threads(n);
    for (int i = 0; i < n - 1; ++i) {
      workers_.emplace_back([this, i] { worker_loop(i); });
      workers_.back().detach();
    }
  }

  // Takes chunks until none is left.
  void work() {
    bool was = t_in_parallel;
    t_in_parallel = true;
    for (;;) {
      int64_t c = next_chunk_.fetch_add(1);
      if (c >= chunks_) break;
      int64_t range = end_ - begin_;
      int64_t b = begin_ + range * c / chunks_;
      int64_t e = begin_ + range * (c + 1) / chunks_;
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
    t_in_parallel = was;
  }

  void worker_loop(int id) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return generation_ != seen && id < helpers_wanted_; });
        seen = generation_;
        if (pending_.load() == 0) continue;  // woke after the job ended
        ++active_;
      }
      work();
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) done_cv_.notify_all();
    }
  }

  std::mutex job_mu_;  // one parallel region at a time
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<int> num_threads_{1};
  uint64_t generation_ = 0;
  int helpers_wanted_ = 0;
  int active_ = 0;  // helpers inside work()
  const detail::RangeFn* fn_ = nullptr;
  int64_t begin_ = 0, end_ = 0, chunks_ = 0;
  std::atomic<int64_t> next_chunk_{0};
  std::atomic<int64_t> pending_{0};
  std::exception_ptr error_;
};

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
