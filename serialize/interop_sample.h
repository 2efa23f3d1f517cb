#ifndef EMBER_SERIALIZE_INTEROP_SAMPLE_H_
#define EMBER_SERIALIZE_INTEROP_SAMPLE_H_

// The tensors and metadata of sample() in tools/safetensors_interop.py, built
// in C++: every dtype, extreme values, a 0-dim and an empty tensor, a name
// that needs JSON escaping. The committed testdata/python_made.safetensors
// holds them as Python wrote them; write_interop_sample writes them for the
// Python checker. The two definitions must stay equal.

#include "serialize/safetensors.h"

namespace ember {
namespace serialize_testing {

NamedTensors interop_sample();
Metadata interop_sample_metadata();

}  // namespace serialize_testing
}  // namespace ember

#endif  // EMBER_SERIALIZE_INTEROP_SAMPLE_H_
