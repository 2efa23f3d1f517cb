#ifndef EMBER_DISTRIBUTED_INIT_H_
#define EMBER_DISTRIBUTED_INIT_H_

// torch.distributed's process-group management in C++:
//
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo");                       // env://
//   dist::init_process_group("gloo", {"tcp://10.0.0.1:23456", 2, rank});
//   dist::init_process_group("gloo", {"file:///shared/store", 2, rank});
//   dist::Group evens = dist::new_group({0, 2});           // every rank calls it
//   if (evens.is_member()) evens->allreduce(tensors);
//   dist::destroy_process_group();
//
// Rendezvous (init_method, as in PyTorch):
//   env://   (the default) MASTER_ADDR, MASTER_PORT, and RANK / WORLD_SIZE
//            unless options give them; rank 0 runs the TCPStore server,
//            listening on MASTER_ADDR's address only (EMBER_TCPSTORE_BIND_ALL=1:
//            on every interface). Under the launcher
//            (TORCHELASTIC_USE_AGENT_STORE=True) the launcher runs it and
//            each restart gets its own key space
//            ("/worker/attempt_<TORCHELASTIC_RESTART_COUNT>").
//            Under Slurm without a launcher (`srun ./trainer`), SLURM_PROCID,
//            SLURM_NTASKS, SLURM_JOB_NODELIST and SLURM_JOB_ID stand in
//            for whichever of these are unset (Note [Slurm without a
//            launcher], slurm.h).
//   tcp://host:port   rank 0 runs the TCPStore server there.
//   file:///path      a FileStore on a file system every rank sees.
//   Query parameters ?rank=R&world_size=N are read as in PyTorch.
//
// Note [Store-based join]: before the backend is built, every member of a
// group checks in through the store under "init/" in the group's key space:
// it registers the group's world size (and member list) with compare_set,
// so a rank that disagrees fails at once with an error naming both values
// (and the ranks already waiting fail too, instead of hanging); it claims
// its rank (two processes with one rank is an error); then it waits until
// all members joined. A rank that never arrives makes the others fail after
// the timeout with "Timed out ... (1/2 workers joined)". A store serves one
// initialization: use a fresh one (or a PrefixStore) to initialize again.
//
// Backends come from a registry (register_backend), so this library does
// not depend on gloo or NCCL; //distributed:process_group_gloo registers
// "gloo" when it is linked in.

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/store.h"

namespace ember::distributed {

// PyTorch's default_pg_timeout: 30 minutes.
constexpr std::chrono::milliseconds kDefaultPgTimeout{30 * 60 * 1000};

// torch.distributed.Backend: a lower-case backend name. Accepts any case
// ("GLOO", "gloo"); an unknown name throws ValueError("Invalid backend:
// 'name'"). Known: gloo, nccl, mpi, and every registered backend.
class Backend {
 public:
  static constexpr const char* UNDEFINED = "undefined";
  static constexpr const char* GLOO = "gloo";
  static constexpr const char* NCCL = "nccl";
  static constexpr const char* MPI = "mpi";

  Backend(const std::string& name);  // NOLINT: implicit, as Python's str
  Backend(const char* name) : Backend(std::string(name)) {}  // NOLINT
  static Backend undefined();  // what a non-member's Group reports
  const std::string& str() const { return name_; }
  operator const std::string&() const { return name_; }  // NOLINT
  bool operator==(const Backend& o) const { return name_ == o.name_; }
  bool operator!=(const Backend& o) const { return name_ != o.name_; }

 private:
  struct Unchecked {};
  Backend(Unchecked, std::string name) : name_(std::move(name)) {}
  std::string name_;
};
std::ostream& operator<<(std::ostream& os, const Backend& b);

// Builds a backend's ProcessGroup for one group: the group's store (a
// PrefixStore of its own; keys under "init/" are taken, see Note
// [Store-based join]), this process's rank in the group, the group's size,
// and its timeout.
using BackendFactory = std::function<std::shared_ptr<ProcessGroup>(
    std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout)>;

// Registers (or replaces) the factory for `name` (stored lower-case).
void register_backend(const std::string& name, BackendFactory factory);
bool is_backend_registered(const std::string& name);

// A group made by init_process_group or new_group. Members hold its
// ProcessGroup; a non-member holds a handle that says so (is_member() is
// false, rank() is -1, and using the process group throws).
class Group {
 public:
  Group() = default;
  Group(std::shared_ptr<ProcessGroup> pg, std::string name, std::vector<int> ranks,
        Backend backend)
      : pg_(std::move(pg)), name_(std::move(name)), ranks_(std::move(ranks)),
        backend_(std::move(backend)) {}

