#include "trainers/mnist_train.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_format.h"
#include "autograd/grad_mode.h"
#include "data/dataloader.h"
#include "data/progress.h"
#include "data/transforms.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/init.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"
#include "tensor/files.h"
#include "tensorboard/summary_writer.h"
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

// Makes `dir` (not its parents) and proves it writable by creating and
// removing a file in it, so that a path that cannot take checkpoints (a
// file, a missing parent, a read-only mount) fails before the first epoch.
void prepare_checkpoint_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    EMBER_CHECK(S_ISDIR(st.st_mode), "checkpoint_dir '", dir, "' is ", describe_file_type(dir),
                ", not a directory");
  } else if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    const int err = errno;
    throw Error(absl::StrCat("cannot create checkpoint_dir '", dir, "': ", std::strerror(err)));
  }
  std::string probe = dir + "/.ember_write_test-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    const int err = errno;
    throw Error(absl::StrCat("checkpoint_dir '", dir, "' is not writable: ", std::strerror(err)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

// The epoch of a file named epoch_<n>.safetensors, or -1.
int64_t checkpoint_epoch(const std::string& name) {
  constexpr absl::string_view kPrefix = "epoch_", kSuffix = ".safetensors";
  absl::string_view n = name;
  int64_t epoch;
  if (!absl::ConsumePrefix(&n, kPrefix) || !absl::ConsumeSuffix(&n, kSuffix) || n.empty() ||
      n.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(n, &epoch)) {
    return -1;
  }
  return epoch;
}

// Keeps the newest `keep` checkpoints of `dir` (all when keep <= 0).
void prune_checkpoints(const std::string& dir, int64_t keep) {
  if (keep <= 0) return;
  std::vector<std::pair<int64_t, std::filesystem::path>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const int64_t epoch = checkpoint_epoch(e.path().filename().string());
    if (epoch >= 0) found.emplace_back(epoch, e.path());
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = static_cast<size_t>(keep); i < found.size(); ++i) {
    std::filesystem::remove(found[i].second, ec);
  }
}

void save_checkpoint(const MnistConfig& c, int64_t epoch, const Net& model,
                     const optim::Optimizer& opt) {
  Checkpoint ckpt;
  ckpt.add_state_dict("model", model->state_dict());
  ckpt.add_state_dict("optimizer", opt.state_dict().to_named_tensors());
  ckpt.set("epoch", epoch);
  ckpt.save(absl::StrCat(c.checkpoint_dir, "/epoch_", epoch, ".safetensors"));
  prune_checkpoints(c.checkpoint_dir, c.keep_checkpoints);
}

// Restores model and optimizer from c.resume; returns its epoch. Every
// problem is an error naming the file.
int64_t resume_from(const MnistConfig& c, Net& model, optim::Optimizer& optimizer) {
  try {
    // Onto the CPU whatever device saved it; load_state_dict copies the
    // values to the model's device (and the optimizer's state follows its
    // parameters).
    Checkpoint ckpt = Checkpoint::load(c.resume, MapLocation(Device(kCPU)), c.verify_checksums);
    const NamedTensors weights = ckpt.state_dict("model");
    for (const auto& kv : weights) {
      EMBER_CHECK(!kv.second.is_floating_point() || kv.second.isfinite().all().item<bool>(),
                  "parameter '", kv.first, "' holds non-finite values (NaN or inf)");
    }
    model->load_state_dict(weights);
    optimizer.load_state_dict(
        optim::OptimizerStateDict::from_named_tensors(ckpt.state_dict("optimizer")));
    const int64_t epoch = ckpt.get_int("epoch");
    EMBER_CHECK_VALUE(epoch >= 0, "its epoch is ", epoch, ", which is negative");
    return epoch;
  } catch (const Error& e) {
    throw Error(absl::StrCat("cannot resume from '", c.resume, "': ", e.what()));
  }
}

// --logdir, per step: the loss every log_interval steps and, at the run's
// first step, its first 16 images as they were before Normalize.
void log_step(tensorboard::SummaryWriter* tb, const MnistConfig& c, int64_t step, double loss,
              const Tensor& images, bool first) {
  if (tb == nullptr) return;
  if (step % c.log_interval == 0) tb->add_scalar("train/loss", loss, step);
  if (first) tb->add_images("train/images", images.slice(0, 0, 16) * 0.3081 + 0.1307, step);
}

// --logdir, per epoch (at the step the epoch ended on).
void log_epoch(tensorboard::SummaryWriter* tb, int64_t step, const EpochResult& r, double lr) {
  if (tb == nullptr) return;
  tb->add_scalar("test/loss", r.test_loss, step);
  tb->add_scalar("test/accuracy", r.accuracy, step);
  tb->add_scalar("train/lr", lr, step);
}

}  // namespace

