#include "serialize/checkpoint.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "serialize/json.h"
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

// Moves each loaded (CPU) tensor where map_location says.
void place(NamedTensors* tensors, const Metadata& metadata, const MapLocation& map_location) {
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
  for (auto& kv : *tensors) {
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
    Device to = map_location(kv.first, from);
    if (to.is_cpu()) continue;
    if (to.is_cuda() && !cuda::is_available()) {
      throw Error(absl::StrCat(
          "Attempting to deserialize '", kv.first, "' on a CUDA device (", to.str(),
          ") but ember::cuda::is_available() is false. If you are running on a CPU-only "
          "machine, load with map_location \"cpu\" to map your tensors to the CPU."));
    }
    kv.second = kv.second.to(to);
  }
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
  Metadata metadata;
  record_devices(state_dict, &metadata);
  record_checksums(state_dict, &metadata);
  safetensors::save_file(state_dict, path, metadata);
}

NamedTensors load(const std::string& path, const MapLocation& map_location, bool verify_checksums) {
  safetensors::Contents c = safetensors::load_file(path);
  if (verify_checksums) ember::verify_checksums(path, c.tensors, c.metadata);
  place(&c.tensors, c.metadata, map_location);
  return std::move(c.tensors);
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
  place(&c.tensors, c.metadata, map_location);
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

}  // namespace ember
