#include "distributed/testing/fake_backend.h"

#include <memory>
#include <string>

#include "distributed/init.h"

namespace ember::distributed::testing {
namespace {

class DoneWork : public Work {
 public:
  explicit DoneWork(uint64_t seq) : seq_(seq) {}
  bool is_completed() override { return true; }
  bool wait(std::chrono::milliseconds) override { return true; }
  std::exception_ptr exception() override { return nullptr; }
  uint64_t sequence_number() const override { return seq_; }

 private:
  uint64_t seq_;
};

class StoreBarrierGroup : public ProcessGroup {
 public:
  StoreBarrierGroup(std::shared_ptr<Store> store, int rank, int size)
      : ProcessGroup(rank, size), store_(std::move(store)) {}
  std::string backend_name() const override { return "fake"; }
  std::shared_ptr<Work> barrier() override {
    const uint64_t seq = ++seq_;
    const std::string key = "barrier/" + std::to_string(seq);
    if (store_->add(key, 1) == size()) store_->set(key + "/done", std::string("1"));
    store_->wait({key + "/done"});
    return std::make_shared<DoneWork>(seq);
  }
  // The rest is not this fake's business.
  std::shared_ptr<Work> broadcast(std::vector<Tensor>&, const BroadcastOptions&) override {
    throw Error("fake backend: broadcast");
  }
  std::shared_ptr<Work> allreduce(std::vector<Tensor>&, const AllreduceOptions&) override {
    throw Error("fake backend: allreduce");
  }
  std::shared_ptr<Work> reduce(std::vector<Tensor>&, const ReduceOptions&) override {
    throw Error("fake backend: reduce");
  }
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>&,
                                  std::vector<Tensor>&) override {
    throw Error("fake backend: allgather");
  }
  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                               int) override {
    throw Error("fake backend: gather");
  }
  std::shared_ptr<Work> scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                int) override {
    throw Error("fake backend: scatter");
  }
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                       ReduceOp) override {
    throw Error("fake backend: reduce_scatter");
  }
  std::shared_ptr<Work> alltoall_base(Tensor&, Tensor&, std::vector<int64_t>,
                                      std::vector<int64_t>) override {
    throw Error("fake backend: alltoall_base");
  }
  std::shared_ptr<Work> send(std::vector<Tensor>&, int, int) override {
    throw Error("fake backend: send");
  }
  std::shared_ptr<Work> recv(std::vector<Tensor>&, int, int) override {
    throw Error("fake backend: recv");
  }
  std::shared_ptr<Work> recv_anysource(std::vector<Tensor>&, int) override {
    throw Error("fake backend: recv_anysource");
  }
  void monitored_barrier(std::chrono::milliseconds, bool) override { barrier(); }

 private:
  std::shared_ptr<Store> store_;
  uint64_t seq_ = 0;
};

}  // namespace

void register_fake_backend() {
  register_backend("fake", [](std::shared_ptr<Store> store, int rank, int size,
                              std::chrono::milliseconds) {
    return std::make_shared<StoreBarrierGroup>(std::move(store), rank, size);
  });
}

}  // namespace ember::distributed::testing
