#include "nn/utils/prune.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/utils/reparametrize.h"
#include "tensor/all.h"
#include "tensor/print.h"

namespace ember {
namespace nn {
namespace utils {
namespace prune {

using detail::ModuleAccess;

// --- amounts ----------------------------------------------------------------------

namespace {
constexpr char kAmountRange[] =
    " should either be a float in the range [0, 1] or a non-negative integer";
}  // namespace

PruningAmount::PruningAmount(int64_t count) : is_count_(true), count_(count) {
  EMBER_CHECK_VALUE(count >= 0, "amount=", count, kAmountRange);
}

PruningAmount::PruningAmount(double fraction) : is_count_(false), fraction_(fraction) {
  EMBER_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "amount=", python_float_repr(fraction),
                    kAmountRange);
}

int64_t PruningAmount::nparams_toprune(int64_t tensor_size) const {
  if (!is_count_) {
    // Python's round(): half to even, which nearbyint does in the default
    // rounding mode.
    return static_cast<int64_t>(std::nearbyint(fraction_ * static_cast<double>(tensor_size)));
  }
  EMBER_CHECK_VALUE(count_ <= tensor_size, "amount=", count_,
                    " should be smaller than the number of parameters to prune=", tensor_size);
  return count_;
}

// --- methods ----------------------------------------------------------------------

namespace {

void validate_structured(const Tensor& t, int64_t dim) {
  EMBER_CHECK_VALUE(t.dim() > 1,
                    "Structured pruning can only be applied to multidimensional tensors. Found "
                    "tensor of shape ",
                    size_repr(t.sizes()), " with ", t.dim(), " dims");
  EMBER_CHECK_INDEX(dim < t.dim(), "Invalid index ", dim, " for tensor of size ",
                    size_repr(t.sizes()));
}

// A mask of t's shape that is 1 on the slices `indices` along dim.
Tensor slices_mask(const Tensor& t, int64_t dim, const Tensor& indices) {
  Tensor mask = zeros_like(t);
  mask.index_fill_(dim, indices, 1);
  return mask;
}

const char* type_name(PruningType type) {
  switch (type) {
    case PruningType::kUnstructured:
      return "unstructured";
    case PruningType::kStructured:
      return "structured";
    case PruningType::kGlobal:
      return "global";
  }
  return "";
}

// PruningContainer's _combine_masks: `method` computes the mask of the part
// of t that `mask` keeps (the unpruned entries, the channels with an
// unpruned entry, or all of t), which then replaces that part of mask.
Tensor combine_masks(const BasePruningMethod& method, const Tensor& t, const Tensor& mask) {
  Tensor new_mask = mask.to(t.dtype());
  switch (method.pruning_type()) {
    case PruningType::kUnstructured: {
      const Tensor slc = mask == 1;
      const Tensor partial = method.compute_mask(t.index({slc}), mask.index({slc}));
      new_mask.index_put_({slc}, partial.to(new_mask.dtype()));
      break;
    }
    case PruningType::kStructured: {
      const int64_t n_dims = t.dim();
      int64_t dim = method.dim();
      if (dim < 0) dim += n_dims;
      EMBER_CHECK_INDEX(dim >= 0, "Index is out of bounds for tensor with dimensions ", n_dims);
      std::vector<int64_t> others;
      for (int64_t d = 0; d < n_dims; ++d) {
        if (d != dim) others.push_back(d);
      }
      const Tensor keep = (mask.sum(others) != 0).nonzero().reshape({-1});
      const Tensor partial =
          method.compute_mask(t.index_select(dim, keep), mask.index_select(dim, keep));
      new_mask.index_copy_(dim, keep, partial.to(new_mask.dtype()));
      break;
    }
    case PruningType::kGlobal:
      new_mask.copy_(method.compute_mask(t, mask));
      break;
  }
  return new_mask;
}

}  // namespace

Tensor BasePruningMethod::prune(const Tensor& t, const Tensor& default_mask,
                                const Tensor& importance_scores) const {
  const Tensor scores = importance_scores.defined() ? importance_scores : t;
  EMBER_CHECK(scores.sizes() == t.sizes(),
              "importance_scores should have the same shape as tensor t");
  return t * compute_mask(scores, default_mask.defined() ? default_mask : ones_like(t));
}

Tensor Identity::compute_mask(const Tensor&, const Tensor& default_mask) const {
  return default_mask;
}

Tensor RandomUnstructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t n = amount_.nparams_toprune(t.numel());
  Tensor mask = default_mask.contiguous().clone();
  if (n != 0) {
    const Tensor prob = rand_like(t);
    const Tensor indices = std::get<1>(prob.reshape({-1}).topk(n));
    mask.view({-1}).index_fill_(0, indices, 0);
  }
  return mask;
}

Tensor L1Unstructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t n = amount_.nparams_toprune(t.numel());
  Tensor mask = default_mask.contiguous().clone();
  if (n != 0) {
    const Tensor indices = std::get<1>(t.abs().reshape({-1}).topk(n, -1, /*largest=*/false));
    mask.view({-1}).index_fill_(0, indices, 0);
  }
  return mask;
}

Tensor RandomStructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  validate_structured(t, dim_);
  const int64_t channels = t.size(dim_);
  const int64_t n = amount_.nparams_toprune(channels);
  if (n == 0) return default_mask;
  const Tensor prob = rand({channels});
  const Tensor threshold = std::get<0>(prob.kthvalue(n));
  Tensor mask = slices_mask(t, dim_, (prob > threshold).nonzero().reshape({-1}));
  mask.mul_(default_mask.to(mask.dtype()));
  return mask;
}

