#include "serialize/safetensors.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serialize/atomic_file.h"
#include "serialize/byte_source.h"
#include "serialize/json.h"
#include "tensor/empty.h"
#include "tensor/error.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; ember reads it in place");

namespace ember {
namespace safetensors {
namespace {

// The Python package refuses headers above 100 MB; so does ember.
constexpr uint64_t kMaxHeaderSize = 100000000;

struct DtypeName {
  ScalarType dtype;
  const char* name;
};
constexpr DtypeName kDtypes[] = {
    {kDouble, "F64"}, {kFloat, "F32"}, {kHalf, "F16"}, {kBFloat16, "BF16"}, {kLong, "I64"},
    {kInt, "I32"},    {kShort, "I16"}, {kChar, "I8"},  {kByte, "U8"},       {kBool, "BOOL"},
};
// Names the format defines that ember has no dtype for.
constexpr const char* kUnsupported[] = {"U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "C64"};

bool parse_dtype(const std::string& s, ScalarType* out) {
  for (const auto& d : kDtypes) {
    if (s == d.name) {
      *out = d.dtype;
      return true;
    }
  }
  return false;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// One tensor's header entry.
struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  int64_t begin;
  int64_t end;
};

struct Header {
  std::vector<Entry> entries;  // header order
  Metadata metadata;
};

[[noreturn]] void fail(const std::string& what) {
  throw Error(absl::StrCat("invalid safetensors file: ", what));
}

Entry parse_entry(const std::string& name, const json::Value& v) {
  if (!v.is_object()) {
    fail(absl::StrCat("tensor '", name, "': expected an object, got ",
                      json::Value::kind_name(v.kind())));
  }
  const json::Value* dtype = nullptr;
  const json::Value* shape = nullptr;
  const json::Value* offsets = nullptr;
  for (const auto& kv : v.object()) {
    if (kv.first == "dtype") {
      dtype = &kv.second;
    } else if (kv.first == "shape") {
      shape = &kv.second;
    } else if (kv.first == "data_offsets") {
      offsets = &kv.second;
    } else {
      fail(absl::StrCat("tensor '", name, "': unexpected field '", kv.first, "'"));
    }
  }
  if (dtype == nullptr || shape == nullptr || offsets == nullptr) {
    fail(absl::StrCat("tensor '", name, "': missing field '",
                      dtype == nullptr ? "dtype" : shape == nullptr ? "shape" : "data_offsets",
                      "'"));
  }
  Entry e;
  e.name = name;
  if (!dtype->is_string()) fail(absl::StrCat("tensor '", name, "': dtype must be a string"));
  if (!parse_dtype(dtype->string(), &e.dtype)) {
    for (const char* u : kUnsupported) {
      if (dtype->string() == u) {
        fail(absl::StrCat("tensor '", name, "': dtype ", u, " is not supported by ember"));
      }
    }
    fail(absl::StrCat("tensor '", name, "': unknown dtype '", dtype->string(), "'"));
  }
  if (!shape->is_array()) fail(absl::StrCat("tensor '", name, "': shape must be an array"));
  int64_t numel = 1;
  bool overflow = false;
  for (const auto& d : shape->array()) {
    int64_t n;
    if (!d.as_index(&n)) {
      fail(absl::StrCat("tensor '", name, "': shape entries must be non-negative integers, got ",
                        d.is_number() ? d.number_text() : json::Value::kind_name(d.kind())));
    }
    e.shape.push_back(n);
    if (!overflow && __builtin_mul_overflow(numel, n, &numel)) overflow = true;
  }
  int64_t nbytes = 0;
  if (overflow || __builtin_mul_overflow(numel, element_size(e.dtype), &nbytes)) {
    fail(absl::StrCat("tensor '", name, "': shape ", shape_text(e.shape), " is too large"));
  }
  if (!offsets->is_array() || offsets->array().size() != 2 ||
      !offsets->array()[0].as_index(&e.begin) || !offsets->array()[1].as_index(&e.end)) {
    fail(absl::StrCat("tensor '", name,
                      "': data_offsets must be two non-negative integers [begin, end]"));
  }
  if (e.end < e.begin) {
    fail(absl::StrCat("tensor '", name, "': data_offsets [", e.begin, ", ", e.end,
                      "] end before they begin"));
  }
  if (e.end - e.begin != nbytes) {
    fail(absl::StrCat("tensor '", name, "': shape ", shape_text(e.shape), " with dtype ",
                      dtype->string(), " needs ", nbytes, " bytes but data_offsets [", e.begin,
                      ", ", e.end, "] hold ", e.end - e.begin));
  }
  return e;
}

// Parses the header and checks it against a data section of `data_size` bytes.
Header parse_header(std::string_view text, uint64_t data_size) {
  if (text.empty() || text[0] != '{') fail("the header does not start with '{'");
  json::Value root;
  try {
    root = json::parse(text);
  } catch (const Error& e) {
    fail(absl::StrCat("header: ", e.what()));
  }
  if (!root.is_object()) fail("the header is not a JSON object");
  Header h;
  for (const auto& kv : root.object()) {
    if (kv.first == "__metadata__") {
      if (!kv.second.is_object()) fail("__metadata__ must be an object of strings");
      for (const auto& m : kv.second.object()) {
        if (!m.second.is_string()) {
          fail(absl::StrCat("__metadata__ value of '", m.first, "' must be a string, got ",
                            json::Value::kind_name(m.second.kind())));
        }
        h.metadata.emplace(m.first, m.second.string());
      }
      continue;
    }
    h.entries.push_back(parse_entry(kv.first, kv.second));
  }
  for (const Entry& e : h.entries) {
    if (static_cast<uint64_t>(e.end) > data_size) {
      fail(absl::StrCat("tensor '", e.name, "': data_offsets [", e.begin, ", ", e.end,
                        "] go past the end of the data (", data_size, " bytes)"));
    }
  }
  // The tensors must tile the data: sorted by offset, each starts where the
  // previous ended, and the last ends at the end of the data.
  std::vector<const Entry*> order;
  order.reserve(h.entries.size());
  for (const Entry& e : h.entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  int64_t covered = 0;
  const Entry* prev = nullptr;
  for (const Entry* e : order) {
    if (e->begin < covered) {
      fail(absl::StrCat("tensors '", prev->name, "' [", prev->begin, ", ", prev->end, ") and '",
                        e->name, "' [", e->begin, ", ", e->end, ") overlap"));
    }
    if (e->begin > covered) {
      fail(absl::StrCat("bytes [", covered, ", ", e->begin,
                        ") of the data belong to no tensor"));
    }
    covered = e->end;
    prev = e;
  }
  if (static_cast<uint64_t>(covered) != data_size) {
    fail(absl::StrCat("the data has ", data_size, " bytes but the tensors cover ", covered));
  }
  return h;
}

// Reads `size` bytes at `offset` of the data section into `dst`.
using ReadAt = std::function<void(int64_t offset, void* dst, int64_t size)>;

Contents materialize(const Header& h, const ReadAt& read_at, Device device) {
  Contents out;
  out.metadata = h.metadata;
  out.tensors.reserve(h.entries.size());
  for (const Entry& e : h.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype));
    int64_t n = e.end - e.begin;
    if (n > 0) read_at(e.begin, t.data_ptr(), n);
    if (e.dtype == kBool) {
      const unsigned char* p = static_cast<const unsigned char*>(t.data_ptr());
      for (int64_t i = 0; i < n; ++i) {
        if (p[i] > 1) {
          fail(absl::StrCat("tensor '", e.name, "': BOOL element ", i, " is ",
                            static_cast<int>(p[i]), ", not 0 or 1"));
        }
      }
    }
    if (device != Device(kCPU)) t = t.to(device);
    out.tensors.emplace_back(e.name, std::move(t));
  }
  return out;
}

uint64_t read_le64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void check_header_length(uint64_t n, uint64_t total) {
  if (n > kMaxHeaderSize) {
    fail(absl::StrCat("header length ", n, " is larger than the limit of ", kMaxHeaderSize,
                      " bytes"));
  }
  if (n > total - 8) {
    fail(absl::StrCat("header length ", n, " goes past the end of the file (", total,
                      " bytes)"));
  }
}

// The serialized header (length prefix and padding included) and the tensors
// to write after it, in data order.
struct Plan {
  std::string prefix;
  std::vector<std::pair<Tensor, int64_t>> data;  // CPU contiguous tensor, bytes
};

Plan plan(const NamedTensors& tensors, const Metadata& metadata) {
  std::unordered_set<std::string> names;
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& kv = tensors[i];
    EMBER_CHECK(kv.first != "__metadata__",
                "safetensors: a tensor cannot be called '__metadata__'");
    EMBER_CHECK(names.insert(kv.first).second, "safetensors: duplicate tensor name '", kv.first,
                "'");
    EMBER_CHECK(kv.second.defined(), "safetensors: tensor '", kv.first, "' is undefined");
    dtype_to_string(kv.second.dtype());  // throws for dtypes the format lacks
    order[i] = i;
  }
  // Data in decreasing element size so that every tensor starts aligned to
  // its element size (the Python package's layout; zero-copy readers rely on it).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tensors[a].second.element_size() > tensors[b].second.element_size();
  });
  std::vector<std::pair<int64_t, int64_t>> offsets(tensors.size());
  int64_t at = 0;
  for (size_t i : order) {
    int64_t n = tensors[i].second.nbytes();
    offsets[i] = {at, at + n};
    at += n;
  }
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& kv : metadata) {
      if (!first) header += ',';
      first = false;
      json::append_quoted(&header, kv.first);
      header += ':';
      json::append_quoted(&header, kv.second);
    }
    header += '}';
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i].second;
    if (header.size() > 1) header += ',';
    json::append_quoted(&header, tensors[i].first);
    absl::StrAppend(&header, ":{\"dtype\":\"", dtype_to_string(t.dtype()), "\",\"shape\":[",
                    absl::StrJoin(t.sizes(), ","), "],\"data_offsets\":[", offsets[i].first, ",",
                    offsets[i].second, "]}");
  }
  header += '}';
  while (header.size() % 8 != 0) header += ' ';
  Plan p;
  uint64_t n = header.size();
  p.prefix.resize(8);
  for (int i = 0; i < 8; ++i) p.prefix[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  p.prefix += header;
  for (size_t i : order) p.data.emplace_back(tensors[i].second, tensors[i].second.nbytes());
  return p;
}

