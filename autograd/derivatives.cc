#include "autograd/derivatives.h"

#include <algorithm>
#include <map>

#include "tensor/error.h"
#include "tensor/reduce.h"

namespace ember {
namespace autograd {

namespace {
std::map<std::string, Derivative>& registry() {
  static auto* r = new std::map<std::string, Derivative>();
  return *r;
}
}  // namespace

void register_derivatives(std::initializer_list<Derivative> entries) {
  for (const Derivative& d : entries) {
    bool inserted = registry().emplace(d.op, d).second;
    EMBER_CHECK(inserted, "derivative for '", d.op, "' registered twice");
  }
}

const Derivative* find_derivative(const std::string& op) {
  auto& r = registry();
  auto it = r.find(op);
  return it == r.end() ? nullptr : &it->second;
}

std::vector<std::string> registered_derivatives() {
  std::vector<std::string> names;
  for (const auto& [name, d] : registry()) names.push_back(name);
  return names;
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/false);
  DimVector keep;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (sizes[d] == 1 && r.sizes()[d] != 1) keep.push_back(d);
  }
  if (!keep.empty()) r = r.sum(keep, /*keepdim=*/true);
  EMBER_CHECK(r.sizes() == sizes, "sum_to: gradient shape does not reduce to the input's shape");
  return r;
}

DimVector wrap_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  int64_t n = ndim <= 0 ? 1 : ndim;
  for (int64_t d : dims) out.push_back(d < 0 ? d + n : d);
  std::sort(out.begin(), out.end());
  return out;
}

Tensor unsqueeze_to(const Tensor& grad, IntArrayRef dims, IntArrayRef input_sizes,
                    bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(input_sizes.size());
  if (keepdim || ndim == 0) return grad;
  DimVector ds;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) ds.push_back(d);
  } else {
    ds = wrap_dims(dims, ndim);
  }
  DimVector shape(input_sizes.begin(), input_sizes.end());
  for (int64_t d : ds) shape[d] = 1;
  return grad.reshape(shape);
}

}  // namespace autograd
}  // namespace ember
