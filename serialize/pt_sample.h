#ifndef EMBER_SERIALIZE_PT_SAMPLE_H_
#define EMBER_SERIALIZE_PT_SAMPLE_H_

// What tools/pt_interop.py and the .pt tests share: views() of the script
// in C++, and the files ember writes for the script to check with PyTorch
// (committed as serialize/testdata/pt/ember_*.pt, which pt_test compares
// with what ember writes now).

#include <string>
#include <vector>

#include "tensor/named_tensors.h"

namespace ember {
namespace serialize_testing {

// views() of tools/pt_interop.py: tensors viewing shared storages (a
// transpose, a row, a strided slice, a block, one element, an empty tail,
// an expanded tensor, one tensor under two names).
NamedTensors views_sample();

// The directory of the committed .pt files, relative to the workspace root.
constexpr char kPtTestdata[] = "serialize/testdata/pt/";

// Writes every ember_*.pt into `dir` through ember's public API and returns
// their names: the interop sample (state dict of every dtype), the same
// with zip64 records, views_sample(), a bare tensor, a Checkpoint, and
// SmallNet and its Adam state loaded from torch_smallnet.pt / torch_adam.pt
// and saved again, and a capturable Adam's state after one step. Reads
// those two from kPtTestdata.
std::vector<std::string> write_ember_made_files(const std::string& dir);

}  // namespace serialize_testing
}  // namespace ember

#endif  // EMBER_SERIALIZE_PT_SAMPLE_H_