Tensor LnStructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  validate_structured(t, dim_);
  const int64_t channels = t.size(dim_);
  const int64_t n = amount_.nparams_toprune(channels);
  const int64_t dim = dim_ < 0 ? dim_ + t.dim() : dim_;
  std::vector<int64_t> others;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d != dim) others.push_back(d);
  }
  const Tensor norm = t.norm(n_, others);
  const Tensor keep = std::get<1>(norm.topk(channels - n, -1, /*largest=*/true));
  if (n == 0) return default_mask;
  Tensor mask = slices_mask(t, dim_, keep);
  mask.mul_(default_mask.to(mask.dtype()));
  return mask;
}

Tensor CustomFromMask::compute_mask(const Tensor&, const Tensor& default_mask) const {
  EMBER_CHECK(default_mask.sizes() == mask_.sizes(), "CustomFromMask: the mask has shape ",
              size_repr(mask_.sizes()), " and the tensor ", size_repr(default_mask.sizes()));
  return default_mask * mask_.to(default_mask.dtype());
}

void PruningContainer::add_pruning_method(std::shared_ptr<const BasePruningMethod> method) {
  EMBER_CHECK(method != nullptr, "PruningContainer: no pruning method");
  methods_.push_back(std::move(method));
}

Tensor PruningContainer::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  EMBER_CHECK(!methods_.empty(), "PruningContainer: no pruning method");
  return combine_masks(*methods_.back(), t, default_mask);
}

// --- applying them to modules -----------------------------------------------------------

namespace {

struct PruneState {
  std::string name;
  std::shared_ptr<const BasePruningMethod> method;
  Tensor target;  // the TensorImpl the layer's member shares

  Tensor apply_mask(Module& m) const {
    Tensor* mask = ModuleAccess::buffer(m, name + "_mask");
    EMBER_CHECK(mask != nullptr, detail::no_attribute(m, name + "_mask"));
    const Tensor& orig = detail::parameter_or_throw(m, name + "_orig");
    return mask->to(orig.dtype()) * orig;
  }
};

struct PruneHook {
  std::shared_ptr<PruneState> state;
  void operator()(Module& m, const std::vector<Tensor>&) const {
    detail::rebind_tensor(state->target, state->apply_mask(m));
  }
};

std::shared_ptr<PruneState> find_pruning(Module& m, const std::string& name) {
  for (auto& s : ModuleAccess::hooks_of<PruneHook>(m)) {
    if (s->name == name) return s;
  }
  return nullptr;
}

// getattr(module, name): the pruned tensor or the parameter.
Tensor current(Module& m, const std::string& name) {
  if (auto s = find_pruning(m, name)) return s->target;
  Tensor t = detail::parameter_or_throw(m, name);
  EMBER_CHECK(t.defined(), "prune: parameter '", name, "' of ", m.name(), " is None");
  return t;
}

}  // namespace

Module& apply(Module& module, const std::string& name,
              std::shared_ptr<const BasePruningMethod> method, const Tensor& importance_scores) {
  EMBER_CHECK(method != nullptr, "prune: no pruning method");
  std::shared_ptr<PruneState> old = find_pruning(module, name);
  const Tensor orig = current(module, name);
  const Tensor scores = importance_scores.defined() ? importance_scores : orig;
  EMBER_CHECK(scores.sizes() == orig.sizes(), "importance_scores should have the same shape as ",
              "parameter ", name, " of ", module.repr());
  std::shared_ptr<const BasePruningMethod> combined = method;
  Tensor default_mask;
  if (old != nullptr) {
    auto container = std::make_shared<PruningContainer>();
    if (auto* earlier = dynamic_cast<const PruningContainer*>(old->method.get())) {
      *container = *earlier;
    } else {
      container->add_pruning_method(old->method);
    }
    container->add_pruning_method(method);
    combined = container;
    default_mask = ModuleAccess::buffer(module, name + "_mask")->detach().contiguous().clone();
  } else {
    default_mask = ones_like(orig);
  }
  Tensor mask;
  try {
    NoGradGuard no_grad;
    mask = combined->compute_mask(scores.detach(), default_mask);
  } catch (...) {
    // PyTorch has already moved the parameter to name_orig and moves it back
    // to the end of the module's parameters.
    if (old == nullptr) {
      ModuleAccess::remove_parameter(module, name);
      module.register_parameter(name, orig, orig.requires_grad());
    }
    throw;
  }
  std::shared_ptr<PruneState> state = old;
  if (state == nullptr) {
    state = std::make_shared<PruneState>();
    state->name = name;
    state->target = orig;
    const bool requires_grad = orig.requires_grad();
    ModuleAccess::remove_parameter(module, name);
    module.register_parameter(name + "_orig", orig.detach(), requires_grad);
  } else {
    ModuleAccess::remove_hook<PruneHook>(module, state);
  }
  state->method = combined;
  module.register_buffer(name + "_mask", mask);
  detail::rebind_tensor(state->target, state->apply_mask(module));
  module.register_forward_pre_hook(PruneHook{state});
  return module;
}

