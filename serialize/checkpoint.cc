#include "serialize/checkpoint.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serialize/byte_source.h"
#include "serialize/json.h"
#include "serialize/pickle.h"
#include "serialize/pt.h"
#include "tensor/crc32c.h"
#include "tensor/cuda/cuda.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace {

constexpr char kDevicesKey[] = "ember.devices";
constexpr char kFormatKey[] = "ember.format";
constexpr char kStateDictsKey[] = "ember.state_dicts";
constexpr char kChecksumsKey[] = "ember.crc32c";

// Records the devices of the tensors not on the CPU (empty when all are).
void record_devices(const NamedTensors& tensors, Metadata* metadata) {
  std::string devices;
  for (const auto& kv : tensors) {
    if (!kv.second.defined() || kv.second.is_cpu()) continue;
    devices += devices.empty() ? "{" : ",";
    json::append_quoted(&devices, kv.first);
    devices += ':';
    json::append_quoted(&devices, kv.second.device().str());
  }
  if (!devices.empty()) (*metadata)[kDevicesKey] = devices + "}";
}

// The devices the tensors of a safetensors file were saved from
// ("ember.devices"; CPU when not listed), in the tensors' order.
std::vector<Device> saved_devices(const NamedTensors& tensors, const Metadata& metadata) {
  std::map<std::string, std::string> saved;
  auto it = metadata.find(kDevicesKey);
  if (it != metadata.end()) {
    json::Value v;
    try {
      v = json::parse(it->second);
    } catch (const Error& e) {
      throw Error(absl::StrCat("invalid ", kDevicesKey, " metadata: ", e.what()));
    }
    EMBER_CHECK(v.is_object(), "invalid ", kDevicesKey, " metadata: not a JSON object");
    for (const auto& kv : v.object()) {
      EMBER_CHECK(kv.second.is_string(), "invalid ", kDevicesKey, " metadata: the device of '",
                  kv.first, "' is not a string");
      saved[kv.first] = kv.second.string();
    }
  }
  std::vector<Device> out;
  out.reserve(tensors.size());
  for (const auto& kv : tensors) {
    auto s = saved.find(kv.first);
    Device from(kCPU);
    if (s != saved.end()) {
      try {
        from = Device(s->second);
      } catch (const Error& e) {
        throw Error(absl::StrCat("invalid ", kDevicesKey, " metadata for '", kv.first,
                                 "': ", e.what()));
      }
    }
    out.push_back(from);
  }
  return out;
}

// Moves each loaded (CPU) tensor where map_location says, given the device
// it was saved from. Tensors that share a storage (views in a .pt file)
// move together, where the first of them is sent, so they stay views of one
// storage as torch.load keeps them.
void place(NamedTensors* tensors, const std::vector<Device>& saved,
           const MapLocation& map_location) {
  std::unordered_map<const StorageImpl*, Storage> moved;  // nullptr: stays on the CPU
  for (size_t i = 0; i < tensors->size(); ++i) {
    auto& kv = (*tensors)[i];
    const Storage& storage = kv.second.unsafeGetTensorImpl()->storage();
    auto it = moved.find(storage.get());
    if (it == moved.end()) {
      Device to = map_location(kv.first, saved[i]);
      Storage target;
      if (!to.is_cpu()) {
        if (to.is_cuda() && !cuda::is_available()) {
          throw Error(absl::StrCat(
              "Attempting to deserialize '", kv.first, "' on a CUDA device (", to.str(),
              ") but ember::cuda::is_available() is false. If you are running on a CPU-only "
              "machine, load with map_location \"cpu\" to map your tensors to the CPU."));
        }
        const int64_t nbytes = static_cast<int64_t>(storage->nbytes());
        const Tensor bytes(std::make_shared<TensorImpl>(storage, kByte, IntArrayRef(&nbytes, 1)));
        target = bytes.to(to).unsafeGetTensorImpl()->storage();
      }
      it = moved.emplace(storage.get(), std::move(target)).first;
    }
    if (it->second) {
      const Tensor& t = kv.second;
      kv.second = Tensor(std::make_shared<TensorImpl>(it->second, t.dtype(), t.sizes(),
                                                      t.strides(), t.storage_offset()));
    }
  }
}

