#include "serialize/pt.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serialize/atomic_file.h"
#include "serialize/byte_source.h"
#include "serialize/pickle.h"
#include "serialize/zip.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace pt {

// --- Value -----------------------------------------------------------------------

Value::Value(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {
  EMBER_CHECK(tensor_.defined(), "pt::Value: the tensor is undefined");
}

Value Value::tuple(Items items) {
  Value v;
  v.kind_ = Kind::kTuple;
  v.items_ = std::move(items);
  return v;
}

Value Value::list(Items items) {
  Value v;
  v.kind_ = Kind::kList;
  v.items_ = std::move(items);
  return v;
}

Value Value::dict(Entries entries, bool ordered) {
  Value v;
  v.kind_ = Kind::kDict;
  v.ordered_ = ordered;
  v.entries_ = std::move(entries);
  return v;
}

std::string Value::type_name() const {
  switch (kind_) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kString: return "str";
    case Kind::kTensor: return "Tensor";
    case Kind::kTuple: return "tuple";
    case Kind::kList: return "list";
    case Kind::kDict: return ordered_ ? "OrderedDict" : "dict";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_kind(const Value& v, const char* wanted) {
  throw Error(absl::StrCat("pt::Value: expected ", wanted, ", got ", v.type_name()));
}
}  // namespace

bool Value::to_bool() const {
  if (kind_ != Kind::kBool) wrong_kind(*this, "a bool");
  return int_ != 0;
}
int64_t Value::to_int() const {
  if (kind_ != Kind::kInt) wrong_kind(*this, "an int");
  return int_;
}
double Value::to_double() const {
  if (kind_ == Kind::kInt) return static_cast<double>(int_);
  if (kind_ != Kind::kFloat) wrong_kind(*this, "a float");
  return float_;
}
const std::string& Value::string() const {
  if (kind_ != Kind::kString) wrong_kind(*this, "a str");
  return string_;
}
const Tensor& Value::tensor() const {
  if (kind_ != Kind::kTensor) wrong_kind(*this, "a Tensor");
  return tensor_;
}
const Value::Items& Value::items() const {
  if (kind_ != Kind::kTuple && kind_ != Kind::kList) wrong_kind(*this, "a tuple or list");
  return items_;
}
const Value::Entries& Value::entries() const {
  if (kind_ != Kind::kDict) wrong_kind(*this, "a dict");
  return entries_;
}

Value::Items& Value::mutable_items() {
  items();  // checks the kind
  return items_;
}
Value::Entries& Value::mutable_entries() {
  entries();
  return entries_;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& kv : entries()) {
    if (kv.first.kind_ == Kind::kString && kv.first.string_ == key) return &kv.second;
  }
  return nullptr;
}

const Value& Value::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  std::vector<std::string> keys;
  for (const auto& kv : entries_) {
    keys.push_back(kv.first.kind_ == Kind::kString ? absl::StrCat("'", kv.first.string_, "'")
                                                   : absl::StrCat(kv.first.int_));
  }
  throw Error(absl::StrCat("no key '", std::string(key), "' in the ", type_name(),
                           " (its keys: ", keys.empty() ? "none" : absl::StrJoin(keys, ", "), ")"));
}

void Value::set_tensor_info(bool requires_grad, bool parameter, Device saved) {
  if (kind_ != Kind::kTensor) wrong_kind(*this, "a Tensor");
  requires_grad_ = requires_grad;
  parameter_ = parameter;
  device_ = saved;
}

// --- reading ---------------------------------------------------------------------

namespace {

using serialize_internal::ByteSource;
using serialize_internal::ZipReader;

// Format versions torch.save files carry (3); TorchScript's go up to 10.
constexpr int64_t kMaxVersion = 10;

[[noreturn]] void invalid(const std::string& what) {
  throw Error(absl::StrCat("invalid .pt file: ", what));
}

bool is_zip_magic(std::string_view p) {
  return p.size() >= 4 && p[0] == 'P' && p[1] == 'K' &&
         ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6));
}

