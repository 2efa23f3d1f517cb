// Seed 000's single-machine multi-GPU training ("单机多卡DP") in C++ with
// nn::DataParallel:
//
//   model = Net()
//   model.cuda()
//   if torch.cuda.device_count() > 1:
//       model = nn.DataParallel(model)                    # every GPU
//   model = nn.DataParallel(model, device_ids=[0, 1])    # the GPUs named
//
// Trains seed 003's MNIST network on Fashion-MNIST for a few steps, each
// batch split across the devices, and prints every step's loss. --devices
// names them ("cuda:0,cuda:1"; "cpu,cpu" runs two replicas on CPU threads);
// by default every CUDA device, and without one the CPU. On one device
// DataParallel calls the module as it is, so `--devices=cpu` is the
// single-module run the others' losses match.
//
//   ./bazelw run //examples:data_parallel_mnist -- --devices=cpu,cpu

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/mnist.h"
#include "data/transforms.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "tensor/all.h"
#include "trainers/mnist_net.h"

ABSL_FLAG(std::string, data_root, ember::data::kDefaultMnistRoot, "MNIST IDX files");
ABSL_FLAG(std::string, devices, "",
          "devices to split each batch across, comma-separated (cuda:0,cuda:1 or cpu,cpu); "
          "empty: every CUDA device, or the CPU without one");
ABSL_FLAG(int64_t, steps, 20, "training steps");
ABSL_FLAG(int64_t, batch_size, 64, "images per step (all devices together)");
ABSL_FLAG(double, lr, 0.01, "SGD learning rate (momentum 0.9)");
ABSL_FLAG(int, threads, 1, "intra-op threads (shared by the replicas)");

namespace nn = ember::nn;
namespace F = ember::nn::functional;

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    ember::set_num_threads(absl::GetFlag(FLAGS_threads));
    std::vector<ember::Device> devices;
    for (absl::string_view d :
         absl::StrSplit(absl::GetFlag(FLAGS_devices), ',', absl::SkipEmpty())) {
      devices.emplace_back(std::string(d));
    }
    if (devices.empty()) devices = nn::parallel::default_devices();
    if (devices.empty()) devices.emplace_back(ember::kCPU);
    std::cout << "DataParallel over " << absl::StrJoin(devices, ", ", absl::StreamFormatter())
              << (devices.size() == 1 ? " (the module alone)" : "") << std::endl;

    ember::manual_seed(0);
    ember::trainers::Net net;
    net->to(devices[0]);  // model.cuda()
    nn::DataParallel<ember::trainers::NetImpl> model(net.ptr(), devices);
    ember::optim::SGD optimizer(model->parameters(),
                                ember::optim::SGDOptions(absl::GetFlag(FLAGS_lr)).momentum(0.9));

    ember::data::transforms::Compose t({ember::data::transforms::ToTensor(),
                                        ember::data::transforms::Normalize({0.1307}, {0.3081})});
    auto train = std::make_shared<ember::data::MNIST>(absl::GetFlag(FLAGS_data_root), true, t);
    ember::data::DataLoader loader(
        train,
        ember::data::DataLoaderOptions().batch_size(absl::GetFlag(FLAGS_batch_size)).shuffle(true));
    model->train();
    int64_t step = 0;
    for (ember::data::Example<>& batch : loader) {
      if (step == absl::GetFlag(FLAGS_steps)) break;
      ember::Tensor output = model(batch.data.to(devices[0]));
      ember::Tensor loss = F::cross_entropy(output, batch.target.to(output.device()));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      std::printf("step %lld: loss %.6f\n", static_cast<long long>(++step), loss.item<double>());
    }
    std::fflush(stdout);
  } catch (const std::exception& e) {
    std::cerr << "data_parallel_mnist: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
