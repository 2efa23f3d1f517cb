// libFuzzer target for the .pt reader (pt::load: the zip reader, the
// restricted unpickler and every tensor extent check). Any input must load
// or throw ember::Error; what loads (unless it is large) must flatten or
// throw ember::Error, and save and load back the same. A crash, a sanitizer report, another exception or a
// round trip that differs is a bug. CRC-32s are not checked, so mutations
// reach the pickle instead of stopping at the checksum.
//
//   ./bazelw build --config=fuzz //serialize:pt_fuzzer
//   bazel-bin/serialize/pt_fuzzer -max_total_time=20 -rss_limit_mb=2048
//       -dict=serialize/testdata/pt.dict CORPUS_DIR serialize/testdata/pt
// (one command; CORPUS_DIR is a writable directory, empty at first).
//
// Without --config=fuzz the same binary replays files given on its command
// line (fuzz_main.cc); pt_fuzzer_replay_test runs the seeds that way.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "serialize/pt.h"
#include "tensor/error.h"

namespace {

using ember::pt::Value;

// Values in the tree, stopping early past `limit`.
int64_t count(const Value& v, int64_t limit) {
  int64_t n = 1;
  if (v.kind() == Value::Kind::kTuple || v.kind() == Value::Kind::kList) {
    for (const Value& i : v.items()) {
      if (n > limit) break;
      n += count(i, limit);
    }
  } else if (v.is_dict()) {
    for (const auto& kv : v.entries()) {
      if (n > limit) break;
      n += count(kv.first, limit) + count(kv.second, limit);
    }
  }
  return n;
}

bool same(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNone: return true;
    case Value::Kind::kBool: return a.to_bool() == b.to_bool();
    case Value::Kind::kInt: return a.to_int() == b.to_int();
    case Value::Kind::kFloat: {
      const double x = a.to_double(), y = b.to_double();
      return std::memcmp(&x, &y, sizeof(x)) == 0;
    }
    case Value::Kind::kString: return a.string() == b.string();
    case Value::Kind::kTensor: {
      const ember::Tensor& x = a.tensor();
      const ember::Tensor& y = b.tensor();
      if (x.dtype() != y.dtype() || x.sizes() != y.sizes() || x.strides() != y.strides()) {
        return false;
      }
      const ember::Tensor cx = x.contiguous(), cy = y.contiguous();
      return std::memcmp(cx.data_ptr(), cy.data_ptr(), cx.nbytes()) == 0;
    }
    case Value::Kind::kTuple:
    case Value::Kind::kList:
      if (a.items().size() != b.items().size()) return false;
      for (size_t i = 0; i < a.items().size(); ++i) {
        if (!same(a.items()[i], b.items()[i])) return false;
      }
      return true;
    case Value::Kind::kDict:
      if (a.is_ordered_dict() != b.is_ordered_dict() || a.entries().size() != b.entries().size()) {
        return false;
      }
      for (size_t i = 0; i < a.entries().size(); ++i) {
        if (!same(a.entries()[i].first, b.entries()[i].first) ||
            !same(a.entries()[i].second, b.entries()[i].second)) {
          return false;
        }
      }
      return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Value v;
  try {
    v = ember::pt::load(bytes, /*verify_checksums=*/false);
  } catch (const ember::Error&) {
    return 0;
  }
  // Small values only: a few KB may expand (through shared references) to
  // a million values, whose tensors would not fit under -rss_limit_mb.
  if (count(v, 10000) > 10000) return 0;
  try {
    if (v.is_dict()) ember::pt::flatten(v);
  } catch (const ember::Error&) {
  }
  try {
    if (!same(v, ember::pt::load(ember::pt::save(v)))) __builtin_trap();
  } catch (const ember::Error&) {
    __builtin_trap();  // ember could not read back what it wrote
  }
  return 0;
}
