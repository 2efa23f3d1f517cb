#ifndef EMBER_SERIALIZE_PICKLE_H_
#define EMBER_SERIALIZE_PICKLE_H_

// The restricted unpickler and the pickler behind .pt files (pt.h, Note
// [.pt files]).
//
// Note [Restricted unpickler]: a pickle is a program for a stack machine;
// Python's pickle runs any callable it names. This one runs none. It knows
// the opcodes that torch.save emits for state dicts (protocol 2, plus
// protocol 4's framing, memoize and short strings) and refuses every other
// opcode by name. GLOBAL may name only collections.OrderedDict,
// torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter(_with_state),
// torch.Size and the storage types (torch.FloatStorage...); REDUCE may call
// only those, with the arguments torch.save gives them; BUILD may only set
// an OrderedDict's attributes (state_dict()'s _metadata, which is dropped).
// Persistent ids must be ("storage", <storage type>, key, location, numel).
// Memory stays bounded: objects live in an arena whose size is capped
// (kMaxObjects), strings and counts are checked against the bytes left,
// containers nest at most kMaxDepth deep, a container that contains itself
// is refused, and so is a pickle whose shared references (memo gets) would
// repeat more than kMaxRepeats values when it is turned into a Value tree
// (a list of two references to a list of two references... doubles per
// level: a few hundred bytes could ask for 2**60 values).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "serialize/pt.h"
#include "tensor/storage.h"

namespace ember {
namespace serialize_internal {

constexpr int kMaxDepth = 256;

// "an int", "an OrderedDict", "a list": a type name for an error message.
inline std::string a_or_an(const std::string& type) {
  const bool vowel = !type.empty() && std::string("aeiouAEIOU").find(type[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + type;
}
constexpr int64_t kMaxObjects = int64_t{1} << 23;
constexpr int64_t kMaxRepeats = int64_t{1} << 20;

// Returns the CPU storage of persistent id (key, dtype, numel) holding
// numel elements; called once per key. Throws ember::Error when it cannot.
using StorageLoader =
    std::function<Storage(const std::string& key, ScalarType dtype, int64_t numel)>;

// Runs `data` (a data.pkl). Errors are ember::Error("... (data.pkl byte N)").
pt::Value unpickle(std::string_view data, const StorageLoader& load_storage);

// A storage the pickle refers to: its key and a CPU or CUDA tensor spanning
// all of it (dtype, numel elements, contiguous).
struct PickledStorage {
  std::string key;
  Tensor data;
};

// Pickles `value` as torch.save does (protocol 2) and lists the storages
// its tensors view, in key order ("0", "1"...). Tensors sharing an ember
// storage share it in the pickle.
std::string pickle(const pt::Value& value, std::vector<PickledStorage>* storages);

// Writes `value` as a torch.save archive through `sink` (pt::save and
// pt::save_file); force_zip64 writes zip64 records even where they are not
// needed (to test readers of files over 4 GiB with small ones).
void write_pt(const pt::Value& value, const std::function<void(const void*, size_t)>& sink,
              bool force_zip64);

}  // namespace serialize_internal
}  // namespace ember

#endif  // EMBER_SERIALIZE_PICKLE_H_