  bool is_member() const { return pg_ != nullptr; }
  const std::string& name() const { return name_; }
  // The members' global ranks, in group-rank order.
  const std::vector<int>& ranks() const { return ranks_; }
  int rank() const { return pg_ ? pg_->rank() : -1; }  // this process's rank in the group
  int size() const { return static_cast<int>(ranks_.size()); }
  const Backend& backend() const { return backend_; }

  // The process group; throws when this process is not a member.
  ProcessGroup& pg() const;
  const std::shared_ptr<ProcessGroup>& pg_ptr() const { return pg_; }
  ProcessGroup* operator->() const { return &pg(); }

 private:
  std::shared_ptr<ProcessGroup> pg_;
  std::string name_;
  std::vector<int> ranks_;
  Backend backend_ = Backend::undefined();
};

// The arguments of torch.distributed.init_process_group after `backend`,
// in its order, so that {"tcp://host:port", world_size, rank} works.
struct InitOptions {
  std::string init_method;  // "" means env:// (unless store is given)
  int world_size = -1;      // -1: from the init method / WORLD_SIZE
  int rank = -1;            // -1: from the init method / RANK
  std::shared_ptr<Store> store;  // rendezvous through this store instead
  std::chrono::milliseconds timeout = kDefaultPgTimeout;
  std::string group_name;   // the default group's name ("" : "default_pg")
};

void init_process_group(const Backend& backend, const InitOptions& options = {});
bool is_initialized();
// Destroys every group and the default group (and the store it made). The
// rank running the TCPStore server first waits (at most min(timeout, 10 s))
// until the other ranks have let go of the store, so that their requests in
// flight are answered (Note [Server outlives its clients] in init.cc).
void destroy_process_group();
// Destroys one group made by new_group (its handle stops being usable
// through the registry; ProcessGroup objects die with their last handle).
void destroy_process_group(const Group& group);

// The default group (throws when not initialized).
Group get_default_group();
// Every rank calls new_group with the same ranks, in the same order (empty:
// all ranks). Ranks are sorted as in PyTorch; group rank = position.
Group new_group(std::vector<int> ranks = {},
                std::chrono::milliseconds timeout = Store::kNoTimeout,
                const std::string& backend = "");

int get_rank();
int get_rank(const Group& group);  // -1 for a non-member
int get_world_size();
int get_world_size(const Group& group);  // -1 for a non-member
Backend get_backend();
Backend get_backend(const Group& group);
// The global rank of `group_rank` in `group`, and back.
int get_global_rank(const Group& group, int group_rank);
int get_group_rank(const Group& group, int global_rank);

// The rank and world size an MPI-style or torchrun-style launcher put in
// this process's environment (the first set pair of RANK/WORLD_SIZE,
// OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE, then the
// `extra` pairs); {-1, -1} when none is set. Throws when a rank is set
// without its size or the pair is out of range.
struct LaunchedRank {
  int rank = -1;
  int world_size = -1;
};
LaunchedRank launched_rank_from_env(
    const std::vector<std::pair<const char*, const char*>>& extra = {});

bool is_available();  // distributed support is built in (always)
bool is_gloo_available();
bool is_nccl_available();
bool is_mpi_available();

// torch.distributed.rendezvous: the store, rank and world size an
// init_method names (see above). For init_process_group and tests.
struct RendezvousResult {
  std::shared_ptr<Store> store;
  int rank;
  int world_size;
};
RendezvousResult rendezvous(const std::string& init_method, int rank, int world_size,
                            std::chrono::milliseconds timeout = kDefaultPgTimeout);

// The rendezvous of a process a launcher started: its rank and world size
// from launched_rank_from_env(extra), meeting the others at
// MASTER_ADDR:MASTER_PORT as env:// does (an error naming `who` when they
// are unset); started alone, or in a world of one, rank 0 of 1 around a
// private loopback store. hvd::init and ProcessGroupMPI start this way.
RendezvousResult launcher_rendezvous(
    const std::string& who, const std::vector<std::pair<const char*, const char*>>& extra = {});

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_INIT_H_
