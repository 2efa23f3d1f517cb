#ifndef EMBER_SERIALIZE_PT_H_
#define EMBER_SERIALIZE_PT_H_

// PyTorch's .pt files: what Python's torch.save writes and
// torch.load(weights_only=True) reads, for tensors and (nested) state dicts.
//
// Note [.pt files]: torch.save (since PyTorch 1.6) writes a zip archive
// (zip.h, Note [Zip archives]) whose records sit in one folder, "<archive>/":
//   data.pkl    the object, pickled (protocol 2); each tensor is a call of
//               torch._utils._rebuild_tensor_v2(storage, offset, size,
//               stride, requires_grad, hooks) whose storage is a persistent
//               id ("storage", torch.FloatStorage, key, location, numel)
//   data/<key>  each storage's bytes (numel elements of the storage's dtype)
//   version     "3\n"; byteorder "little" (newer PyTorch; "big" is swapped)
// Tensors viewing one storage (a state dict with tied weights, a transposed
// view and its base) share it in the file, and ember keeps them sharing when
// it loads, as torch.load does.
//
// Loading never executes anything. The unpickler (pickle.h) runs only the
// opcodes torch.save emits for state dicts and builds only what a state dict
// needs: None, bool, int, float, str, tuple, list, dict, OrderedDict,
// tensors (_rebuild_tensor_v2), parameters (_rebuild_parameter, loaded as
// plain tensors) and torch.Size. Any other global is refused by name
// ("pickled class os.system is not allowed"), as
// torch.load(weights_only=True) refuses it. Every offset, size, stride and
// storage extent is checked against its record before a tensor views it, and
// each record's CRC-32 is checked when it is read (verify_checksums).
//
// Not read, each with an error that says so: TorchScript archives
// (torch.jit.save: constants.pkl, code/), the legacy non-zip format of
// PyTorch < 1.6 (_use_new_zipfile_serialization=False), sparse, quantized
// and complex tensors.
//
// Saving writes the same layout (archive/data.pkl, archive/byteorder,
// archive/data/<key>, archive/version) with data 64-byte aligned, readable
// by torch.load(weights_only=True). Python floats are pickled as BINFLOAT,
// which PyTorch 1.13's weights_only unpickler lacks (it was added in 2.0):
// files holding floats (a Checkpoint's loss, an optimizer's lr) need
// PyTorch >= 2.0 or weights_only=False there; tensors and ints do not.
//
// Checked against PyTorch (Debian's 1.13) both ways: tools/pt_interop.py
// make wrote testdata/pt/torch_*.pt, which pt_test and module_test load;
// tools/pt_interop.py check read ember's output (write_pt_samples) with
// torch.load(weights_only=True), and those files are committed as
// testdata/pt/ember_*.pt: pt_test checks that ember still writes them byte
// for byte, so what PyTorch accepted stays what ember writes.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {
namespace pt {

// One value of a .pt file: a Python object of the kinds a state dict holds.
class Value {
 public:
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kTensor, kTuple, kList, kDict };
  using Items = std::vector<Value>;
  using Entries = std::vector<std::pair<Value, Value>>;

  Value() = default;                                                     // None
  Value(bool b) : kind_(Kind::kBool), int_(b) {}                         // NOLINT
  Value(int i) : kind_(Kind::kInt), int_(i) {}                           // NOLINT
  Value(int64_t i) : kind_(Kind::kInt), int_(i) {}                       // NOLINT
  Value(double d) : kind_(Kind::kFloat), float_(d) {}                    // NOLINT
  Value(const char* s) : kind_(Kind::kString), string_(s) {}             // NOLINT
  Value(std::string s) : kind_(Kind::kString), string_(std::move(s)) {}  // NOLINT
  Value(Tensor t);                                                       // NOLINT
  static Value tuple(Items items);
  static Value list(Items items);
  // A dict (Python's dict, or collections.OrderedDict as state_dict() makes);
  // keys are strings or integers.
  static Value dict(Entries entries, bool ordered = false);

