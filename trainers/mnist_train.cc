#include "trainers/mnist_train.h"

#include <sys/stat.h>

#include <memory>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autograd/grad_mode.h"
#include "data/dataloader.h"
#include "data/transforms.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/init.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"
#include "trainers/mnist_net.h"

namespace ember {
namespace trainers {

namespace {

namespace F = nn::functional;
using data::Dataset;
using data::Example;

// Discards what ranks other than 0 would print.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

// The first `limit` examples of `ds` (all of them for 0).
std::shared_ptr<const Dataset<Example>> first(std::shared_ptr<const Dataset<Example>> ds,
                                              int64_t limit) {
  if (limit <= 0 || limit >= ds->size()) return ds;
  std::vector<int64_t> idx(limit);
  std::iota(idx.begin(), idx.end(), 0);
  return std::make_shared<data::Subset<Example>>(std::move(ds), std::move(idx));
}

std::shared_ptr<const Dataset<Example>> mnist(const MnistConfig& c, bool train) {
  // The seed's transforms: ToTensor, then Normalize((0.1307,), (0.3081,)).
  data::transforms::Compose t({data::transforms::ToTensor(),
                               data::transforms::Normalize({0.1307}, {0.3081})});
  auto ds = std::make_shared<data::MNIST>(c.data_root, train, t);
  return first(ds, train ? c.train_limit : c.test_limit);
}

void save_checkpoint(const std::string& dir, int64_t epoch, const Net& model,
                     const optim::Optimizer& opt) {
  mkdir(dir.c_str(), 0755);  // an existing folder is fine; save() reports real failures
  Checkpoint ckpt;
  ckpt.add_state_dict("model", model->state_dict());
  ckpt.add_state_dict("optimizer", opt.state_dict().to_named_tensors());
  ckpt.set("epoch", epoch);
  ckpt.save(absl::StrCat(dir, "/epoch_", epoch, ".safetensors"));
}

}  // namespace

std::vector<EpochResult> train_mnist(const MnistConfig& c, std::ostream& out_all) {
  if (c.threads > 0) set_num_threads(c.threads);
  // Note [Data-parallel MNIST]: under a process group of several ranks the
  // model is wrapped in DistributedDataParallel and each rank trains on its
  // DistributedSampler share (batch_size images per rank and step). Rank 0
  // alone prints, tests and writes checkpoints (of the plain model, so they
  // resume in either mode); testing the whole set on one rank keeps the
  // seed's loss figure (a sum of batch means) comparable with a
  // single-process run, and the figures reach the other ranks by broadcast.
  const bool parallel = distributed::is_initialized() && distributed::get_world_size() > 1;
  const int rank = parallel ? distributed::get_rank() : 0;
  const int world = parallel ? distributed::get_world_size() : 1;
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ostream& out = rank == 0 ? out_all : null_stream;

  // CUDA ranks all-reduce over gloo through host copies (Note [Gloo and
  // device tensors]); "cuda" without an index puts rank r on GPU
  // r % device_count, as the seeds' device_ids=[rank].
  Device device(c.device);
  if (parallel && device.is_cuda() && !device.has_index()) {
    EMBER_CHECK(cuda::device_count() > 0, "--device=cuda: no CUDA device is available");
    device = Device(kCUDA, static_cast<int8_t>(rank % static_cast<int>(cuda::device_count())));
  }

  manual_seed(c.seed);  // the same initialization on every device
  Net model;
  model->to(device);  // before the optimizer takes the parameters, as in PyTorch
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(c.lr).momentum(c.momentum));

  int64_t start_epoch = 0;
  if (!c.resume.empty()) {
    // Onto the CPU whatever device saved it; load_state_dict copies the
    // values to the model's device (and the optimizer's state follows its
    // parameters).
    Checkpoint ckpt = Checkpoint::load(c.resume, MapLocation(Device(kCPU)));
    model->load_state_dict(ckpt.state_dict("model"));
    optimizer.load_state_dict(
        optim::OptimizerStateDict::from_named_tensors(ckpt.state_dict("optimizer")));
    start_epoch = ckpt.get_int("epoch");
    out << "Resumed from " << c.resume << " at epoch " << start_epoch << "\n";
  }

  // After resuming: DDP starts every rank from rank 0's state.
  distributed::DistributedDataParallel<Net> ddp(nullptr);
  if (parallel) ddp = distributed::DistributedDataParallel<Net>(model);
  auto forward = [&](const Tensor& x) { return parallel ? ddp(x) : model->forward(x); };

  auto train_set = mnist(c, /*train=*/true);
  auto test_set = mnist(c, /*train=*/false);
  data::DataLoader test_loader(
      test_set, data::DataLoaderOptions().batch_size(c.batch_size).num_workers(c.num_workers));

  std::vector<EpochResult> results;
  for (int64_t epoch = start_epoch; epoch < c.epochs; ++epoch) {
    EpochResult r;
    r.epoch = epoch + 1;
    model->train();
    // Each epoch's order comes from its own generator, so a run resumed
    // from a checkpoint sees the batches the uninterrupted run saw.
    data::DataLoaderOptions train_options =
        data::DataLoaderOptions().batch_size(c.batch_size).num_workers(c.num_workers);
    if (parallel) {
      auto sampler = std::make_shared<data::DistributedSampler>(train_set->size(), world, rank,
                                                                /*shuffle=*/true, c.seed);
      sampler->set_epoch(epoch);
      train_options.sampler(sampler);
    } else {
      train_options.shuffle(true).generator(Generator(c.seed * 1000 + r.epoch));
    }
    data::DataLoader train_loader(train_set, train_options);
    for (Example& batch : train_loader) {
      Tensor loss = F::cross_entropy(forward(batch.data.to(device)), batch.target.to(device));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      r.train_loss = loss.item<double>();
    }
    out << absl::StrFormat("Train Epoch: %d \tLoss: %.6f\n", r.epoch, r.train_loss);

    model->eval();
    int64_t correct = 0;
    if (rank == 0) {
      NoGradGuard no_grad;
      for (Example& batch : test_loader) {
        Tensor output = model->forward(batch.data.to(device));
        Tensor target = batch.target.to(device);
        Tensor pred = output.argmax(1, /*keepdim=*/true);
        correct += pred.eq(target.view_as(pred)).sum().item<int64_t>();
        r.test_loss += F::cross_entropy(output, target).item<double>();
      }
    }
    if (parallel) {
      // On the training device: NCCL carries CUDA tensors only.
      Tensor figures =
          tensor({r.train_loss, r.test_loss, static_cast<double>(correct)}, kDouble).to(device);
      distributed::broadcast(figures, 0);
      r.train_loss = figures[0].item<double>();
      r.test_loss = figures[1].item<double>();
      correct = static_cast<int64_t>(figures[2].item<double>());
    }
    const double n = static_cast<double>(test_set->size());
    r.test_loss /= n;
    r.accuracy = 100.0 * static_cast<double>(correct) / n;
    out << absl::StrFormat("Test set: Average loss: %.4f, Accuracy: %.2f%%\n", r.test_loss,
                           r.accuracy);
    results.push_back(r);

    if (rank == 0 && !c.checkpoint_dir.empty() && c.checkpoint_every > 0 &&
        r.epoch % c.checkpoint_every == 0) {
      save_checkpoint(c.checkpoint_dir, r.epoch, model, optimizer);
    }
  }
  return results;
}

}  // namespace trainers
}  // namespace ember
