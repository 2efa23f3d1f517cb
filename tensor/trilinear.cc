#include "tensor/trilinear.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/error.h"
#include "tensor/record_function.h"
#include "tensor/spectral_more.h"

namespace ember {
namespace {

// Whether `dim` is listed (after wrapping into [0, total)).
bool listed(IntArrayRef dims, int64_t dim, int64_t total) {
  for (int64_t d : dims) {
    if ((d < 0 ? d + total : d) == dim) return true;
  }
  return false;
}

}  // namespace

Tensor _trilinear(const Tensor& i1, const Tensor& i2, const Tensor& i3, IntArrayRef expand1,
                  IntArrayRef expand2, IntArrayRef expand3, IntArrayRef sumdim,
                  int64_t unroll_dim) {
  profiler::RecordFunction prof_range("_trilinear", profiler::RangeKind::kOp, i1, i2, i3);
  const int64_t total = i1.dim() + static_cast<int64_t>(expand1.size());
  const Tensor* inputs[] = {&i1, &i2, &i3};
  const IntArrayRef expands[] = {expand1, expand2, expand3};
  for (int k = 0; k < 3; ++k) {
    EMBER_CHECK(inputs[k]->dim() + static_cast<int64_t>(expands[k].size()) == total,
                "number of dimensions of i", k + 1, " (", inputs[k]->dim(), ") plus expand", k + 1,
                " (", expands[k].size(), ") must equal ", total);
  }
  EMBER_CHECK(total <= 26, "_trilinear: at most 26 dimensions, got ", total);
  // One letter per position of the common rank; each input has the
  // letters of the positions it is not expanded at.
  std::vector<std::string> operands(3);
  std::vector<bool> present(total, false);
  for (int k = 0; k < 3; ++k) {
    for (int64_t p = 0; p < total; ++p) {
      if (listed(expands[k], p, total)) continue;
      operands[k] += static_cast<char>('a' + p);
      present[p] = true;
    }
  }
  std::string output;
  std::vector<int64_t> unsqueezed;  // kept positions no input has (size 1)
  int64_t kept = 0;
  for (int64_t p = 0; p < total; ++p) {
    if (listed(sumdim, p, total)) continue;
    if (present[p]) {
      output += static_cast<char>('a' + p);
    } else {
      unsqueezed.push_back(kept);
    }
    ++kept;
  }
  detail::OpScope scope(i1, i2, i3);
  Tensor out = einsum(absl::StrCat(absl::StrJoin(operands, ","), "->", output), {i1, i2, i3});
  for (int64_t p : unsqueezed) out = out.unsqueeze(p);
  out = out.contiguous();
  if (scope.active()) {
    scope.record(
        "_trilinear", {i1, i2, i3}, {out},
        {DimVector(expand1.begin(), expand1.end()), DimVector(expand2.begin(), expand2.end()),
         DimVector(expand3.begin(), expand3.end()), DimVector(sumdim.begin(), sumdim.end()),
         Scalar(unroll_dim)});
  }
  return out;
}

}  // namespace ember
