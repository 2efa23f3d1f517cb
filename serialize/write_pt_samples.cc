// Writes the ember_*.pt files into DIR for tools/pt_interop.py check (run
// from the workspace root: it reads serialize/testdata/pt/torch_*.pt).
//
//   bazel-bin/serialize/write_pt_samples /tmp/pt && /usr/bin/python3 tools/pt_interop.py check
//   /tmp/pt

#include <iostream>

#include "serialize/pt_sample.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_pt_samples DIR\n";
    return 2;
  }
  try {
    for (const std::string& name : ember::serialize_testing::write_ember_made_files(argv[1])) {
      std::cout << "wrote " << argv[1] << "/" << name << "\n";
    }
  } catch (const ember::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
