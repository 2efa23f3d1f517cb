#include "serialize/module.h"

namespace ember {

nn::IncompatibleKeys load(nn::Module& module, const std::string& path,
                          const MapLocation& map_location, bool strict) {
  return module.load_state_dict(load(path, map_location), strict);
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  save(optimizer.state_dict().to_named_tensors(), path);
}

void load(optim::Optimizer& optimizer, const std::string& path, const MapLocation& map_location) {
  optimizer.load_state_dict(optim::OptimizerStateDict::from_named_tensors(load(path, map_location)));
}

}  // namespace ember
