#include "nn/pooling.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/options.h"

namespace ember {
namespace nn {

using detail::py_bool;
using detail::py_size;
using detail::py_tuple;

namespace F = functional;

// The functional op of each dimensionality.
namespace {
std::tuple<Tensor, Tensor> max_pool(const Tensor& x, const MaxPoolOptions<1>& o) {
  return F::max_pool1d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> max_pool(const Tensor& x, const MaxPoolOptions<2>& o) {
  return F::max_pool2d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> max_pool(const Tensor& x, const MaxPoolOptions<3>& o) {
  return F::max_pool3d_with_indices(x, o);
}
Tensor avg_pool(const Tensor& x, const AvgPoolOptions<1>& o) { return F::avg_pool1d(x, o); }
Tensor avg_pool(const Tensor& x, const AvgPoolOptions<2>& o) { return F::avg_pool2d(x, o); }
Tensor avg_pool(const Tensor& x, const AvgPoolOptions<3>& o) { return F::avg_pool3d(x, o); }
Tensor adaptive_avg_pool(const Tensor& x, const AdaptivePoolOptions<1>& o) {
  return F::adaptive_avg_pool1d(x, o);
}
Tensor adaptive_avg_pool(const Tensor& x, const AdaptivePoolOptions<2>& o) {
  return F::adaptive_avg_pool2d(x, o);
}
Tensor adaptive_avg_pool(const Tensor& x, const AdaptivePoolOptions<3>& o) {
  return F::adaptive_avg_pool3d(x, o);
}
std::tuple<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const AdaptivePoolOptions<1>& o) {
  return F::adaptive_max_pool1d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const AdaptivePoolOptions<2>& o) {
  return F::adaptive_max_pool2d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const AdaptivePoolOptions<3>& o) {
  return F::adaptive_max_pool3d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> fractional_max_pool(const Tensor& x,
                                               const FractionalMaxPoolOptions<2>& o) {
  return F::fractional_max_pool2d_with_indices(x, o);
}
std::tuple<Tensor, Tensor> fractional_max_pool(const Tensor& x,
                                               const FractionalMaxPoolOptions<3>& o) {
  return F::fractional_max_pool3d_with_indices(x, o);
}
}  // namespace

template <size_t D>
Tensor MaxPoolImpl<D>::forward(const Tensor& input) {
  return std::get<0>(max_pool(input, options));
}

template <size_t D>
std::tuple<Tensor, Tensor> MaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  return max_pool(input, options);
}

template <size_t D>
std::string MaxPoolImpl<D>::extra_repr() const {
  return absl::StrCat(
      "kernel_size=", py_size(options.kernel_size()), ", stride=", py_size(options.stride()),
      ", padding=", py_size(options.padding()), ", dilation=", py_size(options.dilation()),
      ", ceil_mode=", py_bool(options.ceil_mode()));
}

template <size_t D>
Tensor AvgPoolImpl<D>::forward(const Tensor& input) {
  return avg_pool(input, options);
}

// AvgPool1d keeps its sizes as 1-tuples (PyTorch's _single); the others
// print what they were given.
template <size_t D>
std::string AvgPoolImpl<D>::extra_repr() const {
  auto show = [](const ExpandingArray<D>& a) { return D == 1 ? py_tuple(a) : py_size(a); };
  return absl::StrCat("kernel_size=", show(options.kernel_size()),
                      ", stride=", show(options.stride()), ", padding=", show(options.padding()));
}

template <size_t D>
Tensor AdaptiveAvgPoolImpl<D>::forward(const Tensor& input) {
  return adaptive_avg_pool(input, options);
}

template <size_t D>
Tensor MaxUnpoolImpl<D>::forward(const Tensor& input, const Tensor& indices,
                                 const std::optional<std::vector<int64_t>>& output_size) {
  auto o = F::MaxUnpoolFuncOptions<D>(options.kernel_size())
               .stride(options.stride())
               .padding(options.padding())
               .output_size(output_size);
  if constexpr (D == 1) {
    return F::max_unpool1d(input, indices, o);
  } else if constexpr (D == 2) {
    return F::max_unpool2d(input, indices, o);
  } else {
    return F::max_unpool3d(input, indices, o);
  }
}

template <size_t D>
std::string MaxUnpoolImpl<D>::extra_repr() const {
  return absl::StrCat("kernel_size=", py_tuple(options.kernel_size()),
                      ", stride=", py_tuple(options.stride()),
                      ", padding=", py_tuple(options.padding()));
}

template class MaxUnpoolImpl<1>;
template class MaxUnpoolImpl<2>;
template class MaxUnpoolImpl<3>;

template <size_t D>
Tensor LPPoolImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 1) {
    return F::lp_pool1d(input, options);
  } else {
    return F::lp_pool2d(input, options);
  }
}

template <size_t D>
std::string LPPoolImpl<D>::extra_repr() const {
  return absl::StrCat("norm_type=", detail::py_float(options.norm_type()),
                      ", kernel_size=", detail::py_size(options.kernel_size()),
                      ", stride=", detail::py_size(options.stride()),
                      ", ceil_mode=", detail::py_bool(options.ceil_mode()));
}

template class LPPoolImpl<1>;
template class LPPoolImpl<2>;

template <size_t D>
std::string AdaptiveAvgPoolImpl<D>::extra_repr() const {
  return absl::StrCat("output_size=", py_size(options.output_size()));
}

template <size_t D>
Tensor AdaptiveMaxPoolImpl<D>::forward(const Tensor& input) {
  return std::get<0>(adaptive_max_pool(input, options));
}

template <size_t D>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  return adaptive_max_pool(input, options);
}

