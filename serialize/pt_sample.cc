#include "serialize/pt_sample.h"

#include <fstream>

#include "optim/optim.h"
#include "serialize/checkpoint.h"
#include "serialize/interop_sample.h"
#include "serialize/module.h"
#include "serialize/pickle.h"
#include "serialize/pt.h"
#include "serialize/test_nets.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/indexing.h"
#include "tensor/shape.h"

namespace ember {
namespace serialize_testing {

NamedTensors views_sample() {
  using namespace indexing;  // NOLINT
  Tensor base = arange(24, TensorOptions(kFloat)).reshape({4, 6});
  Tensor tied = arange(6, TensorOptions(kLong)).reshape({2, 3});
  return {
      {"base", base},
      {"t", base.t()},
      {"row", base[1]},
      {"strided", base.index({Slice(), Slice(None, None, 2)})},
      {"block", base.index({Slice(1, 3), Slice(2, 5)})},
      {"element", base.index({2, 3})},
      {"empty_tail", base.index({Slice(4, None)})},
      {"expanded", tensor({1, 2, 3}, kShort).expand({2, 3})},
      {"tied", tied},
      {"tied_again", tied},
  };
}

std::vector<std::string> write_ember_made_files(const std::string& dir) {
  auto path = [&](const std::string& name) { return dir + "/" + name; };
  save(interop_sample(), path("ember_sample.pt"));
  {
    std::ofstream out(path("ember_zip64.pt"), std::ios::binary | std::ios::trunc);
    serialize_internal::write_pt(
        pt::from_state_dict(interop_sample()),
        [&](const void* d, size_t n) { out.write(static_cast<const char*>(d), n); },
        /*force_zip64=*/true);
    EMBER_CHECK(out.good(), "cannot write ", path("ember_zip64.pt"));
  }
  save(views_sample(), path("ember_views.pt"));
  save(arange(6, TensorOptions(kDouble)).reshape({2, 3}).t(), path("ember_tensor.pt"));

  Checkpoint c;
  c.add_state_dict("model", interop_sample());
  c.add_state_dict("optimizer", {{"state.0.momentum_buffer", tensor({0.1f, 0.2f})}});
  c.set("epoch", 3);
  c.set("loss", 0.125);
  c.set("best", true);
  c.set("note", "resumed");
  c.save(path("ember_checkpoint.pt"));

  SmallNet net;
  load(net, std::string(kPtTestdata) + "torch_smallnet.pt");
  save(net, path("ember_smallnet.pt"));
  optim::Adam adam(net->parameters(), optim::AdamOptions(0.5));
  load(adam, std::string(kPtTestdata) + "torch_adam.pt");
  save(adam, path("ember_adam.pt"));
  // A capturable Adam after one step (Note [Capturable Adam]): its step is
  // float32 of shape [1], as PyTorch 1.13 keeps a capturable one.
  Tensor w = tensor({0.5, -0.25, 1.0}, kFloat).requires_grad_();
  w.mutable_grad() = tensor({0.1, 0.2, -0.3}, kFloat);
  optim::Adam capturable({w}, optim::AdamOptions(0.01).capturable(true));
  capturable.step();
  save(capturable, path("ember_adam_capturable.pt"));
  return {"ember_sample.pt",     "ember_zip64.pt",    "ember_views.pt", "ember_tensor.pt",
          "ember_checkpoint.pt", "ember_smallnet.pt", "ember_adam.pt",  "ember_adam_capturable.pt"};
}

}  // namespace serialize_testing
}  // namespace ember