std::vector<EpochResult> train_mnist(const MnistConfig& c, std::ostream& out_all) {
  EMBER_CHECK_VALUE(c.epochs >= 0, "epochs must be non-negative, got ", c.epochs);
  EMBER_CHECK_VALUE(c.checkpoint_every >= 0, "checkpoint_every must be non-negative, got ",
                    c.checkpoint_every);
  EMBER_CHECK_VALUE(c.keep_checkpoints >= 0, "keep_checkpoints must be non-negative, got ",
                    c.keep_checkpoints);
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
  if (rank == 0 && !c.checkpoint_dir.empty()) prepare_checkpoint_dir(c.checkpoint_dir);
  EMBER_CHECK_VALUE(c.log_interval > 0, "log_interval must be positive, got ", c.log_interval);
  std::unique_ptr<tensorboard::SummaryWriter> tb;
  if (rank == 0 && !c.logdir.empty()) tb = std::make_unique<tensorboard::SummaryWriter>(c.logdir);

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
    start_epoch = resume_from(c, model, optimizer);
    out << "Resumed from " << c.resume << " at epoch " << start_epoch << std::endl;
  }

  // After resuming: DDP starts every rank from rank 0's state.
  distributed::DistributedDataParallel<Net> ddp(nullptr);
  if (parallel) ddp = distributed::DistributedDataParallel<Net>(model);
  auto forward = [&](const Tensor& x) { return parallel ? ddp(x) : model->forward(x); };

  auto train_set = mnist(c, /*train=*/true);
  auto test_set = mnist(c, /*train=*/false);
  // Both would divide by zero later (the shuffle, the accuracy).
  EMBER_CHECK_VALUE(train_set->size() > 0, "the training set in '", c.data_root,
                    "' is empty: there is nothing to train on");
  EMBER_CHECK_VALUE(test_set->size() > 0, "the test set in '", c.data_root,
                    "' is empty: accuracy and test loss would be undefined");
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
    data::ProgressBar bar(train_loader.size(),
                          data::ProgressBarOptions()
                              .desc(absl::StrCat("Epoch ", r.epoch))
                              .disable(!c.progress || rank != 0));
    int64_t step = epoch * train_loader.size();
    for (Example& batch : train_loader) {
      Tensor loss = F::cross_entropy(forward(batch.data.to(device)), batch.target.to(device));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      r.train_loss = loss.item<double>();
      log_step(tb.get(), c, step, r.train_loss, batch.data,
               /*first=*/step == start_epoch * train_loader.size());
      ++step;
      bar.set_postfix({{"loss", r.train_loss}});
      bar.update();
    }
    bar.close();
    out << absl::StrFormat("Train Epoch: %d \tLoss: %.6f\n", r.epoch, r.train_loss) << std::flush;

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
    log_epoch(tb.get(), step, r, optimizer.param_groups()[0].options().get_lr());
    out << absl::StrFormat("Test set: Average loss: %.4f, Accuracy: %.2f%%\n", r.test_loss,
                           r.accuracy)
        << std::flush;
    results.push_back(r);

    if (rank == 0 && !c.checkpoint_dir.empty() && c.checkpoint_every > 0 &&
        r.epoch % c.checkpoint_every == 0) {
      save_checkpoint(c, r.epoch, model, optimizer);
    }
  }
  if (tb != nullptr) tb->close();  // a write error that happened is an error
  return results;
}

}  // namespace trainers
}  // namespace ember