template <size_t D>
std::string AdaptiveMaxPoolImpl<D>::extra_repr() const {
  return absl::StrCat("output_size=", py_size(options.output_size()));
}

template <size_t D>
FractionalMaxPoolImpl<D>::FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options)
    : options(options) {
  const auto& ratio = options.output_ratio();
  EMBER_CHECK_VALUE(options.output_size() || ratio, "FractionalMaxPool", D,
                    "d requires specifying either an output size, or a pooling ratio");
  EMBER_CHECK_VALUE(!options.output_size() || !ratio,
                    "only one of output_size and output_ratio may be specified");
  if (ratio) {
    std::vector<std::string> values;
    bool in_range = true;
    for (size_t i = 0; i < D; ++i) {
      in_range = in_range && (*ratio)[i] > 0 && (*ratio)[i] < 1;
      values.push_back(detail::py_float((*ratio)[i]));
    }
    EMBER_CHECK_VALUE(
        in_range, "output_ratio must be between 0 and 1 (got ",
        ratio->from_one() ? values[0] : absl::StrCat("(", absl::StrJoin(values, ", "), ")"), ")");
  }
  if (options._random_samples().defined()) {
    _random_samples = register_buffer("_random_samples", options._random_samples());
  }
}

template <size_t D>
Tensor FractionalMaxPoolImpl<D>::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

template <size_t D>
std::tuple<Tensor, Tensor> FractionalMaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  FractionalMaxPoolOptions<D> o = options;
  o._random_samples(_random_samples);
  return fractional_max_pool(input, o);
}

template class FractionalMaxPoolImpl<2>;
template class FractionalMaxPoolImpl<3>;
template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;
template class MaxPoolImpl<3>;
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;
template class AvgPoolImpl<3>;
template class AdaptiveAvgPoolImpl<1>;
template class AdaptiveAvgPoolImpl<2>;
template class AdaptiveAvgPoolImpl<3>;
template class AdaptiveMaxPoolImpl<1>;
template class AdaptiveMaxPoolImpl<2>;
template class AdaptiveMaxPoolImpl<3>;

}  // namespace nn
}  // namespace ember
