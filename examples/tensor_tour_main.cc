#include <iostream>

#include "examples/tensor_tour.h"

int main() {
  ember::examples::tensor_tour(std::cout);
  return 0;
}
