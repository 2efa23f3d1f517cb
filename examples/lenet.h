#ifndef EMBER_EXAMPLES_LENET_H_
#define EMBER_EXAMPLES_LENET_H_

#include <ostream>

namespace ember {
namespace examples {

// Seed 003's LeNet walk-through (tools/golden/lenet.py is the Python
// original): the network printed, a forward pass, an MSE loss and the graph
// behind it, conv1.bias.grad before and after backward, one SGD step, the
// state_dict listing, and a save/load round trip.
void lenet(std::ostream& out);

}  // namespace examples
}  // namespace ember

#endif  // EMBER_EXAMPLES_LENET_H_