// Writes the plan through `sink`, one tensor at a time (a non-contiguous or
// CUDA tensor is made a dense CPU copy only while it is written).
void emit(const Plan& p, const std::function<void(const void*, size_t)>& sink) {
  sink(p.prefix.data(), p.prefix.size());
  for (const auto& td : p.data) {
    if (td.second == 0) continue;
    Tensor t = td.first.is_cpu() ? td.first.contiguous() : td.first.cpu().contiguous();
    sink(t.data_ptr(), static_cast<size_t>(td.second));
  }
}

}  // namespace

const char* dtype_to_string(ScalarType dtype) {
  for (const auto& d : kDtypes) {
    if (d.dtype == dtype) return d.name;
  }
  throw Error(absl::StrCat("safetensors cannot store tensors of dtype ", dtype_name(dtype)));
}

const Tensor& Contents::at(const std::string& name) const {
  for (const auto& kv : tensors) {
    if (kv.first == name) return kv.second;
  }
  throw Error(absl::StrCat("no tensor named '", name, "' in the safetensors file"));
}

std::string save(const NamedTensors& tensors, const Metadata& metadata) {
  Plan p = plan(tensors, metadata);
  std::string out;
  size_t total = p.prefix.size();
  for (const auto& td : p.data) total += static_cast<size_t>(td.second);
  out.reserve(total);
  emit(p, [&](const void* d, size_t n) { out.append(static_cast<const char*>(d), n); });
  return out;
}

