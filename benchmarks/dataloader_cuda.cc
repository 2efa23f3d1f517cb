// Issue 17 ("Streams and events"): does a DataLoader with pin_memory plus
// non_blocking copies on a side stream overlap the next batch's upload with
// the current training step? An epoch-like loop of --steps steps of a small
// GPU training step (an MLP over [batch, features] float32 inputs, large
// enough that the upload is a noticeable part of the step), fed
//
//   loader_pageable_blocking: DataLoader(pin_memory=false) batches, each
//       uploaded with a blocking to(kCUDA) before its step;
//   loader_pinned_overlap: DataLoader(pin_memory=true) batches, batch k+1
//       uploaded with to(kCUDA, non_blocking=true) on a pool stream while
//       step k runs; the step's stream waits for the upload's CUDAEvent and
//       the uploaded tensors are record_stream'ed onto it (the prefetcher
//       PyTorch programs write; tools/dataloader_cuda_torch.py is one);
//
// and, to tell the copies' overlap apart from the loader's own throughput,
// the same two loops over a ring of prepared batches (pageable, or pinned
// once: ring_*), the step alone on a device-resident batch (step_only), one
// upload alone (upload_*), and the loader alone (loader_only_*). Every line
// is "case  us_per_step  figure", the time per step over --steps steps after
// warm-up (host-synchronized at the end only).
//
//   bazel-bin/benchmarks/dataloader_cuda [--steps=40] [--batch=256]
//       [--features=37632] [--hidden=4096] [--workers=8]
//
// What to look for: loader_pinned_overlap near max(step_only,
// loader_only_pinned, upload_pinned) and below loader_pageable_blocking
// (about step_only + upload_pageable); the "gain" figure is that ratio.
// ring_pinned_overlap near step_only says the copies overlap; if the
// ring overlaps but the loader does not, the loader (collate, pinning into
// the cached page-locked blocks of Note [Pinned host memory cache]) is what
// is left to fix.
//
// The default features are 3 x 112 x 112 (38.5 MB per batch of 256):
// 3 x 224 x 224 makes the loader (two copies of 154 MB per batch on the
// host) the bottleneck on any machine, which hides the upload.
//
// Exits 0 with a message where no GPU is available.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/dataloader.h"
#include "data/dataset.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/stream.h"

namespace ember {
namespace {

namespace F = nn::functional;
using data::Example;

struct Config {
  int64_t steps = 40, batch = 256, features = 3 * 112 * 112, hidden = 4096, workers = 8;
};
constexpr int64_t kWarmup = 3;
constexpr int64_t kClasses = 10;

// Samples are rows of a pool of random images (the loader still collates,
// i.e. copies, every batch, as with a real dataset); get() is thread-safe.
class PoolDataset : public data::MapStyleDataset<Example<>> {
 public:
  PoolDataset(int64_t size, int64_t features) : size_(size) {
    const int64_t pool = std::min<int64_t>(size, 1024);
    images_ = rand({pool, features});
    labels_ = randint(0, kClasses, {pool});
  }
  Example<> get(int64_t index) const override {
    const int64_t i = index % images_.size(0);
    return {images_[i], labels_[i]};
  }
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
  Tensor images_, labels_;
};

struct Mlp : nn::Module {
  Mlp(int64_t features, int64_t hidden)
      : fc1(register_module("fc1", nn::Linear(features, hidden))),
        fc2(register_module("fc2", nn::Linear(hidden, kClasses))) {}
  Tensor forward(const Tensor& x) { return fc2->forward(F::relu(fc1->forward(x))); }
  nn::Linear fc1, fc2;
};

// One training step on device tensors; nothing in it waits for the host.
std::shared_ptr<Mlp> mlp_on(const Config& c, const Device& dev) {
  auto net = std::make_shared<Mlp>(c.features, c.hidden);
  net->to(dev);
  return net;
}

class Trainer {
 public:
  Trainer(const Config& c, const Device& dev)
      : net_(mlp_on(c, dev)), opt_(net_->parameters(), optim::SGDOptions(0.01)) {}
  void step(const Tensor& x, const Tensor& y) {
    opt_.zero_grad();
    F::cross_entropy(net_->forward(x), y).backward();
    opt_.step();
  }

 private:
  std::shared_ptr<Mlp> net_;
  optim::SGD opt_;
};

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Microseconds per step of `steps` calls of `step(i)` after kWarmup calls,
// synchronized once at the end.
double per_step_us(int64_t steps, const std::function<void(int64_t)>& step) {
  for (int64_t i = 0; i < kWarmup; ++i) step(i);
  cuda::synchronize();
  const double t0 = now_us();
  for (int64_t i = 0; i < steps; ++i) step(kWarmup + i);
  cuda::synchronize();
  return (now_us() - t0) / steps;
}

void report(const char* name, double us, const std::string& figure = "") {
  std::printf("%-28s %10.1f  %s\n", name, us, figure.c_str());
}

std::string gbps(double bytes, double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes / us / 1e3);
  return buf;
}

std::string gain(double blocking_us, double overlap_us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gain %.2fx", blocking_us / overlap_us);
  return buf;
}

// Uploads host batches on a pool stream, one batch ahead of the steps (the
// prefetcher PyTorch programs write around a pin_memory DataLoader).
class Prefetcher {
 public:
  explicit Prefetcher(const Device& dev) : dev_(dev), side_(cuda::getStreamFromPool()) {}

