// libFuzzer target for the safetensors parser (safetensors::load, which
// covers the header length, the JSON reader and every offset check).
// Any input must either load or throw ember::Error: a crash, a sanitizer
// report or another exception is a bug.
//
//   ./bazelw build --config=fuzz //serialize:safetensors_fuzzer
//   bazel-bin/serialize/safetensors_fuzzer -max_total_time=20 -rss_limit_mb=2048
//       -dict=serialize/testdata/safetensors.dict CORPUS_DIR serialize/testdata/fuzz_seeds
// (one command; CORPUS_DIR is a writable directory, empty at first).
//
// Without --config=fuzz the same binary replays files given on its command
// line (fuzz_main.cc); safetensors_fuzzer_replay_test runs the seeds that way.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serialize/safetensors.h"
#include "tensor/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    ember::safetensors::Contents c = ember::safetensors::load(bytes);
    // What loaded must save again and load back the same.
    std::string again = ember::safetensors::save(c.tensors, c.metadata);
    ember::safetensors::Contents d = ember::safetensors::load(again);
    if (d.tensors.size() != c.tensors.size() || d.metadata != c.metadata) __builtin_trap();
  } catch (const ember::Error&) {
  }
  return 0;
}
