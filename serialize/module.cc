#include "serialize/module.h"

#include <map>

#include "absl/strings/numbers.h"
#include "serialize/pt.h"
#include "tensor/error.h"

namespace ember {
namespace {

// Note [Optimizers as .pt files]: an optimizer saved to a .pt name is
// PyTorch's optimizer.state_dict(), so torch's optimizer.load_state_dict
// takes it: {"state": {index: {"step": tensor(float32), buffer: tensor,
// ...}}, "param_groups": [{option: value, ..., "params": [indices]}]}.
// Numbered state entries ("old_dirs.0", "old_dirs.1": LBFGS's history)
// become lists; "step" is a float32 tensor as PyTorch >= 1.12 keeps it
// (0-dim; a capturable Adam's has shape [1], Note [Capturable Adam] in
// optim/adam.h). Loading needs nothing special: the file flattens back into
// Note [Optimizer state keys]'s form.
pt::Value param_state(const std::vector<std::pair<std::string, Tensor>>& buffers) {
  pt::Value::Entries out;
  std::map<std::string, size_t> lists;  // name -> its entry in `out`
  for (const auto& b : buffers) {
    const size_t dot = b.first.rfind('.');
    int64_t index = -1;
    if (dot != std::string::npos && absl::SimpleAtoi(b.first.substr(dot + 1), &index)) {
      const std::string name = b.first.substr(0, dot);
      auto it = lists.find(name);
      if (it == lists.end()) {
        it = lists.emplace(name, out.size()).first;
        out.emplace_back(pt::Value(name), pt::Value::list({}));
      }
      pt::Value::Items& items = out[it->second].second.mutable_items();
      EMBER_CHECK(index == static_cast<int64_t>(items.size()), "optimizer state entry '", b.first,
                  "' is out of order");
      items.emplace_back(b.second);
    } else if (b.first == "step") {
      out.emplace_back(pt::Value(b.first), pt::Value(b.second.to(kFloat)));
    } else {
      out.emplace_back(pt::Value(b.first), pt::Value(b.second));
    }
  }
  return pt::Value::dict(std::move(out));
}

pt::Value option_value(const optim::OptionValue& o) {
  if (auto* d = std::get_if<double>(&o)) return pt::Value(*d);
  if (auto* b = std::get_if<bool>(&o)) return pt::Value(*b);
  if (auto* i = std::get_if<int64_t>(&o)) return pt::Value(*i);
  if (auto* s = std::get_if<std::string>(&o)) return pt::Value(*s);
  const auto& pair = std::get<std::tuple<double, double>>(o);
  return pt::Value::tuple({pt::Value(std::get<0>(pair)), pt::Value(std::get<1>(pair))});
}

pt::Value torch_state_dict(const optim::OptimizerStateDict& sd) {
  pt::Value::Entries state;
  for (const auto& kv : sd.state) state.emplace_back(pt::Value(kv.first), param_state(kv.second));
  pt::Value::Items groups;
  for (const auto& g : sd.param_groups) {
    pt::Value::Entries group;
    for (const auto& o : g.options) group.emplace_back(pt::Value(o.first), option_value(o.second));
    pt::Value::Items params;
    for (int64_t p : g.params) params.emplace_back(p);
    group.emplace_back(pt::Value("params"), pt::Value::list(std::move(params)));
    groups.push_back(pt::Value::dict(std::move(group)));
  }
  return pt::Value::dict({{pt::Value("state"), pt::Value::dict(std::move(state))},
                          {pt::Value("param_groups"), pt::Value::list(std::move(groups))}});
}

}  // namespace

nn::IncompatibleKeys load(nn::Module& module, const std::string& path,
                          const MapLocation& map_location, bool strict) {
  return module.load_state_dict(load(path, map_location), strict);
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  if (pt::is_pt_path(path)) {
    pt::save_file(torch_state_dict(optimizer.state_dict()), path);
    return;
  }
  save(optimizer.state_dict().to_named_tensors(), path);
}

void load(optim::Optimizer& optimizer, const std::string& path, const MapLocation& map_location) {
  optimizer.load_state_dict(optim::OptimizerStateDict::from_named_tensors(load(path, map_location)));
}

}  // namespace ember
