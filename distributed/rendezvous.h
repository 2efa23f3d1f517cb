#ifndef EMBER_DISTRIBUTED_RENDEZVOUS_H_
#define EMBER_DISTRIBUTED_RENDEZVOUS_H_

// Note [Elastic rendezvous]: how //distributed:launch runs --nnodes=MIN:MAX
// (torchrun's c10d rendezvous, over ember's store at --rdzv_endpoint).
// Launchers meet in numbered rounds. Joining round r is an add on
// "<prefix>/r<r>/joined"; the order of the adds is the node rank. A round
// closes when MAX nodes joined, or MIN did and last_call has passed since
// the joiner saw MIN: the first to close writes the count with compare_set,
// so every node agrees on it. Nodes that joined past the count go on to the
// next round. Each node records the round it runs in "<prefix>/last_closed".
//
// A round after the first closes by its last call only once every node of
// the previous round has left it (joined this one) or 5 s more have passed
// (the missing ones are taken for dead), so a late node cannot run a round
// alone while the running nodes are stopping to join it.
//
// A launcher whose round runs watches the next round: a node there means
// either a node that joined late (admitted when the round has fewer than
// MAX nodes) or a node whose workers failed ("<prefix>/r<r>/failed" set).
// Either way the running launchers stop their workers and join the next
// round, so the job goes on with whoever is there (at least MIN): a late
// node is admitted at the next restart, and a node whose launcher died is
// left out of it (its peers' workers fail, their launchers rejoin without
// it). Only failures count against --max_restarts. The node that hosts the
// store must stay: without it every node fails.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "distributed/store.h"

namespace ember::distributed {

struct RendezvousOptions {
  int min_nodes = 1;
  int max_nodes = 1;
  std::chrono::milliseconds last_call{30000};       // torchrun's last_call_timeout
  std::chrono::milliseconds join_timeout{600000};   // torchrun's join_timeout
  std::string prefix = "/rdzv/none";                // per run id
};

struct RendezvousRound {
  int round = 0;
  int node_rank = 0;
  int nnodes = 1;
};

class ElasticRendezvous {
 public:
  ElasticRendezvous(std::shared_ptr<Store> store, RendezvousOptions options);

  // Joins round `from` (-1: the one after the last that closed) or, when it
  // does not admit this node, the next ones, until one does. `leaving`: the
  // round this node ran in (-1: none), counted as left once this node has
  // joined the next. `interrupted` (may be empty) is asked between polls;
  // true gives up with an Error. Throws TimeoutError after join_timeout
  // without an admitting round.
  RendezvousRound join(int from = -1, const std::function<bool()>& interrupted = {},
                       int leaving = -1);
  // Nodes in the round after `round` (waiting for this one to end).
  int64_t waiting(int round);
  // This node's workers failed in `round` (it will join the next one).
  void mark_failed(int round);
  bool failed(int round);
  // Exit barrier: this node's workers succeeded in `round`; how many did.
  void done(int round);
  int64_t num_done(int round);

 private:
  std::string key(int round, const char* what) const;
  int closed_count(int round, int64_t my_index, const std::function<bool()>& interrupted,
                   std::chrono::steady_clock::time_point deadline);

  std::shared_ptr<Store> store_;
  RendezvousOptions o_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_RENDEZVOUS_H_
