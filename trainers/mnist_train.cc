#include "trainers/mnist_train.h"

#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "amp/grad_scaler.h"
#include "autograd/grad_mode.h"
#include "data/dataloader.h"
#include "data/progress.h"
#include "data/transforms.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/init.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "profiler/profiler.h"
#include "tensor/all.h"
#include "tensor/autocast.h"
#include "tensorboard/summary_writer.h"
#include "trainers/common.h"
#include "trainers/mnist_net.h"

namespace ember {
namespace trainers {

namespace {

namespace F = nn::functional;
using data::MapStyleDataset;
using data::Example;

// The first `limit` examples of `ds` (all of them for 0).
std::shared_ptr<const MapStyleDataset<Example<>>> first(std::shared_ptr<const MapStyleDataset<Example<>>> ds,
                                              int64_t limit) {
  if (limit <= 0 || limit >= ds->size()) return ds;
  std::vector<int64_t> idx(limit);
  std::iota(idx.begin(), idx.end(), 0);
  return std::make_shared<data::Subset<Example<>>>(std::move(ds), std::move(idx));
}

std::shared_ptr<const MapStyleDataset<Example<>>> mnist(const MnistConfig& c, bool train) {
  // The seed's transforms: ToTensor, then Normalize((0.1307,), (0.3081,)).
  data::transforms::Compose t({data::transforms::ToTensor(),
                               data::transforms::Normalize({0.1307}, {0.3081})});
  auto ds = std::make_shared<data::MNIST>(c.data_root, train, t);
  return first(ds, train ? c.train_limit : c.test_limit);
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
  const RankInfo ranks = rank_info();
  const bool parallel = ranks.parallel;
  const int rank = ranks.rank;
  const int world = ranks.world;
  std::ostream& out = rank_zero_stream(out_all, ranks);
  if (rank == 0 && !c.checkpoint_dir.empty()) prepare_checkpoint_dir(c.checkpoint_dir);
  EMBER_CHECK_VALUE(c.log_interval > 0, "log_interval must be positive, got ", c.log_interval);
  std::unique_ptr<tensorboard::SummaryWriter> tb;
  if (rank == 0 && !c.logdir.empty()) tb = std::make_unique<tensorboard::SummaryWriter>(c.logdir);

  const Device device = training_device(c.device, ranks);
  EMBER_CHECK_VALUE(c.amp.empty() || c.amp == "bf16" || c.amp == "fp16",
                    "amp must be bf16, fp16 or empty (float32), got '", c.amp, "'");
  // Autocast's dtype, and a loss scaler that does nothing unless float16.
  const ScalarType amp_dtype = c.amp == "fp16" ? kHalf : kBFloat16;
  const bool use_amp = !c.amp.empty();
  amp::GradScaler scaler(device.is_cuda() ? "cuda" : "cpu",
                         amp::GradScalerOptions().enabled(c.amp == "fp16"));

  manual_seed(c.seed);  // the same initialization on every device
  Net model;
  model->to(device);  // before the optimizer takes the parameters, as in PyTorch
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(c.lr).momentum(c.momentum));

  int64_t start_epoch = 0;
  if (!c.resume.empty()) {
    start_epoch = resume_training(c.resume, c.verify_checksums, "epoch", *model, optimizer);
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

  EMBER_CHECK_VALUE(c.profile_steps >= 0, "profile_steps must be non-negative, got ",
                    c.profile_steps);
  EMBER_CHECK_VALUE(c.profile_trace.empty() || c.profile_steps > 0,
                    "profile_trace needs profile_steps > 0");
  std::optional<profiler::profile> prof;
  int64_t profiled = 0;
  if (rank == 0 && c.profile_steps > 0) prof.emplace();
  auto end_profile = [&] {
    if (!prof.has_value() || !prof->running()) return;
    prof->stop();
    out << prof->key_averages().table("self_cpu_time_total", 20) << std::flush;
    if (!c.profile_trace.empty()) {
      prof->export_chrome_trace(c.profile_trace);
      out << "Profiler trace written to " << c.profile_trace << std::endl;
    }
  };

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
    for (Example<>& batch : train_loader) {
      std::optional<profiler::record_function> step_range;
      if (prof.has_value() && prof->running()) {
        step_range.emplace(absl::StrCat("ProfilerStep#", profiled));
      }
      Tensor loss;
      {
        autocast::AutocastGuard guard(device.type(), amp_dtype, use_amp);
        loss = F::cross_entropy(forward(batch.data.to(device)), batch.target.to(device));
      }
      optimizer.zero_grad();
      scaler.scale(loss).backward();
      scaler.step(optimizer);
      scaler.update();
      r.train_loss = loss.item<double>();
      log_step(tb.get(), c, step, r.train_loss, batch.data,
               /*first=*/step == start_epoch * train_loader.size());
      ++step;
      bar.set_postfix({{"loss", r.train_loss}});
      bar.update();
      if (step_range.has_value()) {
        step_range.reset();
        if (++profiled == c.profile_steps) end_profile();
      }
    }
    bar.close();
    out << absl::StrFormat("Train Epoch: %d \tLoss: %.6f\n", r.epoch, r.train_loss) << std::flush;

    model->eval();
    int64_t correct = 0;
    if (rank == 0) {
      NoGradGuard no_grad;
      autocast::AutocastGuard guard(device.type(), amp_dtype, use_amp);
      for (Example<>& batch : test_loader) {
        Tensor output = model->forward(batch.data.to(device)).to(kFloat);
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
      save_training_checkpoint(c.checkpoint_dir, c.keep_checkpoints, "epoch", r.epoch, *model,
                               optimizer);
    }
  }
  end_profile();                   // a run shorter than profile_steps
  if (tb != nullptr) tb->close();  // a write error that happened is an error
  return results;
}

}  // namespace trainers
}  // namespace ember
