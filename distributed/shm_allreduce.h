#ifndef EMBER_DISTRIBUTED_SHM_ALLREDUCE_H_
#define EMBER_DISTRIBUTED_SHM_ALLREDUCE_H_

// Note [Same-host all-reduce]: when every rank of a gloo group runs on one
// host (several training processes on one machine, the common CPU case),
// ProcessGroupGloo's all_reduce (and broadcast: DDP's per-forward buffer
// sync is latency-bound) goes through a shared-memory segment
// instead of gloo's TCP ring: loopback TCP costs each byte two kernel
// copies per hop and both ranks' CPU time, while a shared segment costs
// three memcpy-speed passes (copy in, reduce one slice of every rank's
// chunk, copy every reduced slice out). NCCL has the same split (its SHM
// transport within a node); gloo and PyTorch's gloo backend do not.
//
// - Setup, at group creation: rank 0 creates the segment and publishes its
//   name and a random token in the store; every other rank maps it and
//   checks the token (so a rank on another host, or in another /dev/shm or
//   pid namespace, says no); the path is used only when every rank said
//   yes, and rank 0 unlinks the name once everyone has mapped it (nothing
//   is left in /dev/shm, even after a crash). Otherwise, or with
//   Options::shared_memory false or EMBER_GLOO_SHM=0, TCP as before. The
//   segment holds two slots per rank of 64 KiB to 4 MiB (at most 32 MiB
//   in all), reserved up front: a /dev/shm too small makes the group fall
//   back to TCP instead of failing later with SIGBUS.
// - Each chunk of the tensor takes two barriers: every rank copies its
//   chunk into its slot; then rank r reduces slice r of all slots into its
//   own slot; then every rank copies every reduced slice out. Two sets of
//   slots alternate, so a rank may fill the next chunk while others still
//   read the last one.
// - A barrier is a per-rank step counter in the segment: a rank bumps its
//   own and waits until every peer's reached the same step, spinning
//   briefly, then sleeping on a futex. While it waits it checks, every
//   100 ms, whether a peer process died (ShmPeerLost, naming it), whether
//   another rank aborted the group (after a failure of its own), and the
//   op's timeout (a "Timed out" error naming the ranks that did not
//   arrive), so the failure semantics of Note [Gloo execution model] hold.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed/store.h"

namespace ember::distributed {

// A peer's process is gone.
class ShmPeerLost : public std::runtime_error {
 public:
  ShmPeerLost(const std::string& what, int rank) : std::runtime_error(what), rank(rank) {}
  int rank;
};

class ShmAllreduce {
 public:
  using ReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);

  // Every rank of the group calls it (after the group's other setup; the
  // store keys go under `prefix`). Returns nullptr on every rank unless all
  // of them share one segment.
  // `enabled` false makes this rank say no (and so every rank).
  static std::unique_ptr<ShmAllreduce> create(Store& store, const std::string& prefix, int rank,
                                              int size, bool enabled);
  ~ShmAllreduce();
  struct Header;  // the segment's first bytes (shm_allreduce.cc)
  ShmAllreduce(const ShmAllreduce&) = delete;
  ShmAllreduce& operator=(const ShmAllreduce&) = delete;

  // Reduces n elements of `esize` bytes at `data` in place with fn over
  // every rank. A wait longer than `timeout` throws std::runtime_error
  // ("Timed out ..."); a dead peer throws ShmPeerLost; an aborted group
  // throws std::runtime_error.
  void allreduce(void* data, size_t n, size_t esize, ReduceFn fn,
                 std::chrono::milliseconds timeout);
  // Copies `bytes` at `data` from rank `root` to every rank (one barrier
  // per chunk); errors as allreduce().
  void broadcast(void* data, size_t bytes, int root, std::chrono::milliseconds timeout);
  // Makes every rank's current and later waits fail (a failure elsewhere).
  void abort();


 private:
  ShmAllreduce(void* base, size_t bytes, int rank, int size, size_t chunk_bytes);
  // Bumps this rank's step and waits until every peer reached it.
  void barrier(std::chrono::milliseconds timeout);
  char* slot(int set, int rank) const;

  void* base_;
  size_t bytes_;
  int rank_;
  int size_;
  size_t chunk_bytes_;
  Header* header_;
  uint32_t step_ = 0;
  uint64_t chunks_done_ = 0;  // picks the slot set
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_SHM_ALLREDUCE_H_
