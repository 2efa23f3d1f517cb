#ifndef EMBER_EXAMPLES_TENSOR_TOUR_H_
#define EMBER_EXAMPLES_TENSOR_TOUR_H_

#include <ostream>

namespace ember::examples {

// The tensor parts of the seed tutorials, ported to C++ (see tensor_tour.cc).
// Random values come from manual_seed(0), so every line is deterministic.
void tensor_tour(std::ostream& out);

}  // namespace ember::examples

#endif  // EMBER_EXAMPLES_TENSOR_TOUR_H_
