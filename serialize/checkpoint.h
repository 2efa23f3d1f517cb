#ifndef EMBER_SERIALIZE_CHECKPOINT_H_
#define EMBER_SERIALIZE_CHECKPOINT_H_

// ember::save / ember::load (torch.save / torch.load for state dicts) and
// Checkpoint, a training checkpoint in one file. Both write atomically (Note
// [Atomic writes]): safetensors (safetensors.h), readable by Python's
// safetensors.torch.load_file, or, for a path ending .pt or .pth, the
// torch.save format (pt.h), readable by torch.load(weights_only=True).
// Loading tells the formats apart by their first bytes, whatever the name.
//
// In .pt files, tensors carry their device as torch.save writes it, and each
// record's CRC-32 stands in for the checksums below (verify_checksums checks
// it). The rest of this note is about safetensors files:
//
// What ember adds lives in the header's __metadata__ under keys starting
// with "ember." (reserved):
//   "ember.devices"      JSON object: key -> device, for tensors not on the
//                         CPU when saved (CPU tensors are not listed)
//   "ember.format"       "checkpoint" for a Checkpoint
//   "ember.state_dicts"  JSON array of a Checkpoint's state dict names
//   "ember.crc32c"       JSON object: key -> CRC-32C of the tensor's dtype,
//                         shape and bytes (Note [Tensor checksums])

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "serialize/safetensors.h"
#include "tensor/device.h"
#include "tensor/tensor.h"

namespace ember {

// Where each loaded tensor goes (torch.load's map_location). By default a
// tensor goes back to the device it was saved from; loading CUDA tensors
// where CUDA is unavailable then fails, as in PyTorch, and a map_location of
// "cpu" is the remedy.
class MapLocation {
 public:
  // (key, device it was saved from) -> device to load it on.
  using Fn = std::function<Device(const std::string& key, const Device& saved)>;

  MapLocation() = default;
  MapLocation(Device device);              // NOLINT: everything to `device`
  MapLocation(const char* device);         // NOLINT: "cpu", "cuda:0"
  MapLocation(const std::string& device);  // NOLINT
  MapLocation(Fn fn);                      // NOLINT
  // Device renaming, like map_location={"cuda:1": "cuda:0"}; devices not
  // named stay where they were saved.
  static MapLocation remap(const std::map<std::string, std::string>& from_to);

  Device operator()(const std::string& key, const Device& saved) const;

 private:
  Fn fn_;  // empty: the saved device
};

// Saves a state dict (ordered name -> tensor) to `path`, atomically: as
// torch.save(OrderedDict) for a .pt or .pth name, else as safetensors.
void save(const NamedTensors& state_dict, const std::string& path);
// Loads what save() wrote, any safetensors file, or a torch.save file of a
// (nested) state dict, in the file's order; nested dicts are flattened
// (Note [Flattening .pt values] in pt.h). Files ember wrote carry a checksum
// of every tensor (Note [Tensor checksums] in checkpoint.cc; a .pt file's
// CRC-32s), verified unless verify_checksums is false: a flipped bit or an
// edited dtype is an error naming the file and the tensor. Tensors that
// share a storage in a .pt file still share one when loaded.
NamedTensors load(const std::string& path, const MapLocation& map_location = {},
                  bool verify_checksums = true);

// One tensor (libtorch's torch::save(tensor, path) / torch::load(tensor,
// path)): a .pt or .pth name holds the bare tensor, as torch.save(tensor)
// writes it; other names a safetensors file with the one tensor, called
// "tensor". load() reads either (from a safetensors file holding exactly one
// tensor, whatever its name) and replaces `tensor` (the handle, not its data).
void save(const Tensor& tensor, const std::string& path);
void load(Tensor& tensor, const std::string& path, const MapLocation& map_location = {},
          bool verify_checksums = true);

// Note [Saving modules]: this overload saves anything whose state_dict()
// yields (name, Tensor) pairs: an nn::Module (parameters and persistent
// buffers, dotted names) or a user's own type. serialize/module.h adds
// module holders, load(module, path) and optimizers; this header stays free
// of //nn and //optim so that their users need not link them.
template <typename M, typename = decltype(std::declval<const M&>().state_dict().begin()),
          typename = std::enable_if_t<!std::is_same<M, NamedTensors>::value>>
void save(const M& module, const std::string& path) {
  NamedTensors sd;
  for (const auto& kv : module.state_dict()) sd.emplace_back(kv.first, kv.second);
  save(sd, path);
}

// A training checkpoint: named state dicts (model, optimizer, scheduler)
// plus numbers and strings (epoch, loss, a note), in one safetensors file.
//
// Layout in the file: tensor "<name>/<key>" for entry <key> of state dict
// <name>; integers, floats and bools as 0-dim I64 / F64 / BOOL tensors under
// their own key; strings in __metadata__ under their own key. So Python
// sees {"model/fc.weight": ..., "epoch": tensor(3), ...} and the strings in
// safe_open(...).metadata().
class Checkpoint {
 public:
  // Adds (or replaces) the state dict `name`; `name` must be non-empty and
  // contain no '/'.
  void add_state_dict(const std::string& name, const NamedTensors& state_dict);
  bool has_state_dict(const std::string& name) const;
  // The state dict `name`, keys without the "<name>/" prefix, in order.
  NamedTensors state_dict(const std::string& name) const;
  const std::vector<std::string>& state_dict_names() const { return state_dicts_; }

  // Scalars and strings under `key` (which must not contain '/', start with
  // "ember." or be "__metadata__"); setting a key again replaces it.
  void set(const std::string& key, int64_t value);
  void set(const std::string& key, int value) { set(key, static_cast<int64_t>(value)); }
  void set(const std::string& key, double value);
  void set(const std::string& key, bool value);
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, const char* value) { set(key, std::string(value)); }
  void set(const std::string& key, const Tensor& value);

  bool contains(const std::string& key) const;
  // Integer (or bool) one-element entries; throws for other entries.
  int64_t get_int(const std::string& key) const;
  // Any numeric one-element entry.
  double get_double(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  const Tensor& get_tensor(const std::string& key) const;

  // Everything as stored: tensors (state dict entries and scalars) and strings.
  const NamedTensors& tensors() const { return tensors_; }
  const Metadata& strings() const { return strings_; }

  // A path ending .pt or .pth writes the dict a PyTorch user would
  // torch.save (Note [Checkpoints as .pt files] in checkpoint.cc); other
  // names write safetensors.
  void save(const std::string& path) const;
  // Reads either format (a torch.save dict of state dicts, numbers, strings
  // and tensors, PyTorch's own checkpoints included). Checksums are
  // verified as by ember::load.
  static Checkpoint load(const std::string& path, const MapLocation& map_location = {},
                         bool verify_checksums = true);

 private:
  void save_pt(const std::string& path) const;
  static Checkpoint load_pt(const std::string& path, const MapLocation& map_location,
                            bool verify_checksums);
  void check_key(const std::string& key) const;
  void erase(const std::string& key);
  const Tensor* find_tensor(const std::string& key) const;

  NamedTensors tensors_;
  Metadata strings_;
  std::vector<std::string> state_dicts_;
};

}  // namespace ember

#endif  // EMBER_SERIALIZE_CHECKPOINT_H_
