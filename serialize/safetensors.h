#ifndef EMBER_SERIALIZE_SAFETENSORS_H_
#define EMBER_SERIALIZE_SAFETENSORS_H_

// The safetensors format (https://github.com/huggingface/safetensors), as
// Python's `safetensors.torch` reads and writes it:
//
//   8 bytes    N, the header length (little-endian uint64)
//   N bytes    a JSON object: {"__metadata__": {str: str}, name: {"dtype":
//              "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...},
//              padded with spaces so that the data starts 8-byte aligned
//   the rest   every tensor's bytes, little-endian, C order, at
//              [begin, end) relative to the start of this buffer
//
// Dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL. Loading never executes
// anything and checks everything before it allocates or copies: the header
// length against the file, the JSON (strict, see json.h), each dtype, shape and
// byte count, and that the tensors tile the data exactly (no gap, no overlap,
// nothing past the end). A bad file is an ember::Error naming the problem.
//
// Deviations from safetensors.torch, on purpose: non-contiguous tensors and
// tensors sharing storage are saved by value (Python refuses them), and
// load()/load_file() return the metadata with the tensors (Python reads it
// through safe_open). Tensors come back in the header's order.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/device.h"
#include "tensor/named_tensors.h"
#include "tensor/tensor.h"

namespace ember {

// The header's "__metadata__": free-form strings.
using Metadata = std::map<std::string, std::string>;

namespace safetensors {

struct Contents {
  NamedTensors tensors;
  Metadata metadata;

  // The tensor called `name`; throws ember::Error when there is none.
  const Tensor& at(const std::string& name) const;
};

// The file's bytes (safetensors.torch.save).
std::string save(const NamedTensors& tensors, const Metadata& metadata = {});

// Writes atomically: into a temporary file in the same directory, fsync,
// rename over `path`, fsync the directory (atomic_file.h). A crash at any
// point leaves either the old file or the new one at `path`.
void save_file(const NamedTensors& tensors, const std::string& path,
               const Metadata& metadata = {});

// Parses and validates `data` and copies the tensors out of it onto
// `device` (safetensors.torch.load / load_file(device=...)).
Contents load(std::string_view data, Device device = Device(kCPU));
Contents load_file(const std::string& path, Device device = Device(kCPU));

// The header's metadata alone, without reading any tensor data (Python's
// safe_open(path).metadata()). The header is validated as by load_file.
Metadata load_metadata(const std::string& path);

// "F32" for kFloat...; throws for dtypes safetensors cannot hold (quantized).
const char* dtype_to_string(ScalarType dtype);

}  // namespace safetensors
}  // namespace ember

#endif  // EMBER_SERIALIZE_SAFETENSORS_H_
