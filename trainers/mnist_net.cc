#include "trainers/mnist_net.h"

namespace ember {
namespace trainers {

namespace F = nn::functional;

NetImpl::NetImpl()
    : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 20, 5).stride(1)))),
      conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(20, 50, 5).stride(1)))),
      fc1(register_module("fc1", nn::Linear(4 * 4 * 50, 500))),
      fc2(register_module("fc2", nn::Linear(500, 10))) {}

Tensor NetImpl::forward(Tensor x) {
  x = F::relu(conv1->forward(x));
  x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
  x = F::relu(conv2->forward(x));
  x = F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
  x = x.view({-1, 4 * 4 * 50});
  x = F::relu(fc1->forward(x));
  return fc2->forward(x);
}

}  // namespace trainers
}  // namespace ember