  Kind kind() const { return kind_; }
  // Python's name for the kind: "NoneType", "int", "OrderedDict"...
  std::string type_name() const;
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_dict() const { return kind_ == Kind::kDict; }

  // Each throws ember::Error naming the kind when the value is another.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // float or int
  const std::string& string() const;
  const Tensor& tensor() const;
  const Items& items() const;  // tuple or list
  const Entries& entries() const;
  Items& mutable_items();
  Entries& mutable_entries();
  bool is_ordered_dict() const { return kind_ == Kind::kDict && ordered_; }
  // The entry with string key `key`, or nullptr (dicts only).
  const Value* find(std::string_view key) const;
  // The same, throwing ember::Error that lists the keys when there is none.
  const Value& at(std::string_view key) const;

  // For tensors read from a file: whether it was saved requiring grad (or as
  // an nn.Parameter), and the device it was saved from ("location"). Loaded
  // tensors are plain CPU tensors; ember::load moves them (map_location).
  bool requires_grad() const { return requires_grad_; }
  bool is_parameter() const { return parameter_; }
  const Device& saved_device() const { return device_; }
  void set_tensor_info(bool requires_grad, bool parameter, Device saved);

 private:
  Kind kind_ = Kind::kNone;
  int64_t int_ = 0;
  double float_ = 0;
  bool ordered_ = false;
  bool requires_grad_ = false;
  bool parameter_ = false;
  Device device_ = Device(kCPU);
  std::string string_;
  Tensor tensor_;
  Items items_;
  Entries entries_;
};

// Reads a torch.save file. CRC-32s are checked unless verify_checksums is
// false. Errors are ember::Error: "invalid .pt file: ...", or what is not
// supported ("this is a TorchScript archive...", "legacy (non-zip)
// torch.save format is not supported...", "pickled class X is not allowed").
Value load(std::string_view bytes, bool verify_checksums = true);
// As load; errors start with the path.
Value load_file(const std::string& path, bool verify_checksums = true);

// The bytes torch.save(value) would hold (CUDA tensors keep their location,
// "cuda:0", as in PyTorch).
std::string save(const Value& value);
// Writes atomically (Note [Atomic writes]).
void save_file(const Value& value, const std::string& path);

// Whether ember::save writes `path` as a .pt file: names ending ".pt" or
// ".pth" (any case). Other names get safetensors.
bool is_pt_path(const std::string& path);

// Whether `prefix` (a file's first kSniffBytes bytes, or all of a shorter
// file) is what torch.save writes: a zip archive, or the legacy format's
// pickled magic number (refused by load with its own error). A safetensors
// file starts with its header's length, which would have to be 67 MB
// (0x04034b50, "PK\3\4") or about 5e18 to look like either.
constexpr size_t kSniffBytes = 32;
bool looks_like_torch_save(std::string_view prefix);

// A state dict as torch.save sees model.state_dict(): an OrderedDict.
Value from_state_dict(const NamedTensors& state_dict);

// Note [Flattening .pt values]: a nested state dict as ember's flat one,
// keys joined with '.': {"state": {0: {"exp_avg": t}}} -> "state.0.exp_avg".
// Tensors stay as they are; lists and tuples of tensors or containers are
// numbered ("old_dirs.0"); lists and tuples of numbers become 1-D tensors
// (int64 for ints, float64 when any is a float, bool for bools); a lone
// int, float or bool becomes a 0-dim int64, float64 or bool tensor; a
// string becomes its UTF-8 bytes as a 1-D uint8 tensor; None and empty
// containers are left out. This is Note [Optimizer state keys]'s form, so a
// PyTorch optimizer's state dict loads into ember's optimizers. `value`
// must be a dict; a key that comes out twice is an error.
// saved_devices, when given, receives each tensor's saved device in order.
NamedTensors flatten(const Value& value, std::vector<Device>* saved_devices = nullptr);

}  // namespace pt
}  // namespace ember

#endif  // EMBER_SERIALIZE_PT_H_
