#include "distributed/rendezvous.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(50);
// How long a round waits, past its last call, for nodes of the previous
// round that have not left it: a live one leaves within the launcher's
// polling and stopping time (0.5 s + 3 s grace); one that has not by then
// is taken for dead.
constexpr auto kStraggler = std::chrono::milliseconds(5000);

int64_t as_int(const std::vector<uint8_t>& v, const std::string& what) {
  int64_t n = 0;
  EMBER_CHECK(absl::SimpleAtoi(std::string(v.begin(), v.end()), &n), "rendezvous: ", what,
              " holds '", std::string(v.begin(), v.end()), "', not a number");
  return n;
}

std::vector<uint8_t> text(int64_t n) {
  const std::string s = absl::StrCat(n);
  return {s.begin(), s.end()};
}

}  // namespace

ElasticRendezvous::ElasticRendezvous(std::shared_ptr<Store> store, RendezvousOptions options)
    : store_(std::move(store)), o_(std::move(options)) {
  EMBER_CHECK_VALUE(o_.min_nodes >= 1 && o_.min_nodes <= o_.max_nodes,
                    "rendezvous: need 1 <= min_nodes <= max_nodes, got ", o_.min_nodes, ":",
                    o_.max_nodes);
}

std::string ElasticRendezvous::key(int round, const char* what) const {
  return absl::StrCat(o_.prefix, "/r", round, "/", what);
}

int ElasticRendezvous::closed_count(int round, int64_t my_index,
                                    const std::function<bool()>& interrupted,
                                    Clock::time_point deadline) {
  std::optional<Clock::time_point> min_seen;
  const std::string closed = key(round, "closed");
  for (;;) {
    if (store_->check({closed})) return static_cast<int>(as_int(store_->get(closed), closed));
    const int64_t n = store_->add(key(round, "joined"), 0);
    if (n >= o_.min_nodes && !min_seen) min_seen = Clock::now();
    // The previous round's nodes come to this one as they leave it: wait
    // for them (the dead ones up to kStraggler).
    bool everyone_left = true;
    if (round > 0 && min_seen && Clock::now() - *min_seen < o_.last_call + kStraggler) {
      const std::string prev = key(round - 1, "closed");
      if (store_->check({prev})) {
        everyone_left = store_->add(key(round - 1, "left"), 0) >= as_int(store_->get(prev), prev);
      }
    }
    // A node past MAX waits for the round to close without it.
    if (my_index < o_.max_nodes &&
        (n >= o_.max_nodes ||
         (min_seen && Clock::now() - *min_seen >= o_.last_call && everyone_left))) {
      const auto v = store_->compare_set(closed, {}, text(std::min<int64_t>(n, o_.max_nodes)));
      return static_cast<int>(as_int(v, closed));
    }
    if (Clock::now() >= deadline) {
      throw TimeoutError(absl::StrCat(
          "rendezvous: round ", round, " did not close within the join timeout of ",
          o_.join_timeout.count() / 1000.0, " s (", n, " of at least ", o_.min_nodes,
          " nodes joined)"));
    }
    if (interrupted && interrupted()) throw Error("rendezvous: interrupted");
    std::this_thread::sleep_for(kPoll);
  }
}

RendezvousRound ElasticRendezvous::join(int from, const std::function<bool()>& interrupted,
                                        int leaving) {
  const std::string last = o_.prefix + "/last_closed";
  int round = from;
  if (round < 0) round = store_->check({last}) ? static_cast<int>(as_int(store_->get(last), last)) + 1 : 0;
  const auto deadline = Clock::now() + o_.join_timeout;
  for (;; ++round) {
    const int64_t index = store_->add(key(round, "joined"), 1) - 1;
    // Left only once joined: the new round then waits for this node.
    if (leaving >= 0) {
      store_->add(key(leaving, "left"), 1);
      leaving = -1;
    }
    const int n = closed_count(round, index, interrupted, deadline);
    if (index < n) {
      store_->set(last, absl::StrCat(round));
      return {round, static_cast<int>(index), n};
    }
  }
}

int64_t ElasticRendezvous::waiting(int round) { return store_->add(key(round + 1, "joined"), 0); }

void ElasticRendezvous::mark_failed(int round) { store_->set(key(round, "failed"), std::string("1")); }

bool ElasticRendezvous::failed(int round) { return store_->check({key(round, "failed")}); }

void ElasticRendezvous::done(int round) { store_->add(key(round, "done"), 1); }

int64_t ElasticRendezvous::num_done(int round) { return store_->add(key(round, "done"), 0); }

}  // namespace ember::distributed
