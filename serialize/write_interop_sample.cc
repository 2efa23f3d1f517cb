// Writes interop_sample() to argv[1] with ember::safetensors::save_file, for
// tools/safetensors_interop.py check.

#include <iostream>

#include "serialize/interop_sample.h"
#include "serialize/safetensors.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_interop_sample FILE.safetensors\n";
    return 2;
  }
  try {
    ember::safetensors::save_file(ember::serialize_testing::interop_sample(), argv[1],
                                  ember::serialize_testing::interop_sample_metadata());
  } catch (const ember::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << argv[1] << "\n";
  return 0;
}
