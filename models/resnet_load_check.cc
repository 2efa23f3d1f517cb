// Loads a torchvision ResNet state_dict (torch.save'd .pth, or safetensors)
// into models::ResNet with strict=true and compares the eval-mode logits
// with torchvision's: the manual half of tools/resnet_interop.py (its
// docstring has the commands).

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <tuple>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "autograd/grad_mode.h"
#include "models/resnet.h"
#include "serialize/checkpoint.h"
#include "serialize/safetensors.h"
#include "tensor/creation.h"
#include "tensor/reduce.h"

ABSL_FLAG(std::string, arch, "resnet18", "resnet18, resnet34, resnet50, resnet101 or resnet152");
ABSL_FLAG(int64_t, num_classes, 1000, "the checkpoint's number of classes");
ABSL_FLAG(std::string, weights, "", "torchvision's state_dict: a .pth or .safetensors file");
ABSL_FLAG(std::string, io, "",
          "safetensors file with \"input\" and torchvision's \"logits\" "
          "(tools/resnet_interop.py make); empty: print the top-5 of a 0.5 image");

namespace {

using ember::Tensor;
namespace models = ember::models;

int run() {
  const std::map<std::string, std::function<models::ResNet(const models::ResNetOptions&)>>
      archs = {{"resnet18", models::resnet18},
               {"resnet34", models::resnet34},
               {"resnet50", models::resnet50},
               {"resnet101", models::resnet101},
               {"resnet152", models::resnet152}};
  auto it = archs.find(absl::GetFlag(FLAGS_arch));
  if (it == archs.end() || absl::GetFlag(FLAGS_weights).empty()) {
    std::cerr << "usage: resnet_load_check --arch=resnet18 --weights=FILE [--io=FILE]\n";
    return 2;
  }
  models::ResNet net = it->second(models::ResNetOptions().num_classes(absl::GetFlag(FLAGS_num_classes)));
  net->load_state_dict(ember::load(absl::GetFlag(FLAGS_weights)), /*strict=*/true);
  net->eval();
  ember::NoGradGuard no_grad;

  if (absl::GetFlag(FLAGS_io).empty()) {
    const Tensor logits = net(ember::full({1, 3, 224, 224}, 0.5));
    auto [values, indices] = logits.topk(5);
    std::cout << "top-5 classes of a 0.5 image: " << indices << "\nlogits: " << values << "\n";
    return 0;
  }
  const ember::safetensors::Contents io = ember::safetensors::load_file(absl::GetFlag(FLAGS_io));
  const Tensor logits = net(io.at("input"));
  const double diff = (logits - io.at("logits")).abs().max().item<double>();
  // Relative to the largest logit: randomly initialized deep ResNets in
  // eval mode reach logits in the hundreds.
  const double scale = std::max(1.0, io.at("logits").abs().max().item<double>());
  std::cout << absl::GetFlag(FLAGS_arch) << ": loaded " << absl::GetFlag(FLAGS_weights)
            << " strictly; logits[0, :4] = " << logits.select(0, 0).slice(0, 0, 4)
            << "\nlargest difference from torchvision's logits: " << diff << " (" << diff / scale
            << " of the largest logit)\n";
  return diff <= 1e-4 * scale ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  try {
    return run();
  } catch (const std::exception& e) {
    std::cerr << "resnet_load_check: " << e.what() << "\n";
    return 1;
  }
}