// torch.save's format before PyTorch 1.6 starts with a pickled magic number,
// 0x1950a86a20f9469cfc6c as LONG1, after PROTO (and a protocol 4 FRAME).
bool is_legacy_magic(std::string_view p) {
  static constexpr char kMagic[] = "\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
  const std::string_view magic(kMagic, sizeof(kMagic) - 1);
  if (p.size() < 2 || static_cast<unsigned char>(p[0]) != 0x80) return false;
  p.remove_prefix(2);
  if (!p.empty() && static_cast<unsigned char>(p[0]) == 0x95 && p.size() >= 9) p.remove_prefix(9);
  return p.substr(0, magic.size()) == magic;
}

void byteswap(void* data, int64_t numel, int64_t size) {
  unsigned char* p = static_cast<unsigned char*>(data);
  for (int64_t i = 0; i < numel; ++i, p += size) std::reverse(p, p + size);
}

Value load_source(const ByteSource& src, bool verify) {
  const std::string head = src.read_string(0, std::min<uint64_t>(src.size(), kSniffBytes));
  if (!is_zip_magic(head)) {
    if (is_legacy_magic(head)) {
      throw Error(
          "legacy (non-zip) torch.save format is not supported; re-save with torch.save(..., "
          "_use_new_zipfile_serialization=True)");
    }
    invalid("it is not a zip archive (torch.save files start with 'PK\\x03\\x04')");
  }
  ZipReader zip(src);
  const auto& entries = zip.entries();
  if (entries.empty()) invalid("the zip archive has no records");
  // Every record sits in one folder, named after the file by torch.save.
  const size_t slash = entries[0].name.find('/');
  if (slash == std::string::npos || slash == 0) {
    invalid(absl::StrCat("record '", entries[0].name,
                         "' is not inside a folder (torch.save writes '<archive>/data.pkl')"));
  }
  const std::string dir = entries[0].name.substr(0, slash + 1);
  for (const auto& e : entries) {
    if (!absl::StartsWith(e.name, dir)) {
      invalid(absl::StrCat("records '", entries[0].name, "' and '", e.name,
                           "' are in different folders"));
    }
  }
  for (const auto& e : entries) {
    if (e.name == dir + "constants.pkl" || absl::StartsWith(e.name, dir + "code/")) {
      throw Error(
          "this is a TorchScript archive (torch.jit.save: it has constants.pkl and code/), not a "
          "torch.save file; TorchScript archives are out of scope for ember");
    }
  }
  const ZipReader::Entry* pkl = zip.find(dir + "data.pkl");
  if (pkl == nullptr) invalid(absl::StrCat("the archive has no ", dir, "data.pkl"));
  const ZipReader::Entry* version = zip.find(dir + ".data/version");
  if (version == nullptr) version = zip.find(dir + "version");
  if (version == nullptr) invalid(absl::StrCat("the archive has no ", dir, "version record"));
  if (version->size > 32) invalid("the version record is too long");
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(zip.read_string(*version, verify)), &v) ||
      v < 1 || v > kMaxVersion) {
    invalid(absl::StrCat("file format version '",
                         absl::CHexEscape(zip.read_string(*version, false)),
                         "' is not one ember reads (1 to ", kMaxVersion, ")"));
  }
  bool swap = false;
  if (const ZipReader::Entry* order = zip.find(dir + "byteorder")) {
    if (order->size > 16) invalid("the byteorder record is too long");
    const std::string o = zip.read_string(*order, verify);
    if (o == "big") {
      swap = true;
    } else if (o != "little") {
      invalid(absl::StrCat("byteorder is '", absl::CHexEscape(o), "', not 'little' or 'big'"));
    }
  }
  auto load_storage = [&](const std::string& key, ScalarType dtype, int64_t numel) {
    const std::string name = absl::StrCat(dir, "data/", key);
    const ZipReader::Entry* e = zip.find(name);
    if (e == nullptr) invalid(absl::StrCat("storage '", key, "' has no record ", name));
    const int64_t es = element_size(dtype);
    int64_t nbytes = 0;
    if (__builtin_mul_overflow(numel, es, &nbytes) || e->size != static_cast<uint64_t>(nbytes)) {
      invalid(absl::StrCat("record ", name, " has ", e->size, " bytes but storage '", key,
                           "' needs ", numel, " elements of ", es, " bytes"));
    }
    Storage s = make_storage(static_cast<size_t>(nbytes), Device(kCPU));
    zip.read(*e, s->data(), verify);
    if (swap && es > 1) byteswap(s->data(), numel, es);
    if (dtype == kBool) {
      const unsigned char* p = static_cast<const unsigned char*>(s->data());
      for (int64_t i = 0; i < numel; ++i) {
        if (p[i] > 1) {
          invalid(absl::StrCat("storage '", key, "' (bool) has element ", i, " = ",
                               static_cast<int>(p[i]), ", not 0 or 1"));
        }
      }
    }
    return s;
  };
  const std::string data = zip.read_string(*pkl, verify);
  try {
    return serialize_internal::unpickle(data, load_storage);
  } catch (const Error& e) {
    if (absl::StartsWith(e.what(), "data.pkl")) invalid(e.what());
    throw;
  }
}

}  // namespace

