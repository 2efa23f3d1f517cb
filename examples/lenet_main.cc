// ./bazelw run //examples:lenet : seed 003's LeNet walk-through in C++.
#include <iostream>

#include "examples/lenet.h"

int main() {
  ember::examples::lenet(std::cout);
  return 0;
}
