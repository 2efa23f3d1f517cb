#ifndef EMBER_SERIALIZE_TEST_NETS_H_
#define EMBER_SERIALIZE_TEST_NETS_H_

// A module for //serialize's tests with the names and layers of its
// PyTorch twin in tools/pt_interop.py: SmallNet (Linear, BatchNorm1d with
// its buffers, Linear).

#include "nn/nn.h"

namespace ember {
namespace serialize_testing {

class SmallNetImpl : public nn::Module {
 public:
  SmallNetImpl()
      : fc1(register_module("fc1", nn::Linear(4, 8))),
        bn(register_module("bn", nn::BatchNorm1d(8))),
        fc2(register_module("fc2", nn::Linear(8, 3))) {}
  Tensor forward(const Tensor& x) {
    return fc2->forward(nn::functional::relu(bn->forward(fc1->forward(x))));
  }
  nn::Linear fc1;
  nn::BatchNorm1d bn;
  nn::Linear fc2;
};
EMBER_MODULE(SmallNet);

}  // namespace serialize_testing
}  // namespace ember

#endif  // EMBER_SERIALIZE_TEST_NETS_H_
