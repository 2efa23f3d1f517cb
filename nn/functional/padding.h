#ifndef EMBER_NN_FUNCTIONAL_PADDING_H_
#define EMBER_NN_FUNCTIONAL_PADDING_H_

// torch.nn.functional.pad:
//   F::pad(x, F::PadFuncOptions({1, 2}));                          // last dim: 1 before, 2 after
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(ember::kReflect));  // last two dims
// `pad` lists (before, after) pairs starting from the last dim. Modes:
// kConstant (fills `value`; any number of dims, negative sizes crop),
// kReflect (mirrors without repeating the edge; each size below the dim's
// length), kReplicate (repeats the edge), kCircular (wraps around; each size
// at most the dim's length). The non-constant modes pad the last 1, 2 or 3
// dims of a (batch, channels, ...) or (channels, ...) input, as PyTorch 1.13
// does. Differentiable: built from narrow, cat and index_select.

#include <cstdint>
#include <utility>
#include <vector>

#include "nn/functional/options.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace functional {

struct PadFuncOptions {
  /* implicit */ PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(PadMode, mode) = kConstant;
  EMBER_ARG(double, value) = 0;
};

Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_PADDING_H_
