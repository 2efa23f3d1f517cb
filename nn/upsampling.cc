#include "nn/upsampling.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/options.h"

namespace ember {
namespace nn {

using detail::py_float;
using detail::py_size;
using detail::py_tuple;

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, functional::InterpolateFuncOptions()
                                            .size(options.size())
                                            .scale_factor(options.scale_factor())
                                            .mode(options.mode())
                                            .align_corners(options.align_corners()));
}

std::string UpsampleImpl::extra_repr() const {
  std::string info;
  if (options.scale_factor()) {
    const std::vector<double>& f = *options.scale_factor();
    std::vector<std::string> parts;
    for (double v : f) parts.push_back(py_float(v));
    info = f.size() == 1 ? "scale_factor=" + parts[0]
                         : absl::StrCat("scale_factor=(", absl::StrJoin(parts, ", "), ")");
  } else if (options.size()) {
    const std::vector<int64_t>& s = *options.size();
    info = s.size() == 1 ? absl::StrCat("size=", s[0]) : "size=" + py_tuple(s);
  } else {
    info = "size=None";
  }
  return absl::StrCat(info, ", mode=", interpolate_mode_name(options.mode()));
}

Tensor FoldImpl::forward(const Tensor& input) { return functional::fold(input, options); }

std::string FoldImpl::extra_repr() const {
  return absl::StrCat("output_size=", py_size(options.output_size()),
                      ", kernel_size=", py_size(options.kernel_size()),
                      ", dilation=", py_size(options.dilation()),
                      ", padding=", py_size(options.padding()),
                      ", stride=", py_size(options.stride()));
}

Tensor UnfoldImpl::forward(const Tensor& input) { return functional::unfold(input, options); }

std::string UnfoldImpl::extra_repr() const {
  return absl::StrCat("kernel_size=", py_size(options.kernel_size()),
                      ", dilation=", py_size(options.dilation()),
                      ", padding=", py_size(options.padding()),
                      ", stride=", py_size(options.stride()));
}

}  // namespace nn
}  // namespace ember