// Whether the file at `path` starts as torch.save files do (pt.h).
bool is_torch_save_file(const std::string& path) {
  serialize_internal::FileSource src(path);
  return pt::looks_like_torch_save(
      src.read_string(0, std::min<uint64_t>(src.size(), pt::kSniffBytes)));
}

bool is_reserved(const std::string& key) { return absl::StartsWith(key, "ember."); }

// Note [Tensor checksums]: "ember.crc32c" holds a JSON object, key -> the
// CRC-32C (8 hex digits) of the tensor's dtype name, its shape and its bytes
// as stored ("F32[2,3]" then the data). The dtype and shape are covered so
// that a header edited to read the same bytes as another dtype (F32 -> I32)
// fails as a flipped bit in the data does. Other readers ignore the key;
// files without it (Python's, older ember's) load unchecked.
uint32_t tensor_checksum(const std::string& dtype, const Tensor& cpu_contiguous) {
  std::string head = dtype + "[";
  for (int64_t d = 0; d < cpu_contiguous.dim(); ++d) {
    absl::StrAppend(&head, d ? "," : "", cpu_contiguous.size(d));
  }
  head += "]";
  const uint32_t crc = crc32c(head);
  return crc32c(cpu_contiguous.data_ptr(), cpu_contiguous.nbytes(), crc);
}

void record_checksums(const NamedTensors& tensors, Metadata* metadata) {
  std::string sums = "{";
  for (const auto& kv : tensors) {
    if (!kv.second.defined()) continue;
    const Tensor c = kv.second.to(Device(kCPU)).contiguous();
    if (sums.size() > 1) sums += ',';
    json::append_quoted(&sums, kv.first);
    sums += ':';
    json::append_quoted(
        &sums,
        absl::StrFormat("%08x", tensor_checksum(safetensors::dtype_to_string(c.dtype()), c)));
  }
  (*metadata)[kChecksumsKey] = sums + "}";
}

// Checks freshly loaded (CPU, contiguous) tensors against the file's sums.
void verify_checksums(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata) {
  auto it = metadata.find(kChecksumsKey);
  if (it == metadata.end()) return;
  auto bad = [&](const std::string& what) {
    return Error(absl::StrCat(path, ": invalid ", kChecksumsKey, " metadata: ", what));
  };
  json::Value v;
  try {
    v = json::parse(it->second);
  } catch (const Error& e) {
    throw bad(e.what());
  }
  if (!v.is_object()) throw bad("not a JSON object");
  std::map<std::string, uint32_t> sums;
  for (const auto& kv : v.object()) {
    uint32_t sum = 0;
    if (!kv.second.is_string() || kv.second.string().size() != 8 ||
        !absl::SimpleHexAtoi(kv.second.string(), &sum)) {
      throw bad(absl::StrCat("the checksum of '", kv.first, "' is not 8 hex digits"));
    }
    sums[kv.first] = sum;
  }
  for (const auto& kv : tensors) {
    auto s = sums.find(kv.first);
    if (s == sums.end()) throw bad(absl::StrCat("tensor '", kv.first, "' has no checksum"));
    const uint32_t got =
        tensor_checksum(safetensors::dtype_to_string(kv.second.dtype()), kv.second);
    if (got != s->second) {
      throw Error(absl::StrFormat(
          "%s: checksum mismatch for tensor '%s' (stored crc32c %08x, computed %08x): the file "
          "is corrupt (load with verify_checksums=false to read it anyway)",
          path, kv.first, s->second, got));
    }
  }
  if (sums.size() != tensors.size()) throw bad("it lists tensors the file does not hold");
}

}  // namespace

// --- MapLocation -------------------------------------------------------------

MapLocation::MapLocation(Device device)
    : fn_([device](const std::string&, const Device&) { return device; }) {}