Value load(std::string_view bytes, bool verify_checksums) {
  return load_source(serialize_internal::MemorySource(bytes), verify_checksums);
}

Value load_file(const std::string& path, bool verify_checksums) {
  serialize_internal::FileSource src(path);
  try {
    return load_source(src, verify_checksums);
  } catch (const Error& e) {
    if (absl::StartsWith(e.what(), "cannot ")) throw;
    throw Error(absl::StrCat(path, ": ", e.what()));
  }
}

// --- writing ---------------------------------------------------------------------

}  // namespace pt

namespace serialize_internal {

void write_pt(const pt::Value& value, const std::function<void(const void*, size_t)>& sink,
              bool force_zip64) {
  std::vector<PickledStorage> storages;
  const std::string pkl = pickle(value, &storages);
  // torch.save names the folder after the file; any name reads the same.
  const std::string dir = "archive/";
  ZipWriter zip(sink, force_zip64);
  zip.add(dir + "data.pkl", pkl.data(), pkl.size());
  zip.add(dir + "byteorder", "little", 6);
  for (const PickledStorage& s : storages) {
    const Tensor cpu = s.data.is_cpu() ? s.data : s.data.cpu();
    zip.add(dir + "data/" + s.key, cpu.data_ptr(), static_cast<uint64_t>(cpu.nbytes()));
  }
  zip.add(dir + "version", "3\n", 2);
  zip.finish();
}

}  // namespace serialize_internal

namespace pt {

std::string save(const Value& value) {
  std::string out;
  serialize_internal::write_pt(
      value, [&](const void* d, size_t n) { out.append(static_cast<const char*>(d), n); },
      /*force_zip64=*/false);
  return out;
}

void save_file(const Value& value, const std::string& path) {
  // A value that cannot be saved throws before commit: the file at `path`
  // stays as it was.
  serialize_internal::AtomicFile file(path);
  serialize_internal::write_pt(
      value, [&](const void* d, size_t n) { file.write(d, n); }, /*force_zip64=*/false);
  file.commit();
}

bool is_pt_path(const std::string& path) {
  const std::string lower = absl::AsciiStrToLower(path);
  return absl::EndsWith(lower, ".pt") || absl::EndsWith(lower, ".pth");
}

bool looks_like_torch_save(std::string_view prefix) {
  return is_zip_magic(prefix) || is_legacy_magic(prefix);
}

Value from_state_dict(const NamedTensors& state_dict) {
  Value::Entries entries;
  entries.reserve(state_dict.size());
  for (const auto& kv : state_dict) entries.emplace_back(Value(kv.first), Value(kv.second));
  return Value::dict(std::move(entries), /*ordered=*/true);
}

// --- flattening (Note [Flattening .pt values]) ------------------------------------

namespace {

struct Flattener {
  NamedTensors* out;
  std::vector<Device>* devices;
  std::unordered_set<std::string> seen;

