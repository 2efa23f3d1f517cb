#ifndef EMBER_SERIALIZE_MODULE_H_
#define EMBER_SERIALIZE_MODULE_H_

// torch::save / torch::load for live objects: modules and optimizers to and
// from safetensors files (checkpoint.h holds the state-dict forms and the
// Checkpoint that bundles model, optimizer, scheduler and scalars).
//
//   ember::save(net, "net.safetensors");          // Note [Saving modules]
//   ember::load(net, "net.safetensors");          // load_state_dict, strict
//   ember::save(optimizer, "opt.safetensors");    // Note [Optimizer state keys]
//   ember::load(optimizer, "opt.safetensors");
//
// In a Checkpoint, the same state dicts go under names of their own:
//   ckpt.add_state_dict("model", net->state_dict());
//   ckpt.add_state_dict("optimizer", optimizer.state_dict().to_named_tensors());
//   ckpt.add_state_dict("scheduler", scheduler.state_dict());

#include <string>

#include "nn/module.h"
#include "optim/optimizer.h"
#include "serialize/checkpoint.h"

namespace ember {

// Loads a state dict saved from a module of the same structure into
// `module` (in place; strict: the keys must match exactly, else the keys
// that did not match are returned, as load_state_dict does).
nn::IncompatibleKeys load(nn::Module& module, const std::string& path,
                          const MapLocation& map_location = {}, bool strict = true);

// Holders (nn::Linear, a user's EMBER_MODULE(Net)) as libtorch takes them.
template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path) {
  save(*module, path);
}
template <typename M>
nn::IncompatibleKeys load(nn::ModuleHolder<M>& module, const std::string& path,
                          const MapLocation& map_location = {}, bool strict = true) {
  return load(static_cast<nn::Module&>(*module), path, map_location, strict);
}

// An optimizer's state dict (options of every group, per-parameter state),
// flat as Note [Optimizer state keys] names it. Loading needs an optimizer
// over parameters of the same group sizes; its buffers follow each
// parameter's device and dtype.
void save(const optim::Optimizer& optimizer, const std::string& path);
void load(optim::Optimizer& optimizer, const std::string& path,
          const MapLocation& map_location = {});

}  // namespace ember

#endif  // EMBER_SERIALIZE_MODULE_H_
