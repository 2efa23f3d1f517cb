#include "serialize/pickle.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "serialize/json.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace serialize_internal {
namespace {

// --- what the unpickler can build -----------------------------------------------

enum class K : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kStr,
  kTensor,
  kTuple,
  kList,
  kDict,
  kGlobal,
  kStorage
};

// The globals a pickle may name (Note [Restricted unpickler]).
enum class Global : uint8_t {
  kOrderedDict,
  kRebuildTensorV2,
  kRebuildParameter,
  kRebuildParameterWithState,
  kSize,
  kStorageType,
};

struct StorageName {
  const char* name;
  ScalarType dtype;
};
// torch.<name> -> dtype; UntypedStorage holds bytes.
constexpr StorageName kStorageTypes[] = {
    {"DoubleStorage", kDouble},     {"FloatStorage", kFloat},  {"HalfStorage", kHalf},
    {"BFloat16Storage", kBFloat16}, {"LongStorage", kLong},    {"IntStorage", kInt},
    {"ShortStorage", kShort},       {"CharStorage", kChar},    {"ByteStorage", kByte},
    {"BoolStorage", kBool},         {"UntypedStorage", kByte},
};
// Storage types of dtypes ember lacks: refused with their own message.
constexpr const char* kUnsupportedStorageTypes[] = {
    "ComplexFloatStorage", "ComplexDoubleStorage", "ComplexHalfStorage", "QInt8Storage",
    "QUInt8Storage",       "QInt32Storage",        "QUInt4x2Storage",    "QUInt2x4Storage",
};

const char* storage_type_name(ScalarType dtype) {
  for (const StorageName& s : kStorageTypes) {
    if (s.dtype == dtype) return s.name;  // ByteStorage comes before UntypedStorage
  }
  throw Error(absl::StrCat("cannot save a tensor of dtype ", dtype_name(dtype),
                           " to a .pt file (ember writes bool, integer and float tensors)"));
}

struct DictBody {
  std::vector<std::pair<struct Obj*, struct Obj*>> entries;
  absl::flat_hash_map<std::string, size_t> index;  // "s<str>" / "i<int>" -> entry
};

struct Obj {
  explicit Obj(K k) : kind(k) {}
  K kind;
  bool flag = false;       // kBool: the value; kDict: ordered; kTensor: requires_grad
  bool parameter = false;  // kTensor
  bool visiting = false;   // on the path being converted (a self-containing container)
  Global global = Global::kOrderedDict;
  ScalarType dtype = kFloat;  // kGlobal (storage type), kStorage
  int64_t i = 0;              // kInt; kStorage: numel
  double d = 0;               // kFloat
  std::string s;              // kStr; kGlobal: its name; kStorage: its key
  std::vector<Obj*> items;    // kTuple, kList
  std::unique_ptr<DictBody> dict;
  // kTensor: the tensor and its saved location; kStorage: the storage and location.
  Tensor tensor;
  Storage storage;
  Device device = Device(kCPU);
};

const char* type_name(const Obj* o) {
  switch (o->kind) {
    case K::kNone: return "NoneType";
    case K::kBool: return "bool";
    case K::kInt: return "int";
    case K::kFloat: return "float";
    case K::kStr: return "str";
    case K::kTensor: return "Tensor";
    case K::kTuple: return "tuple";
    case K::kList: return "list";
    case K::kDict: return o->flag ? "OrderedDict" : "dict";
    case K::kGlobal: return "class";
    case K::kStorage: return "storage";
  }
  return "?";
}

// Names of the opcodes ember refuses, for the error message.
const char* opcode_name(uint8_t op) {
  switch (op) {
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 'P': return "PERSID";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x8e: return "BINBYTES8";
    case 0x8d: return "BINUNICODE8";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 0x8b: return "LONG4";
    case 'F': return "FLOAT";
    case '2': return "DUP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case 'g': return "GET";
    case 'p': return "PUT";
    case 'd': return "DICT";
    case 'l': return "LIST";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    default: return nullptr;
  }
}

// --- the unpickler ---------------------------------------------------------------

class Unpickler {
 public:
  Unpickler(std::string_view data, const StorageLoader& loader) : data_(data), loader_(loader) {
    true_.flag = true;
  }