MapLocation::MapLocation(const char* device) : MapLocation(Device(device)) {}
MapLocation::MapLocation(const std::string& device) : MapLocation(Device(device)) {}
MapLocation::MapLocation(Fn fn) : fn_(std::move(fn)) {
  EMBER_CHECK(fn_ != nullptr, "map_location: the function is empty");
}

MapLocation MapLocation::remap(const std::map<std::string, std::string>& from_to) {
  std::vector<std::pair<Device, Device>> pairs;
  for (const auto& kv : from_to) pairs.emplace_back(Device(kv.first), Device(kv.second));
  return MapLocation([pairs](const std::string&, const Device& saved) {
    for (const auto& p : pairs) {
      if (p.first == saved) return p.second;
    }
    return saved;
  });
}

Device MapLocation::operator()(const std::string& key, const Device& saved) const {
  return fn_ ? fn_(key, saved) : saved;
}

// --- save / load -------------------------------------------------------------

void save(const NamedTensors& state_dict, const std::string& path) {
  if (pt::is_pt_path(path)) {
    pt::save_file(pt::from_state_dict(state_dict), path);
    return;
  }
  Metadata metadata;
  record_devices(state_dict, &metadata);
  record_checksums(state_dict, &metadata);
  safetensors::save_file(state_dict, path, metadata);
}

NamedTensors load(const std::string& path, const MapLocation& map_location, bool verify_checksums) {
  if (is_torch_save_file(path)) {
    const pt::Value v = pt::load_file(path, verify_checksums);
    std::vector<Device> saved;
    NamedTensors tensors;
    try {
      tensors = pt::flatten(v, &saved);
    } catch (const Error& e) {
      throw Error(absl::StrCat(path, ": ", e.what()));
    }
    place(&tensors, saved, map_location);
    return tensors;
  }
  safetensors::Contents c = safetensors::load_file(path);
  if (verify_checksums) ember::verify_checksums(path, c.tensors, c.metadata);
  place(&c.tensors, saved_devices(c.tensors, c.metadata), map_location);
  return std::move(c.tensors);
}

void save(const Tensor& tensor, const std::string& path) {
  EMBER_CHECK(tensor.defined(), "cannot save an undefined tensor to '", path, "'");
  if (pt::is_pt_path(path)) {
    pt::save_file(pt::Value(tensor), path);
  } else {
    save(NamedTensors{{"tensor", tensor}}, path);
  }
}

void load(Tensor& tensor, const std::string& path, const MapLocation& map_location,
          bool verify_checksums) {
  NamedTensors one;
  std::vector<Device> saved;
  if (is_torch_save_file(path)) {
    const pt::Value v = pt::load_file(path, verify_checksums);
    if (!v.is_tensor()) {
      throw Error(absl::StrCat(path, ": the file holds ",
                               serialize_internal::a_or_an(v.type_name()),
                               ", not a tensor (ember::load(path) reads state dicts)"));
    }
    one.emplace_back("", v.tensor());
    saved.push_back(v.saved_device());
  } else {
    one = load(path, /*map_location=*/Device(kCPU), verify_checksums);
    if (one.size() != 1) {
      throw Error(absl::StrCat(path, ": the file holds ", one.size(),
                               " tensors, not one (ember::load(path) reads them all)"));
    }
    saved = saved_devices(one, safetensors::load_metadata(path));
  }
  place(&one, saved, map_location);
  tensor = one[0].second;
}

// --- Checkpoint --------------------------------------------------------------

void Checkpoint::check_key(const std::string& key) const {
  EMBER_CHECK(!key.empty(), "Checkpoint: a key cannot be empty");
  EMBER_CHECK(key.find('/') == std::string::npos, "Checkpoint: key '", key,
              "' contains '/', which separates state dict names from their keys");
  EMBER_CHECK(!is_reserved(key) && key != "__metadata__", "Checkpoint: key '", key,
              "' is reserved");
}

void Checkpoint::erase(const std::string& key) {
  strings_.erase(key);
  tensors_.erase(std::remove_if(tensors_.begin(), tensors_.end(),
                                [&](const auto& kv) { return kv.first == key; }),
                 tensors_.end());
}