  void add(const std::string& key, Tensor t, Device device = Device(kCPU)) {
    EMBER_CHECK(seen.insert(key).second, "the .pt file's key '", key,
                "' comes out twice when nested keys are joined with '.'");
    out->emplace_back(key, std::move(t));
    if (devices != nullptr) devices->push_back(device);
  }

  static bool is_number(const Value& v) {
    return v.kind() == Value::Kind::kBool || v.kind() == Value::Kind::kInt ||
           v.kind() == Value::Kind::kFloat;
  }

  // A list or tuple of numbers as one 1-D tensor.
  static Tensor numbers(const Value::Items& items) {
    bool all_bool = true, any_float = false;
    for (const Value& v : items) {
      all_bool = all_bool && v.kind() == Value::Kind::kBool;
      any_float = any_float || v.kind() == Value::Kind::kFloat;
    }
    const ScalarType dtype = all_bool ? kBool : any_float ? kDouble : kLong;
    Tensor t = empty({static_cast<int64_t>(items.size())}, TensorOptions(dtype));
    for (size_t i = 0; i < items.size(); ++i) {
      const Value& v = items[i];
      if (dtype == kBool) {
        t.data_ptr<bool>()[i] = v.to_bool();
      } else if (dtype == kLong) {
        t.data_ptr<int64_t>()[i] = v.kind() == Value::Kind::kBool ? v.to_bool() : v.to_int();
      } else {
        t.data_ptr<double>()[i] = v.kind() == Value::Kind::kBool ? v.to_bool() : v.to_double();
      }
    }
    return t;
  }

  void value(const std::string& key, const Value& v) {
    using Kind = Value::Kind;
    switch (v.kind()) {
      case Kind::kNone: return;
      case Kind::kBool: add(key, scalar_tensor(v.to_bool(), TensorOptions(kBool))); return;
      case Kind::kInt: add(key, scalar_tensor(v.to_int(), TensorOptions(kLong))); return;
      case Kind::kFloat: add(key, scalar_tensor(v.to_double(), TensorOptions(kDouble))); return;
      case Kind::kString: {
        const std::string& s = v.string();
        Tensor t = empty({static_cast<int64_t>(s.size())}, TensorOptions(kByte));
        std::copy(s.begin(), s.end(), reinterpret_cast<char*>(t.data_ptr<uint8_t>()));
        add(key, t);
        return;
      }
      case Kind::kTensor: add(key, v.tensor(), v.saved_device()); return;
      case Kind::kTuple:
      case Kind::kList: {
        const Value::Items& items = v.items();
        if (items.empty()) return;
        if (std::all_of(items.begin(), items.end(), is_number)) {
          add(key, numbers(items));
          return;
        }
        for (size_t i = 0; i < items.size(); ++i) value(join(key, std::to_string(i)), items[i]);
        return;
      }
      case Kind::kDict: dict(key, v); return;
    }
  }

  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : absl::StrCat(prefix, ".", key);
  }

  void dict(const std::string& prefix, const Value& d) {
    for (const auto& kv : d.entries()) {
      const Value& k = kv.first;
      EMBER_CHECK(k.kind() == Value::Kind::kString || k.kind() == Value::Kind::kInt,
                  "the .pt file has a dict key of type ", k.type_name(),
                  " (state dict keys are str or int)");
      value(
          join(prefix, k.kind() == Value::Kind::kString ? k.string() : std::to_string(k.to_int())),
          kv.second);
    }
  }
};

}  // namespace

NamedTensors flatten(const Value& value, std::vector<Device>* saved_devices) {
  EMBER_CHECK(value.is_dict(), "the .pt file holds ",
              serialize_internal::a_or_an(value.type_name()),
              ", not a state dict (a dict of tensors)");
  NamedTensors out;
  if (saved_devices != nullptr) saved_devices->clear();
  Flattener f{&out, saved_devices, {}};
  f.dict("", value);
  return out;
}

}  // namespace pt
}  // namespace ember