  pt::Value run() {
    while (pos_ < data_.size()) {
      op_pos_ = pos_;
      const uint8_t op = u8();
      if (op == '.') return stop();
      step(op);
    }
    op_pos_ = pos_;
    fail("the pickle ends without STOP (the record is truncated)");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(absl::StrCat("data.pkl byte ", op_pos_, ": ", what));
  }

  // --- reading the opcode's arguments
  uint8_t u8() {
    if (pos_ >= data_.size()) fail("the pickle ends inside an opcode (the record is truncated)");
    return static_cast<uint8_t>(data_[pos_++]);
  }
  uint64_t le(int n) {
    std::string_view b = take(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
    return v;
  }
  std::string_view take(uint64_t n) {
    if (n > data_.size() - pos_) {
      fail(absl::StrCat("a length of ", n, " goes past the end of the pickle (",
                        data_.size() - pos_, " bytes left)"));
    }
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string line() {
    const size_t nl = data_.find('\n', pos_);
    if (nl == std::string_view::npos) fail("GLOBAL's name has no end of line");
    std::string out(data_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return out;
  }

  // --- the stack
  Obj* make(K kind) {
    if (static_cast<int64_t>(arena_.size()) >= kMaxObjects) {
      fail(absl::StrCat("the pickle makes more than ", kMaxObjects, " objects"));
    }
    arena_.push_back(std::make_unique<Obj>(kind));
    return arena_.back().get();
  }
  size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
  void need(size_t n, const char* op) {
    if (stack_.size() - base() < n) {
      fail(absl::StrCat(op, " needs ", n, " value", n == 1 ? "" : "s", " on the stack but there ",
                        stack_.size() - base() == 1 ? "is " : "are ", stack_.size() - base()));
    }
  }
  Obj* pop(const char* op) {
    need(1, op);
    Obj* o = stack_.back();
    stack_.pop_back();
    return o;
  }
  Obj* top(const char* op) {
    need(1, op);
    return stack_.back();
  }
  std::vector<Obj*> pop_mark(const char* op) {
    if (marks_.empty()) fail(absl::StrCat(op, " without a MARK"));
    std::vector<Obj*> items(stack_.begin() + marks_.back(), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  Obj* tuple(std::vector<Obj*> items) {
    if (items.empty()) return &empty_tuple_;
    Obj* t = make(K::kTuple);
    t->items = std::move(items);
    return t;
  }
  Obj* integer(int64_t v) {
    Obj* o = make(K::kInt);
    o->i = v;
    return o;
  }
  Obj* str(std::string_view bytes) {
    if (!json::valid_utf8(bytes)) fail("a string is not valid UTF-8");
    Obj* o = make(K::kStr);
    o->s = std::string(bytes);
    return o;
  }

  void memo_put(uint64_t key, const char* op) { memo_[key] = top(op); }
  Obj* memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) fail(absl::StrCat("memo entry ", key, " is read before it is written"));
    return it->second;
  }

  void set_item(Obj* d, Obj* k, Obj* v) {
    if (d->kind != K::kDict) {
      fail(absl::StrCat("SETITEM(S) on ", a_or_an(type_name(d)), ", not a dict"));
    }
    std::string key;
    if (k->kind == K::kStr) {
      key = "s" + k->s;
    } else if (k->kind == K::kInt) {
      key = absl::StrCat("i", k->i);
    } else {
      fail(absl::StrCat("dict keys must be str or int, not ", type_name(k)));
    }
    auto ins = d->dict->index.emplace(std::move(key), d->dict->entries.size());
    if (ins.second) {
      d->dict->entries.emplace_back(k, v);
    } else {
      d->dict->entries[ins.first->second].second = v;  // Python keeps the first position
    }
  }

  Obj* dict(bool ordered) {
    Obj* d = make(K::kDict);
    d->flag = ordered;
    d->dict = std::make_unique<DictBody>();
    return d;
  }

  // --- the opcodes
  void step(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        const uint8_t v = u8();
        if (v > 5) fail(absl::StrCat("pickle protocol ", v, " is not supported (at most 5)"));
        return;
      }
      case 0x95:  // FRAME: a length hint for buffered readers
        if (le(8) > data_.size() - pos_) fail("a FRAME goes past the end of the pickle");
        return;
      case 'c': {  // GLOBAL
        std::string module = line();
        std::string name = line();
        stack_.push_back(global(module, name));
        return;
      }
      case 0x93: {  // STACK_GLOBAL
        Obj* name = pop("STACK_GLOBAL");
        Obj* module = pop("STACK_GLOBAL");
        if (name->kind != K::kStr || module->kind != K::kStr) {
          fail("STACK_GLOBAL needs two strings");
        }
        stack_.push_back(global(module->s, name->s));
        return;
      }
      case 'q': return memo_put(u8(), "BINPUT");
      case 'r': return memo_put(le(4), "LONG_BINPUT");
      case 0x94: return memo_put(memo_.size(), "MEMOIZE");
      case 'h': stack_.push_back(memo_get(u8())); return;
      case 'j': stack_.push_back(memo_get(le(4))); return;
      case '(': marks_.push_back(stack_.size()); return;
      case ')': stack_.push_back(&empty_tuple_); return;
      case 't': stack_.push_back(tuple(pop_mark("TUPLE"))); return;
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
        const size_t n = op - 0x84;
        need(n, "TUPLE1/2/3");
        std::vector<Obj*> items(stack_.end() - n, stack_.end());
        stack_.resize(stack_.size() - n);
        stack_.push_back(tuple(std::move(items)));
        return;
      }
      case ']': stack_.push_back(make(K::kList)); return;
      case 'a': {  // APPEND
        Obj* v = pop("APPEND");
        Obj* l = top("APPEND");
        if (l->kind != K::kList) {
          fail(absl::StrCat("APPEND to ", a_or_an(type_name(l)), ", not a list"));
        }
        l->items.push_back(v);
        return;
      }
      case 'e': {  // APPENDS
        std::vector<Obj*> items = pop_mark("APPENDS");
        Obj* l = top("APPENDS");
        if (l->kind != K::kList) {
          fail(absl::StrCat("APPENDS to ", a_or_an(type_name(l)), ", not a list"));
        }
        l->items.insert(l->items.end(), items.begin(), items.end());
        return;
      }
      case '}': stack_.push_back(dict(false)); return;
      case 's': {  // SETITEM
        Obj* v = pop("SETITEM");
        Obj* k = pop("SETITEM");
        set_item(top("SETITEM"), k, v);
        return;
      }
      case 'u': {  // SETITEMS
        std::vector<Obj*> items = pop_mark("SETITEMS");
        if (items.size() % 2 != 0) fail("SETITEMS with an odd number of values");
        Obj* d = top("SETITEMS");
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, items[i], items[i + 1]);
        return;
      }
      case 'N': stack_.push_back(&none_); return;
      case 0x88: stack_.push_back(&true_); return;
      case 0x89: stack_.push_back(&false_); return;
      case 'K': stack_.push_back(integer(u8())); return;
      case 'M': stack_.push_back(integer(static_cast<int64_t>(le(2)))); return;
      case 'J': stack_.push_back(integer(static_cast<int32_t>(le(4)))); return;
      case 0x8a: stack_.push_back(integer(long1())); return;
      case 'G': {  // BINFLOAT: big-endian IEEE 754
        std::string_view b = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(b[i]);
        Obj* o = make(K::kFloat);
        std::memcpy(&o->d, &bits, 8);
        stack_.push_back(o);
        return;
      }
      case 'X': stack_.push_back(str(take(le(4)))); return;  // BINUNICODE
      case 0x8c: stack_.push_back(str(take(u8()))); return;  // SHORT_BINUNICODE
      case 'Q': stack_.push_back(persistent(pop("BINPERSID"))); return;
      case 'R': {  // REDUCE
        Obj* args = pop("REDUCE");
        Obj* fn = pop("REDUCE");
        stack_.push_back(reduce(fn, args));
        return;
      }
      case 'b': {  // BUILD: only state_dict()'s OrderedDict attributes (_metadata)
        Obj* state = pop("BUILD");
        Obj* inst = top("BUILD");
        if (inst->kind != K::kDict || !inst->flag || state->kind != K::kDict) {
          fail(absl::StrCat("BUILD of ", a_or_an(type_name(inst)), " from ",
                            a_or_an(type_name(state)),
                            " is not allowed (only an OrderedDict's attributes may be set)"));
        }
        return;
      }
      default: {
        const char* name = opcode_name(op);
        if (name != nullptr) {
          fail(absl::StrCat("pickle opcode ", name, " (0x", absl::Hex(op, absl::kZeroPad2),
                            ") is not allowed in a .pt file"));
        }
        fail(absl::StrCat("unknown pickle opcode 0x", absl::Hex(op, absl::kZeroPad2)));
      }
    }
  }

  // LONG1: a little-endian two's complement integer of n bytes.
  int64_t long1() {
    const uint8_t n = u8();
    std::string_view b = take(n);
    if (n == 0) return 0;
    const bool negative = static_cast<uint8_t>(b[n - 1]) & 0x80;
    uint64_t v = negative ? ~uint64_t{0} : 0;
    for (int i = std::min<int>(n, 8) - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
    bool fits = n <= 8;
    if (n > 8) {
      // Bytes past the eighth must only extend the sign of the 64-bit value.
      fits = (static_cast<int64_t>(v) < 0) == negative;
      for (size_t i = 8; i < n; ++i)
        fits = fits && static_cast<uint8_t>(b[i]) == (negative ? 0xFF : 0);
    }
    if (!fits) fail(absl::StrCat("an integer of ", n, " bytes does not fit in 64 bits"));
    return static_cast<int64_t>(v);
  }

  Obj* global(const std::string& module, const std::string& name) {
    const std::string full = absl::StrCat(module, ".", name);
    Obj* g = make(K::kGlobal);
    g->s = full;
    if (full == "collections.OrderedDict") {
      g->global = Global::kOrderedDict;
    } else if (full == "torch._utils._rebuild_tensor_v2") {
      g->global = Global::kRebuildTensorV2;
    } else if (full == "torch._utils._rebuild_parameter") {
      g->global = Global::kRebuildParameter;
    } else if (full == "torch._utils._rebuild_parameter_with_state") {
      g->global = Global::kRebuildParameterWithState;
    } else if (full == "torch.Size") {
      g->global = Global::kSize;
    } else {
      if (module == "torch") {
        for (const StorageName& s : kStorageTypes) {
          if (name == s.name) {
            g->global = Global::kStorageType;
            g->dtype = s.dtype;
            return g;
          }
        }
        for (const char* u : kUnsupportedStorageTypes) {
          if (name == u) fail(absl::StrCat("torch.", name, ": ember has no tensors of this dtype"));
        }
      }
      fail(absl::StrCat("pickled class ", absl::CHexEscape(full),
                        " is not allowed: ember loads only tensors, state dicts and plain Python "
                        "values from .pt files, as torch.load(weights_only=True) does"));
    }
    return g;
  }

  Obj* persistent(Obj* pid) {
    const bool shaped = pid->kind == K::kTuple && pid->items.size() == 5 &&
                        pid->items[0]->kind == K::kStr && pid->items[2]->kind == K::kStr &&
                        pid->items[3]->kind == K::kStr && pid->items[4]->kind == K::kInt;
    if (!shaped || pid->items[0]->s != "storage") {
      fail(
          absl::StrCat("a persistent id must be ('storage', storage type, key, location, numel), "
                       "got ",
                       a_or_an(type_name(pid)),
                       pid->kind == K::kTuple ? absl::StrCat(" of ", pid->items.size()) : ""));
    }
    Obj* type = pid->items[1];
    if (type->kind != K::kGlobal || type->global != Global::kStorageType) {
      fail(absl::StrCat("a persistent id names ", a_or_an(type_name(type)),
                        type->kind == K::kGlobal ? " " + type->s : "", ", not a storage type"));
    }
    const std::string& key = pid->items[2]->s;
    const std::string& location = pid->items[3]->s;
    const int64_t numel = pid->items[4]->i;
    if (numel < 0) fail(absl::StrCat("storage '", key, "' has ", numel, " elements"));
    auto it = storages_.find(key);
    if (it != storages_.end()) {
      Obj* seen = it->second;
      if (seen->dtype != type->dtype || seen->i != numel) {
        fail(absl::StrCat("storage '", key, "' is named as ", numel, " elements of ", type->s,
                          " and as ", seen->i, " of torch.", storage_type_name(seen->dtype)));
      }
      return seen;
    }
    Obj* st = make(K::kStorage);
    st->s = key;
    st->dtype = type->dtype;
    st->i = numel;
    st->device = parse_location(location);
    st->storage = loader_(key, type->dtype, numel);
    storages_.emplace(key, st);
    return st;
  }

  Device parse_location(const std::string& location) {
    if (location == "cpu") return Device(kCPU);
    if (location.rfind("cuda", 0) == 0) {
      try {
        return Device(location);
      } catch (const Error&) {
      }
    }
    fail(absl::StrCat("storage location '", absl::CHexEscape(location),
                      "' is not supported (ember loads 'cpu' and 'cuda:N')"));
  }

  Obj* reduce(Obj* fn, Obj* args) {
    if (fn->kind != K::kGlobal) fail(absl::StrCat("REDUCE calls ", a_or_an(type_name(fn))));
    if (args->kind != K::kTuple) {
      fail(absl::StrCat("REDUCE's arguments are ", a_or_an(type_name(args)), ", not a tuple"));
    }
    const std::vector<Obj*>& a = args->items;
    auto bad_args = [&](const std::string& what) { fail(absl::StrCat(fn->s, ": ", what)); };
    switch (fn->global) {
      case Global::kOrderedDict:
        if (!a.empty()) bad_args("only OrderedDict() without arguments is supported");
        return dict(true);
      case Global::kSize: {
        if (a.size() != 1 || a[0]->kind != K::kTuple) bad_args("expects one tuple of ints");
        for (const Obj* d : a[0]->items) {
          if (d->kind != K::kInt || d->i < 0) bad_args("sizes must be non-negative ints");
        }
        return a[0];
      }
      case Global::kRebuildTensorV2: return rebuild_tensor(fn, a);
      case Global::kRebuildParameter:
      case Global::kRebuildParameterWithState: {
        const size_t n = fn->global == Global::kRebuildParameter ? 3 : 4;
        if (a.size() != n || a[0]->kind != K::kTensor || a[1]->kind != K::kBool ||
            a[2]->kind != K::kDict) {
          bad_args(absl::StrCat("expects (tensor, requires_grad, backward_hooks",
                                n == 4 ? ", state" : "", ")"));
        }
        if (!a[2]->dict->entries.empty()) bad_args("backward hooks are not supported");
        Obj* p = make(K::kTensor);
        p->tensor = a[0]->tensor;
        p->device = a[0]->device;
        p->flag = a[1]->flag;
        p->parameter = true;
        return p;
      }
      case Global::kStorageType: bad_args("storage types are only used in persistent ids");
    }
    fail("unreachable");
  }

  Obj* rebuild_tensor(const Obj* fn, const std::vector<Obj*>& a) {
    auto bad = [&](const std::string& what) { fail(absl::StrCat(fn->s, ": ", what)); };
    if (a.size() != 6 && a.size() != 7) {
      bad(
          absl::StrCat("expects 6 or 7 arguments (storage, storage_offset, size, stride, "
                       "requires_grad, backward_hooks[, metadata]), got ",
                       a.size()));
    }
    if (a[0]->kind != K::kStorage) bad(absl::StrCat("the storage is ", a_or_an(type_name(a[0]))));
    if (a[1]->kind != K::kInt || a[1]->i < 0) bad("storage_offset must be a non-negative int");
    if (a[2]->kind != K::kTuple || a[3]->kind != K::kTuple) bad("size and stride must be tuples");
    if (a[4]->kind != K::kBool) bad("requires_grad must be a bool");
    if (a[5]->kind != K::kDict || !a[5]->dict->entries.empty()) {
      bad("backward_hooks must be an empty OrderedDict");
    }
    if (a.size() == 7 && a[6]->kind != K::kNone &&
        !(a[6]->kind == K::kDict && a[6]->dict->entries.empty())) {
      bad("tensor metadata (conjugate or negative bits) is not supported");
    }
    const Obj* st = a[0];
    const std::vector<Obj*>& size = a[2]->items;
    const std::vector<Obj*>& stride = a[3]->items;
    if (size.size() != stride.size()) {
      bad(absl::StrCat("size has ", size.size(), " dims but stride has ", stride.size()));
    }
    if (size.size() > 64) bad(absl::StrCat(size.size(), " dims are too many"));
    DimVector sizes, strides;
    int64_t numel = 1, last = a[1]->i;  // last: the largest element index
    bool overflow = false;
    for (size_t i = 0; i < size.size(); ++i) {
      if (size[i]->kind != K::kInt || size[i]->i < 0 || stride[i]->kind != K::kInt ||
          stride[i]->i < 0) {
        bad("sizes and strides must be non-negative ints");
      }
      sizes.push_back(size[i]->i);
      strides.push_back(stride[i]->i);
      int64_t span = 0;
      overflow = overflow || __builtin_mul_overflow(numel, size[i]->i, &numel);
      if (size[i]->i > 0) {
        overflow = overflow || __builtin_mul_overflow(size[i]->i - 1, stride[i]->i, &span) ||
                   __builtin_add_overflow(last, span, &last);
      }
    }
    auto text = [](const DimVector& v) { return absl::StrCat("(", absl::StrJoin(v, ", "), ")"); };
    if (overflow) {
      bad(absl::StrCat("size ", text(sizes), " with stride ", text(strides), " overflows"));
    }
    const bool fits = numel == 0 ? a[1]->i <= st->i : last < st->i;
    if (!fits) {
      bad(absl::StrCat("a tensor of size ", text(sizes), ", stride ", text(strides), " at offset ",
                       a[1]->i, " reaches element ", numel == 0 ? a[1]->i : last, " of storage '",
                       st->s, "', which has ", st->i));
    }
    Obj* t = make(K::kTensor);
    t->tensor =
        Tensor(std::make_shared<TensorImpl>(st->storage, st->dtype, sizes, strides, a[1]->i));
    t->flag = a[4]->flag;
    t->device = st->device;
    return t;
  }

  pt::Value stop() {
    Obj* result = pop("STOP");
    if (!stack_.empty() || !marks_.empty()) {
      fail(absl::StrCat("STOP leaves ", stack_.size(), " values and ", marks_.size(),
                        " marks behind"));
    }
    if (pos_ != data_.size()) fail(absl::StrCat(data_.size() - pos_, " bytes follow STOP"));
    return convert(result, 0);
  }

  // The arena's object as a Value tree (shared references are copied).
  pt::Value convert(Obj* o, int depth) {
    // Each object once, plus what shared references repeat (a tensor under
    // two names); a pickle nesting its references doubles per level.
    if (++converted_ > static_cast<int64_t>(arena_.size()) + kMaxRepeats) {
      fail(absl::StrCat("the pickle's shared references expand to more than ",
                        arena_.size() + kMaxRepeats, " values"));
    }
    if (depth > kMaxDepth) fail(absl::StrCat("containers nest more than ", kMaxDepth, " deep"));
    switch (o->kind) {
      case K::kNone: return pt::Value();
      case K::kBool: return pt::Value(o->flag);
      case K::kInt: return pt::Value(o->i);
      case K::kFloat: return pt::Value(o->d);
      case K::kStr: return pt::Value(o->s);
      case K::kTensor: {
        pt::Value v(o->tensor);
        v.set_tensor_info(o->flag, o->parameter, o->device);
        return v;
      }
      case K::kGlobal:
        fail(absl::StrCat("the result holds ", o->s, " itself, which is not a value"));
      case K::kStorage:
        fail(absl::StrCat("the result holds a bare storage ('", o->s,
                          "'); ember loads tensors, not storages"));
      default: break;
    }
    if (o->visiting) fail(absl::StrCat(a_or_an(type_name(o)), " contains itself"));
    o->visiting = true;
    pt::Value out;
    if (o->kind == K::kDict) {
      pt::Value::Entries entries;
      entries.reserve(o->dict->entries.size());
      for (const auto& kv : o->dict->entries) {
        pt::Value k = convert(kv.first, depth + 1);
        entries.emplace_back(std::move(k), convert(kv.second, depth + 1));
      }
      out = pt::Value::dict(std::move(entries), o->flag);
    } else {
      pt::Value::Items items;
      items.reserve(o->items.size());
      for (Obj* item : o->items) items.push_back(convert(item, depth + 1));
      out = o->kind == K::kList ? pt::Value::list(std::move(items))
                                : pt::Value::tuple(std::move(items));
    }
    o->visiting = false;
    return out;
  }

  std::string_view data_;
  const StorageLoader& loader_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  int64_t converted_ = 0;
  std::vector<std::unique_ptr<Obj>> arena_;
  std::vector<Obj*> stack_;
  std::vector<size_t> marks_;
  absl::flat_hash_map<uint64_t, Obj*> memo_;
  absl::flat_hash_map<std::string, Obj*> storages_;
  Obj none_{K::kNone};
  Obj true_{K::kBool};
  Obj false_{K::kBool};
  Obj empty_tuple_{K::kTuple};
};

