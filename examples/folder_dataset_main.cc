// ./bazelw run //examples:folder_dataset [-- FOLDER]
// Without FOLDER, writes a few demo PGM images into a temporary folder first.

#include <stdlib.h>
#include <unistd.h>

#include <iostream>
#include <string>

#include "examples/folder_dataset.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  try {
    if (argc > 1) return examples::folder_dataset_main(argv[1], std::cout);
    char tmpl[] = "/tmp/ember_pgmXXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::cerr << "cannot make a temporary folder\n";
      return 1;
    }
    const std::string dir = tmpl;
    examples::write_demo_images(dir, 10);
    std::cout << "demo images in " << dir << "\n";
    const int rc = examples::folder_dataset_main(dir, std::cout);
    for (int i = 0; i < 10; ++i) unlink((dir + "/" + std::to_string(i % 3) + "_" + std::to_string(i) + ".pgm").c_str());
    rmdir(dir.c_str());
    return rc;
  } catch (const ember::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
