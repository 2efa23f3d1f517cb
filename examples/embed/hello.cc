// Uses ember from another Bazel workspace: makes tensors, converts and
// reduces them, and prints lines a script can check.

#include <iostream>

#include "tensor/cuda/cuda.h"
#include "tensor/empty.h"
#include "tensor/tensor.h"

int main() {
  // A 2x3 float32 tensor holding 0, 1, ..., 5.
  ember::Tensor x = ember::empty({2, 3});
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] = static_cast<float>(i);

  // Converted to float64, then summed through the raw data.
  ember::Tensor y = x.to(ember::kDouble);
  double sum = 0;
  for (int64_t i = 0; i < y.numel(); ++i) sum += y.data_ptr<double>()[i];

  ember::Tensor z = ember::empty({4}, ember::TensorOptions(ember::kLong));
  z.fill_(7);

  std::cout << "ember from another workspace\n";
  std::cout << "x: dim " << x.dim() << ", numel " << x.numel() << ", dtype "
            << ember::scalar_type_name(x.dtype()) << "\n";
  std::cout << "sum of x as float64: " << sum << "\n";
  std::cout << "z[3] after fill_(7): " << z.data_ptr<int64_t>()[3] << "\n";
  std::cout << "CUDA available: " << (ember::cuda::is_available() ? "yes" : "no") << "\n";
  return 0;
}
