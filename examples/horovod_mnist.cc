// Seed 003's Horovod program ("Horovod 的优雅实现") in C++ with ember::hvd:
//
//   hvd.init(); torch.cuda.set_device(hvd.local_rank())
//   train_sampler = DistributedSampler(train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
//   optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
//                                        compression=hvd.Compression.fp16)
//   hvd.broadcast_parameters(model.state_dict(), root_rank=0)
//   for epoch ...: zero_grad(); loss.backward(); optimizer.step()
//
// Run it where horovodrun would: under ember's launcher (or torchrun, or
// mpirun with MASTER_ADDR/MASTER_PORT exported):
//   bazel-bin/distributed/launch --nproc_per_node=2 bazel-bin/examples/horovod_mnist
// Rank 0 prints each epoch's mean training loss (averaged over the ranks).

#include <cstdio>
#include <iostream>
#include <memory>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/mnist.h"
#include "data/sampler.h"
#include "data/transforms.h"
#include "distributed/hvd.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "trainers/mnist_net.h"

ABSL_FLAG(std::string, data_root, ember::data::kDefaultMnistRoot, "MNIST IDX files");
ABSL_FLAG(int64_t, epochs, 2, "epochs");
ABSL_FLAG(int64_t, train_limit, 0, "train on the first N images only (0: all)");
ABSL_FLAG(int64_t, batch_size, 64, "images per batch and rank");
ABSL_FLAG(double, lr, 0.01, "SGD learning rate (scaled by hvd::size(), as Horovod advises)");
ABSL_FLAG(bool, fp16, true, "all-reduce gradients in float16 (hvd::Compression::fp16)");

namespace hvd = ember::hvd;
namespace F = ember::nn::functional;

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    hvd::init();
    ember::Device device("cpu");
    if (ember::cuda::is_available()) device = ember::Device(ember::kCUDA, hvd::local_rank());

    ember::data::transforms::Compose t({ember::data::transforms::ToTensor(),
                                        ember::data::transforms::Normalize({0.1307}, {0.3081})});
    std::shared_ptr<const ember::data::MapStyleDataset<ember::data::Example<>>> train =
        std::make_shared<ember::data::MNIST>(absl::GetFlag(FLAGS_data_root), true, t);
    if (const int64_t n = absl::GetFlag(FLAGS_train_limit); n > 0 && n < train->size()) {
      std::vector<int64_t> first(n);
      for (int64_t i = 0; i < n; ++i) first[i] = i;
      train = std::make_shared<ember::data::Subset<ember::data::Example<>>>(train, first);
    }
    auto sampler = std::make_shared<ember::data::DistributedSampler>(train->size(), hvd::size(),
                                                                      hvd::rank());

    ember::trainers::Net model;
    model->to(device);
    ember::optim::SGD sgd(model->parameters(),
                          ember::optim::SGDOptions(absl::GetFlag(FLAGS_lr) * hvd::size())
                              .momentum(0.9));
    hvd::DistributedOptimizer optimizer(
        sgd, model->named_parameters(),
        absl::GetFlag(FLAGS_fp16) ? hvd::Compression::fp16 : hvd::Compression::none);
    hvd::broadcast_parameters(model->state_dict(), /*root_rank=*/0);

    for (int64_t epoch = 0; epoch < absl::GetFlag(FLAGS_epochs); ++epoch) {
      sampler->set_epoch(epoch);
      ember::data::DataLoader loader(
          train, ember::data::DataLoaderOptions().batch_size(absl::GetFlag(FLAGS_batch_size))
                     .sampler(sampler));
      double total = 0;
      int64_t batches = 0;
      model->train();
      for (ember::data::Example<>& batch : loader) {
        ember::Tensor loss = F::cross_entropy(model->forward(batch.data.to(device)),
                                              batch.target.to(device));
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        total += loss.item<double>();
        ++batches;
      }
      const double mean = hvd::allreduce(ember::tensor({total / batches}, ember::kDouble))
                              .item<double>();
      if (hvd::rank() == 0) {
        std::cout << "Epoch " << epoch + 1 << ": mean training loss " << mean << std::endl;
      }
    }
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::cerr << "horovod_mnist: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
