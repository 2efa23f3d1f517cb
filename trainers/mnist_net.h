#ifndef EMBER_TRAINERS_MNIST_NET_H_
#define EMBER_TRAINERS_MNIST_NET_H_

// The MNIST classifier of seed 003: ConvNet -> max pool -> ReLU -> ConvNet
// -> max pool -> ReLU -> FC -> ReLU -> FC (the softmax is in the loss).
//
//   Net(
//     (conv1): Conv2d(1, 20, kernel_size=(5, 5), stride=(1, 1))
//     (conv2): Conv2d(20, 50, kernel_size=(5, 5), stride=(1, 1))
//     (fc1): Linear(in_features=800, out_features=500, bias=True)
//     (fc2): Linear(in_features=500, out_features=10, bias=True)
//   )

#include "nn/nn.h"

namespace ember {
namespace trainers {

class NetImpl : public nn::Module {
 public:
  NetImpl();
  // x: [N, 1, 28, 28] -> logits [N, 10].
  Tensor forward(Tensor x);

  nn::Conv2d conv1, conv2;
  nn::Linear fc1, fc2;
};
EMBER_MODULE(Net);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_MNIST_NET_H_
