// Uses ember from another Bazel workspace: makes tensors, computes with them
// and prints lines that .ci/run compares with hello.expected, which is what
// PyTorch prints for the same program:
//
//   x = torch.arange(6).view(2, 3); y = x.to(torch.float) * 0.5 + 1
//   print('ember from another workspace'); print(x); print(y.t())
//   print('sum:', y.sum().item())

#include <iostream>

#include "tensor/all.h"

int main() {
  ember::Tensor x = ember::arange(6).view({2, 3});
  ember::Tensor y = x.to(ember::kFloat) * 0.5 + 1;

  std::cout << "ember from another workspace\n";
  std::cout << x << "\n";
  std::cout << y.t() << "\n";
  std::cout << "sum: " << y.sum().item<double>() << "\n";
  std::cout << "CUDA available: " << (ember::cuda::is_available() ? "yes" : "no") << "\n";
  return 0;
}