  // Queues the upload of `host` on the side stream and keeps `host` until
  // the next preload. A pinned batch of the DataLoader is then freed into
  // the pinned host cache, which reuses the block once an event recorded on
  // the side stream says the copy is done (Note [Pinned host memory cache]
  // in tensor/cuda/host_cache.h), as PyTorch's caching host allocator.
  void preload(const Example<>& host) {
    {
      cuda::CUDAStreamGuard guard(side_);
      next_ = {host.data.to(dev_, /*non_blocking=*/true),
               host.target.to(dev_, /*non_blocking=*/true)};
      ready_.record(side_);
    }
    host_ = host;
  }
  // The uploaded batch, ordered on the current stream after its upload.
  Example<> take() {
    const cuda::CUDAStream current = cuda::getCurrentCUDAStream();
    ready_.block(current);
    next_.data.record_stream(current);
    next_.target.record_stream(current);
    return std::move(next_);
  }

 private:
  Device dev_;
  cuda::CUDAStream side_;
  cuda::CUDAEvent ready_;
  Example<> next_, host_;
};

void run(const Config& c) {
  const Device dev("cuda");
  manual_seed(0);
  // The overlapped loop preloads one batch more than it takes.
  const int64_t total = c.steps + kWarmup + 1;
  auto dataset = std::make_shared<PoolDataset>(total * c.batch, c.features);
  Trainer trainer(c, dev);
  const double batch_bytes = 4.0 * c.batch * c.features + 8.0 * c.batch;
  char line[128];
  std::snprintf(line, sizeof line, "batch %lld x %lld float32 (%.1f MB), hidden %lld, %lld workers",
                static_cast<long long>(c.batch), static_cast<long long>(c.features),
                batch_bytes / 1e6, static_cast<long long>(c.hidden),
                static_cast<long long>(c.workers));
  std::printf("%s\n", line);

  // The step alone, and one upload alone.
  Tensor pageable_x = rand({c.batch, c.features});
  Tensor pageable_y = randint(0, kClasses, {c.batch});
  Tensor pinned_x = pageable_x.pin_memory(), pinned_y = pageable_y.pin_memory();
  Tensor dev_x = pageable_x.to(dev), dev_y = pageable_y.to(dev);
  const double step_us = per_step_us(c.steps, [&](int64_t) { trainer.step(dev_x, dev_y); });
  report("step_only", step_us);
  double us =
      per_step_us(c.steps, [&](int64_t) { Tensor x = pageable_x.to(dev), y = pageable_y.to(dev); });
  report("upload_pageable", us, gbps(batch_bytes, us));
  us = per_step_us(c.steps, [&](int64_t) {
    Tensor x = pinned_x.to(dev, /*non_blocking=*/true), y = pinned_y.to(dev, true);
  });
  report("upload_pinned", us, gbps(batch_bytes, us));

  // Prepared batches: the copies' overlap without the loader.
  const int64_t ring = 4;
  std::vector<Example<>> pageable_ring, pinned_ring;
  for (int64_t i = 0; i < ring; ++i) {
    Tensor x = rand({c.batch, c.features}), y = randint(0, kClasses, {c.batch});
    pageable_ring.push_back({x, y});
    pinned_ring.push_back({x.pin_memory(), y.pin_memory()});
  }
  const double ring_blocking = per_step_us(c.steps, [&](int64_t i) {
    const Example<>& b = pageable_ring[i % ring];
    trainer.step(b.data.to(dev), b.target.to(dev));
  });
  report("ring_pageable_blocking", ring_blocking);
  {
    Prefetcher prefetch(dev);
    prefetch.preload(pinned_ring[0]);
    const double ring_overlap = per_step_us(c.steps, [&](int64_t i) {
      Example<> b = prefetch.take();
      prefetch.preload(pinned_ring[(i + 1) % ring]);
      trainer.step(b.data, b.target);
    });
    report("ring_pinned_overlap", ring_overlap, gain(ring_blocking, ring_overlap));
  }

  // The DataLoader: alone, then feeding the step.
  auto loader_options = [&](bool pin) {
    return data::DataLoaderOptions()
        .batch_size(c.batch)
        .num_workers(c.workers)
        .pin_memory(pin)
        .drop_last(true);
  };
  for (bool pin : {false, true}) {
    data::DataLoader loader(dataset, loader_options(pin));
    auto it = loader.begin();
    us = per_step_us(c.steps, [&](int64_t) {
      Example<> b = *it;
      ++it;
    });
    report(pin ? "loader_only_pinned" : "loader_only_pageable", us);
  }
  double loader_blocking = 0;
  {
    data::DataLoader loader(dataset, loader_options(false));
    auto it = loader.begin();
    loader_blocking = per_step_us(c.steps, [&](int64_t) {
      Example<> b = *it;
      ++it;
      trainer.step(b.data.to(dev), b.target.to(dev));
    });
    report("loader_pageable_blocking", loader_blocking);
  }
  {
    data::DataLoader loader(dataset, loader_options(true));
    auto it = loader.begin();
    Prefetcher prefetch(dev);
    prefetch.preload(*it);
    ++it;
    const double loader_overlap = per_step_us(c.steps, [&](int64_t) {
      Example<> b = prefetch.take();
      prefetch.preload(*it);
      ++it;
      trainer.step(b.data, b.target);
    });
    report("loader_pinned_overlap", loader_overlap, gain(loader_blocking, loader_overlap));
  }
}

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  ember::Config c;
  for (int i = 1; i < argc; ++i) {
    auto flag = [&](const char* name, int64_t* value, int64_t least) {
      const size_t n = std::strlen(name);
      if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') {
        *value = std::max<int64_t>(std::atoll(argv[i] + n + 1), least);
      }
    };
    flag("--steps", &c.steps, 1);
    flag("--batch", &c.batch, 1);
    flag("--features", &c.features, 1);
    flag("--hidden", &c.hidden, 1);
    flag("--workers", &c.workers, 0);
  }
  if (!ember::cuda::is_available()) {
    std::printf("no usable CUDA device: nothing to measure\n");
    return 0;
  }
  ember::run(c);
  return 0;
}
