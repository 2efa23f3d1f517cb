#include "distributed/shm_allreduce.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/shm_segments.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ember::distributed {
namespace {

constexpr uint64_t kMagic = 0x656d6265722d7368;  // "ember-sh"
// Slot memory in all (two sets of one slot per rank), within the 64 MiB a
// container's /dev/shm often has; a chunk is 64 KiB to 4 MiB.
constexpr size_t kSlotBudget = size_t{32} << 20;
constexpr size_t kHeaderBytes = 4096;
constexpr int kSpins = 2000;
constexpr auto kCheckPeriod = std::chrono::milliseconds(100);

struct alignas(64) RankState {
  std::atomic<uint32_t> step;
  int32_t pid;
};
static_assert(std::atomic<uint32_t>::is_always_lock_free, "futex words must be plain ints");

inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, std::chrono::milliseconds max) {
  timespec ts{0, static_cast<long>(std::chrono::nanoseconds(max).count())};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr,
          0);
}

std::string pid_namespace() {
  char buf[128];
  ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
}

size_t slot_bytes_for(int size) {
  size_t chunk = kSlotBudget / (2 * static_cast<size_t>(size));
  chunk = std::clamp(chunk, size_t{64} << 10, size_t{4} << 20);
  return chunk / 4096 * 4096;
}

size_t total_bytes(int size, size_t chunk) {
  return kHeaderBytes + 2 * static_cast<size_t>(size) * chunk;
}

}  // namespace

struct ShmAllreduce::Header {
  uint64_t magic;
  uint64_t token;
  uint64_t size;
  uint64_t chunk_bytes;
  alignas(64) std::atomic<uint32_t> aborted;
};
static_assert(sizeof(RankState) == 64, "one cache line per rank");
static_assert(sizeof(ShmAllreduce::Header) <= 128, "the rank states start at 128");

namespace {
// The ranks' states follow the header: kHeaderBytes holds 62 of them.
constexpr size_t kRanksOffset = 128;
RankState& rank_state(void* base, int r) {
  return reinterpret_cast<RankState*>(static_cast<char*>(base) + kRanksOffset)[r];
}
}  // namespace

std::unique_ptr<ShmAllreduce> ShmAllreduce::create(Store& store, const std::string& prefix,
                                                   int rank, int size, bool enabled) {
  if (size <= 1) return nullptr;
  const char* env = getenv("EMBER_GLOO_SHM");
  // Every rank negotiates, including one that does not want the path, so
  // that all of them agree.
  bool ok = enabled && (env == nullptr || std::string(env) != "0") &&
            kRanksOffset + sizeof(RankState) * size <= kHeaderBytes;
  const size_t chunk = slot_bytes_for(size);
  const size_t bytes = total_bytes(size, chunk);
  std::string name;
  uint64_t token = 0;
  void* base = MAP_FAILED;
  // However setup ends (in use, refused, or an exception because a peer or
  // the store died midway), every rank that learned the segment's name
  // unlinks it on the way out (once all have mapped it, a name is no longer
  // needed), and a setup that did not succeed also removes the segments of
  // creators that died before anyone could (shm_segments.h). So no death at
  // any step leaves a segment in /dev/shm.
  struct Cleanup {
    std::string& name;
    void*& base;
    size_t bytes;
    bool failed = true;
    ~Cleanup() {
      if (!name.empty() && name != "-") shm_unlink(name.c_str());
      if (!failed) return;
      if (base != MAP_FAILED) munmap(base, bytes);
      sweep_dead_shm_segments();
    }
  } cleanup{name, base, bytes};
  if (rank == 0) {
    if (ok) {
      sweep_dead_shm_segments();  // left by an earlier job's dead rank 0
      std::random_device rd;
      token = (static_cast<uint64_t>(rd()) << 32) ^ rd();
      name = new_shm_segment_name();
      int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
      ok = fd >= 0;
      // posix_fallocate, not ftruncate: a /dev/shm too small must fail here
      // rather than with SIGBUS at the first write.
      if (ok) ok = posix_fallocate(fd, 0, static_cast<off_t>(bytes)) == 0;
      if (ok) base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ok = ok && base != MAP_FAILED;
      if (fd >= 0) close(fd);
      if (ok) {
        auto* h = static_cast<Header*>(base);
        h->magic = kMagic;
        h->token = token;
        h->size = static_cast<uint64_t>(size);
        h->chunk_bytes = chunk;
      }
    }
    store.set(prefix + "shm/segment",
              ok ? absl::StrCat(name, " ", token, " ", pid_namespace()) : std::string("-"));
  } else {
    std::istringstream in(store.get_string(prefix + "shm/segment"));
    std::string pidns;
    in >> name >> token >> pidns;
    ok = ok && name != "-" && !name.empty() && pidns == pid_namespace();
    if (ok) {
      int fd = shm_open(name.c_str(), O_RDWR, 0600);
      struct stat st {};
      ok = fd >= 0 && fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == bytes;
      if (ok) base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ok = ok && base != MAP_FAILED;
      if (fd >= 0) close(fd);
      if (ok) {
        auto* h = static_cast<Header*>(base);
        ok = h->magic == kMagic && h->token == token &&
             h->size == static_cast<uint64_t>(size) && h->chunk_bytes == chunk;
      }
    }
  }
  if (ok) rank_state(base, rank).pid = static_cast<int32_t>(getpid());
  store.set(absl::StrCat(prefix, "shm/ok/", rank), ok ? "1" : "0");
  bool all = true;
  for (int r = 0; r < size; ++r) {
    all = store.get_string(absl::StrCat(prefix, "shm/ok/", r)) == "1" && all;
  }
  if (!all) return nullptr;
  cleanup.failed = false;
  return std::unique_ptr<ShmAllreduce>(new ShmAllreduce(base, bytes, rank, size, chunk));
}