// --- the pickler -----------------------------------------------------------------

class Pickler {
 public:
  explicit Pickler(std::vector<PickledStorage>* storages) : storages_(storages) {}

  std::string run(const pt::Value& v) {
    out_ += "\x80\x02";  // PROTO 2
    value(v, 0);
    out_ += '.';
    return std::move(out_);
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }

  // GLOBAL once, BINGET after (as Python's pickler memoizes it).
  void global(const char* module, const char* name) {
    const std::string full = absl::StrCat(module, "\n", name, "\n");
    auto it = memo_.find(full);
    if (it != memo_.end()) {
      if (it->second < 256) {
        out_ += 'h';
        put(it->second, 1);
      } else {
        out_ += 'j';
        put(it->second, 4);
      }
      return;
    }
    out_ += 'c';
    out_ += full;
    const uint32_t index = static_cast<uint32_t>(memo_.size());
    memo_.emplace(full, index);
    if (index < 256) {
      out_ += 'q';
      put(index, 1);
    } else {
      out_ += 'r';
      put(index, 4);
    }
  }

  void integer(int64_t v) {
    if (v >= 0 && v <= 0xFF) {
      out_ += 'K';
      put(v, 1);
    } else if (v >= 0 && v <= 0xFFFF) {
      out_ += 'M';
      put(v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += 'J';
      put(static_cast<uint32_t>(v), 4);
    } else {
      // LONG1: the shortest little-endian two's complement form.
      std::string b;
      for (int i = 0; i < 8; ++i)
        b.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF));
      while (b.size() > 1) {
        const uint8_t last = b.back(), prev = b[b.size() - 2];
        if ((last == 0 && !(prev & 0x80)) || (last == 0xFF && (prev & 0x80))) {
          b.pop_back();
        } else {
          break;
        }
      }
      out_ += '\x8a';
      put(b.size(), 1);
      out_ += b;
    }
  }

  void string(const std::string& s) {
    EMBER_CHECK(json::valid_utf8(s), "cannot save to a .pt file: the string '", absl::CHexEscape(s),
                "' is not valid UTF-8");
    EMBER_CHECK(s.size() <= UINT32_MAX, "cannot save to a .pt file: a string of ", s.size(),
                " bytes is too long");
    out_ += 'X';
    put(s.size(), 4);
    out_ += s;
  }

  void items(const pt::Value::Items& items, int depth) {
    for (const pt::Value& v : items) value(v, depth + 1);
  }

  void value(const pt::Value& v, int depth) {
    EMBER_CHECK(depth <= kMaxDepth, "cannot save to a .pt file: values nest more than ", kMaxDepth,
                " deep");
    using Kind = pt::Value::Kind;
    switch (v.kind()) {
      case Kind::kNone: out_ += 'N'; return;
      case Kind::kBool: out_ += v.to_bool() ? '\x88' : '\x89'; return;
      case Kind::kInt: integer(v.to_int()); return;
      case Kind::kFloat: {
        const double d = v.to_double();
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        out_ += 'G';
        for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
        return;
      }
      case Kind::kString: string(v.string()); return;
      case Kind::kTensor: tensor(v.tensor()); return;
      case Kind::kTuple: {
        const size_t n = v.items().size();
        if (n == 0) {
          out_ += ')';
        } else if (n <= 3) {
          items(v.items(), depth);
          out_ += static_cast<char>(0x84 + n);  // TUPLE1, TUPLE2, TUPLE3
        } else {
          out_ += '(';
          items(v.items(), depth);
          out_ += 't';
        }
        return;
      }
      case Kind::kList:
        out_ += ']';
        if (!v.items().empty()) {
          out_ += '(';
          items(v.items(), depth);
          out_ += 'e';
        }
        return;
      case Kind::kDict:
        if (v.is_ordered_dict()) {
          global("collections", "OrderedDict");
          out_ += ")R";
        } else {
          out_ += '}';
        }
        if (!v.entries().empty()) {
          out_ += '(';
          for (const auto& kv : v.entries()) {
            EMBER_CHECK(kv.first.kind() == Kind::kString || kv.first.kind() == Kind::kInt,
                        "cannot save to a .pt file: dict keys must be strings or ints, not ",
                        kv.first.type_name());
            value(kv.first, depth + 1);
            value(kv.second, depth + 1);
          }
          out_ += 'u';
        }
        return;
    }
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict()).
  void tensor(const Tensor& given) {
    EMBER_CHECK(given.defined(), "cannot save an undefined tensor to a .pt file");
    Tensor t = given;
    const char* type = storage_type_name(t.dtype());
    const int64_t es = t.element_size();
    const StorageImpl* impl = t.unsafeGetTensorImpl()->storage().get();
    auto it = by_storage_.find(impl);
    // A storage seen with another dtype, or not a whole number of elements,
    // cannot be shared as PyTorch's typed storages are: save a copy.
    if ((it != by_storage_.end() && (*storages_)[it->second].data.dtype() != t.dtype()) ||
        impl->nbytes() % es != 0) {
      Tensor copy = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
      copy.copy_(t);
      t = copy;
      impl = t.unsafeGetTensorImpl()->storage().get();
      it = by_storage_.end();
    }
    if (it == by_storage_.end()) {
      const int64_t numel = static_cast<int64_t>(impl->nbytes()) / es;
      const int64_t n = numel;
      PickledStorage s;
      s.key = std::to_string(storages_->size());
      s.data = Tensor(std::make_shared<TensorImpl>(t.unsafeGetTensorImpl()->storage(), t.dtype(),
                                                   IntArrayRef(&n, 1)));
      it = by_storage_.emplace(impl, storages_->size()).first;
      storages_->push_back(std::move(s));
    }
    const PickledStorage& s = (*storages_)[it->second];
    global("torch._utils", "_rebuild_tensor_v2");
    out_ += "((";
    string("storage");
    global("torch", type);
    string(s.key);
    string(t.device().is_cuda() && !t.device().has_index() ? "cuda:0" : t.device().str());
    integer(s.data.numel());
    out_ += "tQ";  // TUPLE, BINPERSID
    integer(t.storage_offset());
    out_ += '(';
    for (int64_t d : t.sizes()) integer(d);
    out_ += "t(";
    for (int64_t d : t.strides()) integer(d);
    out_ += 't';
    out_ += t.requires_grad() ? '\x88' : '\x89';
    global("collections", "OrderedDict");
    out_ += ")Rt";  // OrderedDict(), then the arguments' TUPLE
    out_ += 'R';
  }

  std::string out_;
  absl::flat_hash_map<std::string, uint32_t> memo_;
  std::vector<PickledStorage>* storages_;
  absl::flat_hash_map<const StorageImpl*, size_t> by_storage_;
};

}  // namespace

pt::Value unpickle(std::string_view data, const StorageLoader& load_storage) {
  return Unpickler(data, load_storage).run();
}

std::string pickle(const pt::Value& value, std::vector<PickledStorage>* storages) {
  storages->clear();
  return Pickler(storages).run(value);
}

}  // namespace serialize_internal
}  // namespace ember
