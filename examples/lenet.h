#ifndef EMBER_EXAMPLES_LENET_H_
#define EMBER_EXAMPLES_LENET_H_

#include <cstdint>
#include <ostream>

#include "nn/nn.h"

namespace ember {
namespace examples {

// Seed 003's LeNet, with PyTorch's parameter names (conv1, conv2, fc1, fc2,
// fc3): a state dict torch.save'd from tools/golden/lenet.py's Net loads
// into it (lenet_test).
class NetImpl : public nn::Module {
 public:
  NetImpl();
  // x: [N, 1, 32, 32] -> [N, 10].
  Tensor forward(Tensor x);
  // Every dimension but the batch's, multiplied.
  static int64_t num_flat_features(const Tensor& x);

  nn::Conv2d conv1, conv2;
  nn::Linear fc1, fc2, fc3;
};
EMBER_MODULE(Net);

// Seed 003's LeNet walk-through (tools/golden/lenet.py is the Python
// original): the network printed, a forward pass, an MSE loss and the graph
// behind it, conv1.bias.grad before and after backward, one SGD step, the
// state_dict listing, and a save/load round trip (through a .pt file, as
// torch.save writes it).
void lenet(std::ostream& out);

}  // namespace examples
}  // namespace ember

#endif  // EMBER_EXAMPLES_LENET_H_