ShmAllreduce::ShmAllreduce(void* base, size_t bytes, int rank, int size, size_t chunk_bytes)
    : base_(base), bytes_(bytes), rank_(rank), size_(size), chunk_bytes_(chunk_bytes),
      header_(static_cast<Header*>(base)) {}

ShmAllreduce::~ShmAllreduce() { munmap(base_, bytes_); }

char* ShmAllreduce::slot(int set, int rank) const {
  return static_cast<char*>(base_) + kHeaderBytes +
         (static_cast<size_t>(set) * size_ + rank) * chunk_bytes_;
}

void ShmAllreduce::abort() {
  header_->aborted.store(1, std::memory_order_release);
  for (int r = 0; r < size_; ++r) futex_wake_all(&rank_state(base_, r).step);
}

void ShmAllreduce::barrier(std::chrono::milliseconds timeout) {
  ++step_;
  RankState& me = rank_state(base_, rank_);
  me.step.store(step_, std::memory_order_release);
  futex_wake_all(&me.step);
  const auto start = std::chrono::steady_clock::now();
  auto next_check = start + kCheckPeriod;
  auto arrived = [&](int r) {
    return static_cast<int32_t>(rank_state(base_, r).step.load(std::memory_order_acquire) -
                                step_) >= 0;
  };
  for (int j = 0; j < size_; ++j) {
    if (j == rank_) continue;
    for (int spins = 0; !arrived(j); ++spins) {
      if (header_->aborted.load(std::memory_order_acquire) != 0) {
        throw std::runtime_error(
            "shared-memory all-reduce aborted: another rank's operation failed");
      }
      if (spins < kSpins) {
        cpu_relax();
        continue;
      }
      std::atomic<uint32_t>& word = rank_state(base_, j).step;
      const uint32_t seen = word.load(std::memory_order_acquire);
      if (static_cast<int32_t>(seen - step_) >= 0) break;
      futex_wait(&word, seen, std::chrono::milliseconds(10));
      const auto now = std::chrono::steady_clock::now();
      if (now < next_check) continue;
      next_check = now + kCheckPeriod;
      for (int r = 0; r < size_; ++r) {
        if (r == rank_ || arrived(r)) continue;
        const int pid = rank_state(base_, r).pid;
        if (!process_alive(pid)) {
          throw ShmPeerLost(absl::StrCat("Connection closed by peer rank ", r, " (process ", pid,
                                         " exited) in a shared-memory all-reduce"),
                            r);
        }
      }
      if (now - start >= timeout) {
        std::vector<int> missing;
        for (int r = 0; r < size_; ++r) {
          if (r != rank_ && !arrived(r)) missing.push_back(r);
        }
        throw std::runtime_error(absl::StrCat(
            "Timed out after ", timeout.count(), " ms waiting for rank(s) ",
            absl::StrJoin(missing, ", "), " in a shared-memory all-reduce"));
      }
    }
  }
}

void ShmAllreduce::broadcast(void* data, size_t bytes, int root,
                             std::chrono::milliseconds timeout) {
  char* p = static_cast<char*>(data);
  // The alternating sets make one barrier per chunk enough: the root fills
  // a set again only after every rank arrived at the next chunk, that is
  // after every rank copied this one out.
  for (size_t off = 0; off < bytes; off += chunk_bytes_) {
    const size_t m = std::min(chunk_bytes_, bytes - off);
    const int set = static_cast<int>(chunks_done_ & 1);
    if (rank_ == root) std::memcpy(slot(set, root), p + off, m);
    barrier(timeout);
    if (rank_ != root) std::memcpy(p + off, slot(set, root), m);
    ++chunks_done_;
  }
}

void ShmAllreduce::allreduce(void* data, size_t n, size_t esize, ReduceFn fn,
                             std::chrono::milliseconds timeout) {
  char* p = static_cast<char*>(data);
  const size_t per_chunk = chunk_bytes_ / esize;
  for (size_t c = 0; c < n; c += per_chunk) {
    const size_t m = std::min(per_chunk, n - c);
    const int set = static_cast<int>(chunks_done_ & 1);
    std::memcpy(slot(set, rank_), p + c * esize, m * esize);
    barrier(timeout);
    // Slice rank_ of every slot, reduced into this rank's slot: no other
    // rank reads that slice of it, nor writes any slot but its own.
    const size_t lo = m * rank_ / size_, hi = m * (rank_ + 1) / size_;
    if (hi > lo) {
      char* out = slot(set, rank_) + lo * esize;
      for (int j = 0; j < size_; ++j) {
        if (j != rank_) fn(out, out, slot(set, j) + lo * esize, hi - lo);
      }
    }
    barrier(timeout);
    for (int j = 0; j < size_; ++j) {
      const size_t jlo = m * j / size_, jhi = m * (j + 1) / size_;
      std::memcpy(p + (c + jlo) * esize, slot(set, j) + jlo * esize, (jhi - jlo) * esize);
    }
    ++chunks_done_;
  }
}

}  // namespace ember::distributed
