// Writes interop_sample() to argv[1] with ember::safetensors::save_file and,
// given a second path, a Checkpoint built from it, for
// tools/safetensors_interop.py check / check-checkpoint.

#include <iostream>

#include "serialize/checkpoint.h"
#include "serialize/interop_sample.h"
#include "serialize/safetensors.h"
#include "tensor/creation.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: write_interop_sample FILE.safetensors [CHECKPOINT.safetensors]\n";
    return 2;
  }
  using ember::serialize_testing::interop_sample;
  try {
    ember::safetensors::save_file(interop_sample(), argv[1],
                                  ember::serialize_testing::interop_sample_metadata());
    std::cout << "wrote " << argv[1] << "\n";
    if (argc == 3) {
      ember::Checkpoint c;
      c.add_state_dict("model", interop_sample());
      c.add_state_dict("optimizer",
                       {{"state.0.momentum_buffer", ember::tensor({0.1f, 0.2f})}});
      c.set("epoch", 3);
      c.set("loss", 0.125);
      c.set("best", true);
      c.set("note", "resumed");
      c.save(argv[2]);
      std::cout << "wrote " << argv[2] << "\n";
    }
  } catch (const ember::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