Module& identity(Module& module, const std::string& name) {
  return apply(module, name, std::make_shared<Identity>());
}

Module& random_unstructured(Module& module, const std::string& name, PruningAmount amount) {
  return apply(module, name, std::make_shared<RandomUnstructured>(amount));
}

Module& l1_unstructured(Module& module, const std::string& name, PruningAmount amount,
                        const Tensor& importance_scores) {
  return apply(module, name, std::make_shared<L1Unstructured>(amount), importance_scores);
}

Module& random_structured(Module& module, const std::string& name, PruningAmount amount,
                          int64_t dim) {
  return apply(module, name, std::make_shared<RandomStructured>(amount, dim));
}

Module& ln_structured(Module& module, const std::string& name, PruningAmount amount, double n,
                      int64_t dim, const Tensor& importance_scores) {
  return apply(module, name, std::make_shared<LnStructured>(amount, n, dim), importance_scores);
}

Module& custom_from_mask(Module& module, const std::string& name, const Tensor& mask) {
  return apply(module, name, std::make_shared<CustomFromMask>(mask));
}

void global_unstructured(
    const std::vector<std::pair<std::shared_ptr<Module>, std::string>>& parameters,
    const BasePruningMethod& method, const ImportanceScores& importance_scores) {
  EMBER_CHECK_TYPE(method.pruning_type() == PruningType::kUnstructured,
                   "Only \"unstructured\" PRUNING_TYPE supported for the `pruning_method`. Found "
                   "method ",
                   method.name(), " of type ", type_name(method.pruning_type()));
  std::vector<Tensor> scores, masks, tensors;
  for (const auto& [module, name] : parameters) {
    EMBER_CHECK(module != nullptr, "global_unstructured: no module for '", name, "'");
    const Tensor t = current(*module, name);
    tensors.push_back(t);
    const auto score = importance_scores.find({module.get(), name});
    if (score == importance_scores.end()) {
      scores.push_back(t.detach().reshape({-1}));
    } else {
      EMBER_CHECK_VALUE(score->second.numel() == t.numel(),
                        "global_unstructured(): the "
                        "importance_scores of '",
                        name, "' have ", score->second.numel(), " elements, the tensor ",
                        t.numel());
      scores.push_back(score->second.detach().to(t.dtype()).reshape({-1}));
    }
    const Tensor* mask = ModuleAccess::buffer(*module, name + "_mask");
    masks.push_back(mask != nullptr ? mask->reshape({-1}) : ones_like(t).reshape({-1}));
  }
  Tensor final_mask;
  {
    NoGradGuard no_grad;
    final_mask = combine_masks(method, cat(scores), cat(masks));
  }
  int64_t pointer = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const int64_t n = tensors[i].numel();
    custom_from_mask(*parameters[i].first, parameters[i].second,
                     final_mask.slice(0, pointer, pointer + n).view_as(tensors[i]));
    pointer += n;
  }
}

Module& remove(Module& module, const std::string& name) {
  std::shared_ptr<PruneState> state = find_pruning(module, name);
  EMBER_CHECK_VALUE(state != nullptr, "Parameter '", name, "' of module ", module.repr(),
                    " has to be pruned before pruning can be removed");
  Tensor weight;
  {
    NoGradGuard no_grad;
    weight = state->apply_mask(module);
  }
  const bool requires_grad = detail::parameter_or_throw(module, name + "_orig").requires_grad();
  ModuleAccess::remove_hook<PruneHook>(module, state);
  ModuleAccess::remove_parameter(module, name + "_orig");
  ModuleAccess::remove_buffer(module, name + "_mask");
  detail::rebind_tensor(state->target, std::move(weight));
  module.register_parameter(name, state->target, requires_grad);
  return module;
}

bool is_pruned(Module& module) {
  for (const auto& [name, m] : module.named_modules()) {
    if (!ModuleAccess::hooks_of<PruneHook>(*m).empty()) return true;
  }
  return false;
}

}  // namespace prune
}  // namespace utils
}  // namespace nn
}  // namespace ember
