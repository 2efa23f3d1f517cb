#include "nn/functional/pooling.h"

#include "absl/strings/str_join.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/selection.h"
#include "tensor/nn_ops.h"

namespace ember {
namespace nn {
namespace functional {
namespace {
IntArrayRef ref(const ExpandingArray<2>& a) { return IntArrayRef(a.data(), 2); }
}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, ref(o.kernel_size()), ref(o.stride()),
                                        ref(o.padding()), ref(o.dilation()), o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, ref(o.kernel_size()), ref(o.stride()), ref(o.padding()),
                           ref(o.dilation()), o.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, ref(o.kernel_size()), ref(o.stride()), ref(o.padding()),
                           o.ceil_mode(), o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return ember::adaptive_avg_pool2d(input, ref(o.output_size()));
}

namespace {

// PyTorch's lp_pool: (sign(out) * relu(|out|) * window)^(1 / p) with out
// the average of input^p.
Tensor lp_from_average(const Tensor& out, double window, double norm_type) {
  return (sign(out) * out.abs().relu()).mul(window).pow(1.0 / norm_type);
}

}  // namespace

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const Tensor out = avg_pool1d(input.pow(o.norm_type()), AvgPool1dFuncOptions(o.kernel_size())
                                                              .stride(o.stride())
                                                              .padding(0)
                                                              .ceil_mode(o.ceil_mode()));
  return lp_from_average(out, static_cast<double>(o.kernel_size()[0]), o.norm_type());
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const Tensor out = avg_pool2d(input.pow(o.norm_type()), AvgPool2dFuncOptions(o.kernel_size())
                                                              .stride(o.stride())
                                                              .padding(0)
                                                              .ceil_mode(o.ceil_mode()));
  const auto& k = o.kernel_size();
  return lp_from_average(out, static_cast<double>(k[0] * k[1]), o.norm_type());
}

namespace {

// Python's _unpool_output_size.
template <size_t D>
std::vector<int64_t> unpool_output_size(const Tensor& input, const MaxUnpoolFuncOptions<D>& o) {
  std::vector<int64_t> def(D);
  for (size_t d = 0; d < D; ++d) {
    def[d] = (input.size(input.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(d)) - 1) *
                 o.stride()[d] +
             o.kernel_size()[d] - 2 * o.padding()[d];
  }
  if (!o.output_size()) return def;
  std::vector<int64_t> out = *o.output_size();
  if (out.size() == D + 2) out.erase(out.begin(), out.begin() + 2);
  EMBER_CHECK_VALUE(out.size() == D, "output_size should be a sequence containing ", D, " or ",
                    D + 2, " elements, but it has a length of '", o.output_size()->size(), "'");
  for (size_t d = 0; d < D; ++d) {
    const int64_t lo = def[d] - o.stride()[d], hi = def[d] + o.stride()[d];
    EMBER_CHECK_VALUE(lo < out[d] && out[d] < hi, "invalid output_size \"[",
                      absl::StrJoin(out, ", "), "]\" (dim ", d,
                      " must be between ", lo, " and ", hi, ")");
  }
  return out;
}

// ATen's max_unpool: zeros of [N, C, *out], input scattered to indices in
// each flattened plane (the last write wins, as ATen's loop); its gradient
// gathers from the same indices.
Tensor unpool(const Tensor& input, const Tensor& indices, const std::vector<int64_t>& out,
              size_t D) {
  const int64_t spatial = static_cast<int64_t>(D);
  EMBER_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, "max_unpooling: expected ",
              spatial + 1, "D or ", spatial + 2, "D input, got ", input.dim(), "D");
  EMBER_CHECK(indices.scalar_type() == kLong, "elements in indices should be type int64");
  EMBER_CHECK(input.sizes() == indices.sizes(),
              "Expected shape of indices to be same as that of the input tensor");
  const bool batched = input.dim() == spatial + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor idx = batched ? indices : indices.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1);
  int64_t plane = 1;
  for (int64_t s : out) plane *= s;
  const Tensor flat_idx = idx.reshape({n, c, -1});
  if (flat_idx.numel() > 0) {
    const int64_t lo = flat_idx.min().item<int64_t>(), hi = flat_idx.max().item<int64_t>();
    EMBER_CHECK_INDEX(lo >= 0 && hi < plane, "Found an invalid max index: ",
                      lo < 0 ? lo : hi, " (output volumes are of size ",
                      absl::StrJoin(out, "x"), ")");
  }
  Tensor result = zeros({n, c, plane}, x.options()).scatter(2, flat_idx, x.reshape({n, c, -1}));
  std::vector<int64_t> shape = {n, c};
  shape.insert(shape.end(), out.begin(), out.end());
  result = result.reshape(shape);
  return batched ? result : result.squeeze(0);
}

}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& o) {
  return unpool(input, indices, unpool_output_size<1>(input, o), 1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& o) {
  return unpool(input, indices, unpool_output_size<2>(input, o), 2);
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& o) {
  return unpool(input, indices, unpool_output_size<3>(input, o), 3);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
