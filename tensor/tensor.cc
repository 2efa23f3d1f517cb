#include "tensor/tensor.h"

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"

namespace ember {
namespace detail {

[[noreturn]] void throw_data_ptr_type_mismatch(ScalarType expected, ScalarType actual) {
  throw Error(absl::StrCat("expected scalar type ", scalar_type_name(expected),
                           " but found ", scalar_type_name(actual)));
}

[[noreturn]] void throw_accessor_dims(size_t expected, int64_t actual) {
  throw Error(absl::StrCat("TensorAccessor expected ", expected, " dims but tensor has ", actual));
}

[[noreturn]] void throw_accessor_device(const Device& device) {
  throw Error(absl::StrCat("accessor() reads host memory, but the tensor is on ", device.str(),
                           ": copy it with .cpu() first"));
}

[[noreturn]] void throw_not_implemented(const char* name, ScalarType t) {
  throw Error(absl::StrCat("\"", name, "\" not implemented for '", scalar_type_name(t), "'"));
}

// Wraps a possibly negative dim into [0, ndim), with PyTorch's IndexError.
int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;  // scalars accept dims -1 and 0
  int64_t lo = -n, hi = n - 1;
  if (dim < lo || dim > hi) {
    throw IndexError(absl::StrCat("Dimension out of range (expected to be in range of [", lo, ", ",
                                  hi, "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

std::string sizes_str(absl::Span<const int64_t> sizes) {
  return absl::StrCat("[", absl::StrJoin(sizes, ", "), "]");
}

}  // namespace detail

namespace {
AutogradHooks* g_hooks = nullptr;
}  // namespace

void set_autograd_hooks(AutogradHooks* hooks) { g_hooks = hooks; }
AutogradHooks* autograd_hooks() { return g_hooks; }

int64_t Tensor::size(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  return sizes()[detail::wrap_dim(dim, this->dim())];
}

int64_t Tensor::stride(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  return strides()[detail::wrap_dim(dim, this->dim())];
}

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  Tensor t = is_cpu() ? *this : to(Device(kCPU));
  if (t.is_quantized()) {  // the dequantized value
    const QuantParams& q = t.impl()->quant_params();
    int64_t v = t.dtype() == kQInt8 ? *static_cast<const int8_t*>(t.data_ptr())
                                    : *static_cast<const uint8_t*>(t.data_ptr());
    // float32 arithmetic, as PyTorch's dequantize does.
    return Scalar((static_cast<float>(v) - static_cast<float>(q.zero_point)) *
                  static_cast<float>(q.scale));
  }
  return EMBER_DISPATCH_ALL_TYPES(t.dtype(), "item", [&]() -> Scalar {
    return Scalar(*static_cast<const scalar_t*>(t.data_ptr()));
  });
}

bool Tensor::requires_grad() const {
  auto* m = impl_->autograd_meta();
  return m != nullptr && m->requires_grad();
}

namespace {
AutogradHooks& hooks_or_throw(const char* what) {
  if (g_hooks == nullptr) {
    throw Error(absl::StrCat(what, " needs ember's autograd library: link //autograd"));
  }
  return *g_hooks;
}
}  // namespace

const Tensor& Tensor::grad() const {
  static const Tensor kUndefined;
  if (impl_->autograd_meta() == nullptr || g_hooks == nullptr) return kUndefined;
  return g_hooks->grad(*this);
}
Tensor& Tensor::mutable_grad() const { return hooks_or_throw("mutable_grad").mutable_grad(mut()); }
std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  if (impl_->autograd_meta() == nullptr || g_hooks == nullptr) return nullptr;
  return g_hooks->grad_fn(*this);
}
bool Tensor::is_leaf() const {
  if (impl_->autograd_meta() == nullptr || g_hooks == nullptr) return true;
  return g_hooks->is_leaf(*this);
}
int64_t Tensor::output_nr() const {
  if (impl_->autograd_meta() == nullptr || g_hooks == nullptr) return 0;
  return g_hooks->output_nr(*this);
}
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  hooks_or_throw("backward").backward(*this, gradient, retain_graph, create_graph);
}
void Tensor::retain_grad() const { hooks_or_throw("retain_grad").retain_grad(*this); }
bool Tensor::retains_grad() const {
  if (impl_->autograd_meta() == nullptr || g_hooks == nullptr) return false;
  return g_hooks->retains_grad(*this);
}
void Tensor::remove_hook(unsigned handle) const {
  hooks_or_throw("remove_hook").remove_hook(*this, handle);
}

namespace detail {
unsigned register_tensor_hook(const Tensor& self, std::function<Tensor(const Tensor&)> hook) {
  return hooks_or_throw("register_hook").register_hook(self, std::move(hook));
}

void OpScope::finish(OpRecord&& rec) {
  done_ = true;
  // below_autograd stays set while the hook builds the node, so that
  // nothing it computes records.
  try {
    g_hooks->record(std::move(rec));
  } catch (...) {
    autograd_tls().below_autograd = false;
    throw;
  }
  autograd_tls().below_autograd = false;
}

void OpScope::record(const char* name, std::initializer_list<Tensor> inputs,
                     std::initializer_list<Tensor> outputs, OpArgs args) {
  OpRecord rec;
  rec.name = name;
  rec.inputs.assign(inputs.begin(), inputs.end());
  rec.outputs.assign(outputs.begin(), outputs.end());
  rec.args = std::move(args);
  finish(std::move(rec));
}

void OpScope::record_list(const char* name, TensorList inputs, TensorList outputs,
                          OpArgs args) {
  OpRecord rec;
  rec.name = name;
  rec.inputs.assign(inputs.begin(), inputs.end());
  rec.outputs.assign(outputs.begin(), outputs.end());
  rec.args = std::move(args);
  finish(std::move(rec));
}

Tensor OpScope::before_inplace(const char* name, const Tensor& self) {
  return g_hooks->before_inplace(name, self);
}

void OpScope::record_inplace(const char* name, const Tensor& self, Tensor self_before,
                             TensorList other_inputs, OpArgs args) {
  OpRecord rec;
  rec.name = name;
  rec.inputs.push_back(self);
  rec.inputs.insert(rec.inputs.end(), other_inputs.begin(), other_inputs.end());
  rec.outputs.push_back(self);
  rec.args = std::move(args);
  rec.inplace = true;
  rec.self_before = std::move(self_before);
  finish(std::move(rec));
}
}  // namespace detail

Tensor& Tensor::requires_grad_(bool requires_grad) const {
  if (!requires_grad && impl_->autograd_meta() == nullptr) return mut();
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "only Tensors of floating point dtype can require gradients");
  EMBER_CHECK(g_hooks != nullptr,
              "requires_grad_ needs ember's autograd library: link //autograd");
  g_hooks->set_requires_grad(impl_.get(), requires_grad);
  return mut();
}

}  // namespace ember