void save_file(const NamedTensors& tensors, const std::string& path, const Metadata& metadata) {
  Plan p = plan(tensors, metadata);
  serialize_internal::AtomicFile file(path);
  emit(p, [&](const void* d, size_t n) { file.write(d, n); });
  file.commit();
}

Contents load(std::string_view data, Device device) {
  if (data.size() < 8) {
    fail(absl::StrCat("it has ", data.size(), " bytes, fewer than the 8 of the header length"));
  }
  uint64_t n = read_le64(reinterpret_cast<const unsigned char*>(data.data()));
  check_header_length(n, data.size());
  std::string_view rest = data.substr(8 + n);
  Header h = parse_header(data.substr(8, n), rest.size());
  return materialize(
      h, [&](int64_t off, void* dst, int64_t size) { std::memcpy(dst, rest.data() + off, size); },
      device);
}

namespace {

// An open safetensors file whose header has been read and validated.
struct OpenFile {
  explicit OpenFile(const std::string& path) : source(path) {}
  serialize_internal::FileSource source;
  Header header;
  int64_t data_start = 0;
};

void parse(OpenFile* out) {
  const uint64_t total = out->source.size();
  if (total < 8) {
    fail(absl::StrCat("it has ", total, " bytes, fewer than the 8 of the header length"));
  }
  unsigned char len[8];
  out->source.read(0, len, 8);
  uint64_t n = read_le64(len);
  check_header_length(n, total);
  out->header = parse_header(out->source.read_string(8, n), total - 8 - n);
  out->data_start = static_cast<int64_t>(8 + n);
}

// Runs `body` on the parsed file at `path`; errors other than "cannot
// open/read" are prefixed with the path.
template <typename F>
auto with_file(const std::string& path, F body) {
  try {
    // A FIFO, a directory or a device is refused before anything is read
    // (files.h): opening a FIFO for reading would block until a writer came.
    OpenFile file(path);
    parse(&file);
    return body(file);
  } catch (const Error& e) {
    if (absl::StartsWith(e.what(), "cannot ")) throw;
    throw Error(absl::StrCat(path, ": ", e.what()));
  }
}

}  // namespace

Contents load_file(const std::string& path, Device device) {
  return with_file(path, [&](OpenFile& file) {
    return materialize(
        file.header,
        [&](int64_t off, void* dst, int64_t size) {
          file.source.read(static_cast<uint64_t>(file.data_start + off), dst,
                           static_cast<uint64_t>(size));
        },
        device);
  });
}

Metadata load_metadata(const std::string& path) {
  return with_file(path, [](OpenFile& file) { return std::move(file.header.metadata); });
}

}  // namespace safetensors
}  // namespace ember