const Tensor* Checkpoint::find_tensor(const std::string& key) const {
  for (const auto& kv : tensors_) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

void Checkpoint::add_state_dict(const std::string& name, const NamedTensors& state_dict) {
  check_key(name);
  std::string prefix = name + "/";
  tensors_.erase(std::remove_if(tensors_.begin(), tensors_.end(),
                                [&](const auto& kv) { return absl::StartsWith(kv.first, prefix); }),
                 tensors_.end());
  for (const auto& kv : state_dict) {
    EMBER_CHECK(kv.second.defined(), "Checkpoint: tensor '", kv.first, "' of state dict '", name,
                "' is undefined");
    tensors_.emplace_back(prefix + kv.first, kv.second);
  }
  if (!has_state_dict(name)) state_dicts_.push_back(name);
}

bool Checkpoint::has_state_dict(const std::string& name) const {
  return std::find(state_dicts_.begin(), state_dicts_.end(), name) != state_dicts_.end();
}

NamedTensors Checkpoint::state_dict(const std::string& name) const {
  if (!has_state_dict(name)) {
    std::string names;
    for (const auto& n : state_dicts_) absl::StrAppend(&names, names.empty() ? "" : ", ", n);
    throw Error(absl::StrCat("Checkpoint has no state dict '", name, "' (it has: ",
                             names.empty() ? "none" : names, ")"));
  }
  std::string prefix = name + "/";
  NamedTensors out;
  for (const auto& kv : tensors_) {
    if (absl::StartsWith(kv.first, prefix)) {
      out.emplace_back(kv.first.substr(prefix.size()), kv.second);
    }
  }
  return out;
}

void Checkpoint::set(const std::string& key, int64_t value) {
  set(key, scalar_tensor(value, TensorOptions(kLong)));
}
void Checkpoint::set(const std::string& key, double value) {
  set(key, scalar_tensor(value, TensorOptions(kDouble)));
}
void Checkpoint::set(const std::string& key, bool value) {
  set(key, scalar_tensor(value, TensorOptions(kBool)));
}
void Checkpoint::set(const std::string& key, const std::string& value) {
  check_key(key);
  erase(key);
  strings_[key] = value;
}
void Checkpoint::set(const std::string& key, const Tensor& value) {
  check_key(key);
  EMBER_CHECK(value.defined(), "Checkpoint: tensor '", key, "' is undefined");
  erase(key);
  tensors_.emplace_back(key, value);
}

bool Checkpoint::contains(const std::string& key) const {
  return strings_.count(key) != 0 || find_tensor(key) != nullptr;
}

const Tensor& Checkpoint::get_tensor(const std::string& key) const {
  const Tensor* t = find_tensor(key);
  if (t == nullptr) {
    EMBER_CHECK(strings_.count(key) == 0, "Checkpoint entry '", key, "' is a string, not a number");
    throw Error(absl::StrCat("Checkpoint has no entry '", key, "'"));
  }
  return *t;
}

int64_t Checkpoint::get_int(const std::string& key) const {
  const Tensor& t = get_tensor(key);
  EMBER_CHECK(t.numel() == 1 && is_integral(t.dtype(), /*include_bool=*/true),
              "Checkpoint entry '", key, "' is not an integer scalar (it is a ", dtype_name(t.dtype()),
              " tensor with ", t.numel(), " elements)");
  return t.item<int64_t>();
}

double Checkpoint::get_double(const std::string& key) const {
  const Tensor& t = get_tensor(key);
  EMBER_CHECK(t.numel() == 1 && !is_quantized(t.dtype()), "Checkpoint entry '", key,
              "' is not a number (it is a ", dtype_name(t.dtype()), " tensor with ", t.numel(),
              " elements)");
  return t.item<double>();
}

bool Checkpoint::get_bool(const std::string& key) const {
  const Tensor& t = get_tensor(key);
  EMBER_CHECK(t.numel() == 1 && t.dtype() == kBool, "Checkpoint entry '", key,
              "' is not a bool (it is a ", dtype_name(t.dtype()), " tensor with ", t.numel(),
              " elements)");
  return t.item<bool>();
}

const std::string& Checkpoint::get_string(const std::string& key) const {
  auto it = strings_.find(key);
  if (it == strings_.end()) {
    EMBER_CHECK(find_tensor(key) == nullptr, "Checkpoint entry '", key,
                "' is a tensor, not a string");
    throw Error(absl::StrCat("Checkpoint has no entry '", key, "'"));
  }
  return it->second;
}

void Checkpoint::save(const std::string& path) const {
  if (pt::is_pt_path(path)) {
    save_pt(path);
    return;
  }
  Metadata metadata = strings_;
  metadata[kFormatKey] = "checkpoint";
  std::string names = "[";
  for (const auto& n : state_dicts_) {
    if (names.size() > 1) names += ',';
    json::append_quoted(&names, n);
  }
  metadata[kStateDictsKey] = names + "]";
  record_devices(tensors_, &metadata);
  record_checksums(tensors_, &metadata);
  safetensors::save_file(tensors_, path, metadata);
}

Checkpoint Checkpoint::load(const std::string& path, const MapLocation& map_location,
                            bool verify_checksums) {
  if (is_torch_save_file(path)) return load_pt(path, map_location, verify_checksums);
  safetensors::Contents c = safetensors::load_file(path);
  if (verify_checksums) ember::verify_checksums(path, c.tensors, c.metadata);
  auto bad = [&](const std::string& what) {
    return Error(absl::StrCat(path, ": invalid checkpoint: ", what));
  };
  auto format = c.metadata.find(kFormatKey);
  if (format != c.metadata.end() && format->second != "checkpoint") {
    throw bad(absl::StrCat(kFormatKey, " is '", format->second, "', not 'checkpoint'"));
  }
  Checkpoint ckpt;
  auto names = c.metadata.find(kStateDictsKey);
  if (names != c.metadata.end()) {
    json::Value v;
    try {
      v = json::parse(names->second);
    } catch (const Error& e) {
      throw bad(absl::StrCat(kStateDictsKey, ": ", e.what()));
    }
    if (!v.is_array()) throw bad(absl::StrCat(kStateDictsKey, " is not a JSON array"));
    for (const auto& n : v.array()) {
      if (!n.is_string() || n.string().empty() || n.string().find('/') != std::string::npos ||
          ckpt.has_state_dict(n.string())) {
        throw bad(absl::StrCat(kStateDictsKey, " holds an invalid or repeated name"));
      }
      ckpt.state_dicts_.push_back(n.string());
    }
  }
  place(&c.tensors, saved_devices(c.tensors, c.metadata), map_location);
  ckpt.tensors_ = std::move(c.tensors);
  for (const auto& kv : c.metadata) {
    if (is_reserved(kv.first)) continue;
    if (ckpt.find_tensor(kv.first) != nullptr) {
      throw bad(absl::StrCat("'", kv.first, "' is both a tensor and a string"));
    }
    ckpt.strings_.insert(kv);
  }
  return ckpt;
}

// Note [Checkpoints as .pt files]: a Checkpoint saved to a .pt name is the
// dict a PyTorch user would torch.save: {"model": OrderedDict(state dict),
// "optimizer": OrderedDict(...), "epoch": 3, "loss": 0.125, "note": "..."}.
// State dicts keep ember's flat keys (an optimizer's are Note [Optimizer
// state keys]); the scalars set(int/double/bool) made (0-dim int64, float64
// and bool CPU tensors) become Python numbers, other tensors stay tensors,
// strings stay strings. Loading takes any such dict, PyTorch's own
// checkpoints included: a nested dict becomes a state dict, flattened (Note
// [Flattening .pt values], so a PyTorch optimizer's state dict reads as
// ember's flat form), numbers become 0-dim tensors, None is skipped.
void Checkpoint::save_pt(const std::string& path) const {
  pt::Value::Entries entries;
  for (const std::string& name : state_dicts_) {
    entries.emplace_back(pt::Value(name), pt::from_state_dict(state_dict(name)));
  }
  for (const auto& kv : tensors_) {
    if (kv.first.find('/') != std::string::npos) continue;  // in a state dict
    const Tensor& t = kv.second;
    pt::Value v(t);
    if (t.dim() == 0 && t.is_cpu()) {
      if (t.dtype() == kLong) v = pt::Value(t.item<int64_t>());
      if (t.dtype() == kDouble) v = pt::Value(t.item<double>());
      if (t.dtype() == kBool) v = pt::Value(t.item<bool>());
    }
    entries.emplace_back(pt::Value(kv.first), std::move(v));
  }
  for (const auto& kv : strings_) entries.emplace_back(pt::Value(kv.first), pt::Value(kv.second));
  pt::save_file(pt::Value::dict(std::move(entries)), path);
}

Checkpoint Checkpoint::load_pt(const std::string& path, const MapLocation& map_location,
                               bool verify_checksums) {
  const pt::Value file = pt::load_file(path, verify_checksums);
  auto bad = [&](const std::string& what) {
    return Error(absl::StrCat(path, ": invalid checkpoint: ", what));
  };
  using serialize_internal::a_or_an;
  if (!file.is_dict()) {
    throw bad(absl::StrCat("it holds ", a_or_an(file.type_name()), ", not a dict"));
  }
  // Entries are appended directly, not through set(): a file may hold
  // millions of them, and set()'s search for a previous entry would make
  // that quadratic. Keys are checked as set() checks them.
  Checkpoint ckpt;
  std::vector<Device> devices;  // where each of ckpt.tensors_ was saved from
  std::unordered_set<std::string> keys;
  auto add = [&](const std::string& key, Tensor t, Device saved) {
    ckpt.tensors_.emplace_back(key, std::move(t));
    devices.push_back(saved);
  };
  try {
    for (const auto& kv : file.entries()) {
      using Kind = pt::Value::Kind;
      const pt::Value& k = kv.first;
      const pt::Value& v = kv.second;
      if (k.kind() != Kind::kString && k.kind() != Kind::kInt) {
        throw bad(absl::StrCat("a key is ", a_or_an(k.type_name()), ", not a str"));
      }
      const std::string key = k.kind() == Kind::kString ? k.string() : std::to_string(k.to_int());
      ckpt.check_key(key);
      if (!keys.insert(key).second) throw bad(absl::StrCat("key '", key, "' appears twice"));
      std::vector<Device> saved;
      switch (v.kind()) {
        case Kind::kNone: break;
        case Kind::kBool: add(key, scalar_tensor(v.to_bool(), TensorOptions(kBool)), kCPU); break;
        case Kind::kInt: add(key, scalar_tensor(v.to_int(), TensorOptions(kLong)), kCPU); break;
        case Kind::kFloat:
          add(key, scalar_tensor(v.to_double(), TensorOptions(kDouble)), kCPU);
          break;
        case Kind::kString: ckpt.strings_[key] = v.string(); break;
        case Kind::kDict: {
          NamedTensors sd = pt::flatten(v, &saved);
          for (size_t i = 0; i < sd.size(); ++i) {
            add(key + "/" + sd[i].first, std::move(sd[i].second), saved[i]);
          }
          ckpt.state_dicts_.push_back(key);
          break;
        }
        default: {
          // A tensor, or a list of numbers: one tensor under `key`.
          NamedTensors one = pt::flatten(pt::Value::dict({{k, v}}), &saved);
          if (one.empty()) break;  // an empty list, as flatten leaves it out
          if (one.size() != 1 || one[0].first != key) {
            throw bad(absl::StrCat("entry '", key, "' is ", a_or_an(v.type_name()),
                                   " that is not one tensor; a checkpoint holds state dicts, "
                                   "tensors, numbers and strings"));
          }
          add(key, std::move(one[0].second), saved[0]);
        }
      }
    }
  } catch (const Error& e) {
    if (absl::StartsWith(e.what(), path)) throw;
    throw bad(e.what());
  }
  place(&ckpt.tensors_, devices, map_location);
  return ckpt;
}

}  // namespace ember
