#include "examples/ddp_demo.h"

#include <cstdio>
#include <memory>

#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/sampler.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"

namespace ember {
namespace examples {

namespace {

namespace dist = distributed;

// ---- Program 1 ----

constexpr int64_t kInputSize = 5;
constexpr int64_t kOutputSize = 2;
constexpr int64_t kBatchSize = 30;
constexpr int64_t kDataSize = 90;

class RandomDataset : public data::MapStyleDataset<Tensor> {
 public:
  RandomDataset(int64_t size, int64_t length) : len_(length), data_(randn({length, size})) {}
  Tensor get(int64_t index) const override { return data_[index]; }
  int64_t size() const override { return len_; }

 private:
  int64_t len_;
  Tensor data_;
};

class ModelImpl : public nn::Module {
 public:
  ModelImpl(int64_t input_size, int64_t output_size)
      : fc(register_module("fc", nn::Linear(input_size, output_size))) {}
  Tensor forward(const Tensor& input) { return fc(input); }

  nn::Linear fc;
};
EMBER_MODULE(Model);

// ---- Program 2 ----

class ToyModelImpl : public nn::Module {
 public:
  ToyModelImpl()
      : net1(register_module("net1", nn::Linear(10, 10))),
        relu(register_module("relu", nn::ReLU())),
        net2(register_module("net2", nn::Linear(10, 5))) {}
  Tensor forward(const Tensor& x) { return net2(relu(net1(x))); }

  nn::Linear net1;
  nn::ReLU relu;
  nn::Linear net2;
};
EMBER_MODULE(ToyModel);

void setup(int rank, int world_size, const dist::InitOptions& init) {
  dist::InitOptions options = init;
  options.rank = rank;
  options.world_size = world_size;
  dist::init_process_group("gloo", options);
}

void cleanup() { dist::destroy_process_group(); }

// One training step of the DDP model, with the seed's shapes: gradients
// are averaged across ranks when backward returns.
void train_step(dist::DistributedDataParallel<ToyModel>& ddp_model, optim::SGD& optimizer) {
  nn::MSELoss loss_fn;
  optimizer.zero_grad();
  Tensor outputs = ddp_model(randn({20, 10}));
  Tensor labels = randn({20, 5});
  loss_fn(outputs, labels).backward();
  optimizer.step();
}

nn::NamedTensors detached_state(const nn::Module& module) {
  nn::NamedTensors state;
  for (const auto& [name, t] : module.state_dict()) state.emplace_back(name, t.detach().clone());
  return state;
}

}  // namespace

void distributed_sampler_demo(const dist::InitOptions& init, std::ostream& out) {
  // The seed asks for 6 threads (its 12 cores over 2 processes); one keeps
  // the printed line the same on every machine.
  set_num_threads(1);
  out << "the number of cpu threads: " << get_num_threads() << "\n";

  dist::init_process_group("gloo", init);
  const int local_rank = dist::get_rank();
  const int world_size = dist::get_world_size();

  auto dataset = std::make_shared<RandomDataset>(kInputSize, kDataSize);
  // PyTorch's DistributedSampler(dataset) reads the world size and rank from
  // the default group; ember's //data does not depend on //distributed, so
  // they are passed in.
  auto sampler =
      std::make_shared<data::DistributedSampler>(dataset->size(), world_size, local_rank);
  data::DataLoader rand_loader(dataset,
                               data::DataLoaderOptions().batch_size(kBatchSize).sampler(sampler));

  Model model(kInputSize, kOutputSize);
  // The seed wraps the model only when it sees more than one GPU; over gloo
  // the processes themselves are the replicas, so the model is always
  // wrapped and rank 0 counts processes instead of GPUs.
  if (local_rank == 0) out << "Let's use " << world_size << " processes!\n";
  dist::DistributedDataParallel ddp_model(model);

  for (Tensor& input : rand_loader) {
    Tensor output = ddp_model(input);
    out << "Model " << local_rank << ", input size: " << size_repr(input.sizes())
        << ", output size: " << size_repr(output.sizes()) << "\n";
  }
  // The seed leaves this to process exit. Where rank 0 runs the store's
  // server (env:// without a launcher), destroying the group makes it wait
  // until the other ranks have let go of the store.
  dist::destroy_process_group();
}

nn::NamedTensors demo_basic(int rank, int world_size, const dist::InitOptions& init,
                            std::ostream& out) {
  out << "Running basic DDP example on rank " << rank << ".\n";
  setup(rank, world_size, init);

  ToyModel model;
  dist::DistributedDataParallel ddp_model(model);
  optim::SGD optimizer(ddp_model->parameters(), optim::SGDOptions(0.001));
  train_step(ddp_model, optimizer);

  nn::NamedTensors state = detached_state(*ddp_model);
  cleanup();
  return state;
}

nn::NamedTensors demo_checkpoint(int rank, int world_size, const dist::InitOptions& init,
                                 const std::string& checkpoint_path, std::ostream& out) {
  out << "Running DDP checkpoint example on rank " << rank << ".\n";
  setup(rank, world_size, init);

  ToyModel model;
  dist::DistributedDataParallel ddp_model(model);
  optim::SGD optimizer(ddp_model->parameters(), optim::SGDOptions(0.001));

  // One rank writes; the others read the same file.
  if (rank == 0) save(ddp_model->state_dict(), checkpoint_path);
  // Rank 0 must have finished writing before anyone loads.
  dist::barrier();

  // The seed maps rank 0's cuda:0 to this rank's cuda:<rank>, so that the
  // ranks do not all load onto rank 0's GPU. Here every rank saved from and
  // loads to the CPU, so the mapping keeps CPU tensors on the CPU.
  const MapLocation map_location = MapLocation::remap({{"cpu", "cpu"}});
  ddp_model->load_state_dict(load(checkpoint_path, map_location));

  // No barrier needed after this: backward's all-reduce synchronizes.
  train_step(ddp_model, optimizer);

  // Every rank has read the file: rank 0 loaded it before its backward,
  // whose all-reduce needed every other rank's gradients, hence their loads.
  if (rank == 0) std::remove(checkpoint_path.c_str());

  nn::NamedTensors state = detached_state(*ddp_model);
  cleanup();
  return state;
}

}  // namespace examples
}  // namespace ember
