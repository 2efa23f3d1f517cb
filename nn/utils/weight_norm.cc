#include "nn/utils/weight_norm.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "nn/conv.h"
#include "nn/utils/reparametrize.h"
#include "tensor/all.h"

// LAPACK's minimum-norm least squares through the SVD (OpenBLAS ships
// LAPACK; its headers declare only BLAS).
extern "C" void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                        double* b, const int* ldb, double* s, const double* rcond, int* rank,
                        double* work, const int* lwork, int* iwork, int* info);

namespace ember {
namespace nn {
namespace utils {

using detail::ModuleAccess;

namespace {

// --- weight_norm ------------------------------------------------------------------

struct WeightNormState {
  std::string name;
  int64_t dim;
  Tensor target;  // the TensorImpl the layer's member shares

  Tensor compute_weight(Module& m) const {
    const Tensor& g = detail::parameter_or_throw(m, name + "_g");
    const Tensor& v = detail::parameter_or_throw(m, name + "_v");
    return _weight_norm(v, g, dim);  // as 1.13's WeightNorm.compute_weight
  }
};

struct WeightNormHook {
  std::shared_ptr<WeightNormState> state;
  void operator()(Module& m, const std::vector<Tensor>&) const {
    detail::rebind_tensor(state->target, state->compute_weight(m));
  }
};

std::shared_ptr<WeightNormState> find_weight_norm(Module& m, const std::string& name) {
  for (auto& s : ModuleAccess::hooks_of<WeightNormHook>(m)) {
    if (s->name == name) return s;
  }
  return nullptr;
}

// --- spectral_norm ----------------------------------------------------------------

// torch.nn.functional.normalize(x, dim=0, eps) of a vector.
Tensor normalize(const Tensor& x, double eps) {
  return x / x.norm(2, {0}, /*keepdim=*/true).clamp_min(eps).expand_as(x);
}

struct SpectralNormState {
  std::string name;
  int64_t dim;
  int64_t n_power_iterations;
  double eps;
  Tensor target;

  Tensor reshape_weight_to_matrix(const Tensor& weight) const {
    Tensor mat = weight;
    if (dim != 0) {
      std::vector<int64_t> perm{dim};
      for (int64_t d = 0; d < weight.dim(); ++d) {
        if (d != dim) perm.push_back(d);
      }
      mat = mat.permute(perm);
    }
    return mat.reshape({mat.size(0), -1});
  }

  Tensor compute_weight(Module& m, bool do_power_iteration) const {
    const Tensor& weight = detail::parameter_or_throw(m, name + "_orig");
    Tensor* u_buf = ModuleAccess::buffer(m, name + "_u");
    Tensor* v_buf = ModuleAccess::buffer(m, name + "_v");
    EMBER_CHECK(u_buf != nullptr && v_buf != nullptr, detail::no_attribute(m, name + "_u"));
    Tensor u = *u_buf, v = *v_buf;
    const Tensor weight_mat = reshape_weight_to_matrix(weight);
    if (do_power_iteration) {
      NoGradGuard no_grad;
      // In place into the buffers (PyTorch's out=), then copies: the graph
      // below keeps this call's u and v whatever later calls do.
      for (int64_t i = 0; i < n_power_iterations; ++i) {
        v.copy_(normalize(weight_mat.t().mv(u), eps));
        u.copy_(normalize(weight_mat.mv(v), eps));
      }
      u = u.clone();
      v = v.clone();
    }
    const Tensor sigma = u.dot(weight_mat.mv(v));
    return weight / sigma;
  }
};

struct SpectralNormHook {
  std::shared_ptr<SpectralNormState> state;
  void operator()(Module& m, const std::vector<Tensor>&) const {
    detail::rebind_tensor(state->target, state->compute_weight(m, m.is_training()));
  }
};

// pinv(a) b for a matrix a and a vector b, in float64 on the CPU: LAPACK's
// dgelsd, whose singular values below rcond * the largest count as zero.
Tensor pinv_solve(const Tensor& a, const Tensor& b, double rcond) {
  const int m = static_cast<int>(a.size(0)), n = static_cast<int>(a.size(1));
  const int nrhs = 1, lda = std::max(1, m), ldb = std::max({1, m, n});
  // Column-major: the rows of a's transpose.
  Tensor at = a.detach().to(kCPU).to(kDouble).t().contiguous();
  Tensor x = zeros({ldb}, kDouble);
  x.narrow(0, 0, m).copy_(b.detach().to(kCPU).to(kDouble));
  std::vector<double> s(std::max(1, std::min(m, n)));
  int rank = 0, info = 0, lwork = -1;
  double work_size = 0;
  int iwork_size = 0;
  dgelsd_(&m, &n, &nrhs, at.data_ptr<double>(), &lda, x.data_ptr<double>(), &ldb, s.data(), &rcond,
          &rank, &work_size, &lwork, &iwork_size, &info);
  lwork = static_cast<int>(work_size);
  std::vector<double> work(std::max(1, lwork));
  std::vector<int> iwork(std::max(1, iwork_size));
  dgelsd_(&m, &n, &nrhs, at.data_ptr<double>(), &lda, x.data_ptr<double>(), &ldb, s.data(), &rcond,
          &rank, work.data(), &lwork, iwork.data(), &info);
  EMBER_CHECK(info == 0, "spectral_norm: the SVD (LAPACK dgelsd) did not converge (info ", info,
              ")");
  return x.narrow(0, 0, n).clone();
}

// Note [Version-0 spectral norm state dicts]: PyTorch's
// SpectralNormLoadStateDictPreHook. Before version 1, spectral_norm kept
// the normalized `weight` as a buffer and no `weight_v`; loading such a
// dict recovers v from weight_orig, weight and u (u = normalize(W v), the
// invariant after a training step) and drops `weight`. PyTorch decides by
// the version in the dict's metadata, which ember's state dicts lack, so
// every dict is taken as PyTorch takes one without metadata: one with
// name_orig, name_u and name_v and no `name` is current; any other is
// converted, or, when name_orig, name or name_u is missing, reported as
// missing (PyTorch reports these even when the same key is reported again
// as missing from the module; so does ember).
struct SpectralNormLoadHook {
  std::shared_ptr<SpectralNormState> state;

  // PyTorch's _solve_v_and_rescale: v with u = normalize(W v) and
  // u . W v = sigma. PyTorch computes pinverse(W^T W) W^T u (= pinv(W) u)
  // in W's dtype with rcond 1e-15 on the singular values of W^T W; ember
  // solves in float64 with the same cutoff on W's (their square roots),
  // which agrees with PyTorch's float64 result. In float32, PyTorch's
  // pinverse of a singular W^T W (a W wider than its rank) is rounding
  // noise and its v no solution; ember's is the minimum-norm one. Either
  // way u . W v = sigma after the rescaling, which is all eval mode reads,
  // and training mode recomputes v from u.
  static Tensor solve_v_and_rescale(const Tensor& weight_mat, const Tensor& u,
                                    const Tensor& target_sigma) {
    const Tensor v = pinv_solve(weight_mat, u, std::sqrt(1e-15)).to(weight_mat.options());
    return v * (target_sigma / u.dot(weight_mat.mv(v)));
  }

  void operator()(NamedTensors& dict, const std::string& prefix, std::vector<std::string>& missing,
                  std::vector<std::string>&, std::vector<std::string>&) const {
    const std::string key = prefix + state->name;
    if (dict.contains(key + "_orig") && dict.contains(key + "_u") && dict.contains(key + "_v") &&
        !dict.contains(key)) {
      return;
    }
    bool has_missing_keys = false;
    for (const char* suffix : {"_orig", "", "_u"}) {
      if (!dict.contains(key + suffix)) {
        has_missing_keys = true;
        missing.push_back(key + suffix);
      }
    }
    if (has_missing_keys) return;
    NoGradGuard no_grad;
    const Tensor weight_orig = dict[key + "_orig"];
    const Tensor weight = dict[key];
    dict.erase(
        std::find_if(dict.begin(), dict.end(), [&](const auto& kv) { return kv.first == key; }));
    const Tensor sigma = (weight_orig / weight).mean();
    const Tensor weight_mat = state->reshape_weight_to_matrix(weight_orig);
    const Tensor v = solve_v_and_rescale(weight_mat, dict[key + "_u"], sigma);
    if (Tensor* slot = dict.find(key + "_v")) {
      *slot = v;
    } else {
      dict.emplace_back(key + "_v", v);
    }
  }
};

std::shared_ptr<SpectralNormState> find_spectral_norm(Module& m, const std::string& name) {
  for (auto& s : ModuleAccess::hooks_of<SpectralNormHook>(m)) {
    if (s->name == name) return s;
  }
  return nullptr;
}

bool is_conv_transpose(Module& m) {
  return m.as<ConvTranspose1dImpl>() != nullptr || m.as<ConvTranspose2dImpl>() != nullptr ||
         m.as<ConvTranspose3dImpl>() != nullptr;
}

// Makes `target` (the member's TensorImpl) the parameter `name` again,
// holding `value`, registered after the module's other parameters.
void restore_parameter(Module& m, const std::string& name, const Tensor& target,
                       const Tensor& value, bool requires_grad) {
  detail::rebind_tensor(target, value.detach());
  m.register_parameter(name, target, requires_grad);
}

}  // namespace

Module& weight_norm(Module& module, const std::string& name, std::optional<int64_t> dim) {
  EMBER_CHECK(find_weight_norm(module, name) == nullptr,
              "Cannot register two weight_norm hooks on the same parameter ", name);
  Tensor weight = detail::parameter_or_throw(module, name);
  EMBER_CHECK_TYPE(weight.defined(), "weight_norm: parameter '", name, "' of ", module.name(),
                   " is None");
  auto state = std::make_shared<WeightNormState>();
  state->name = name;
  state->dim = dim.value_or(-1);
  state->target = weight;
  Tensor g, v;
  {
    NoGradGuard no_grad;
    g = ::ember::norm_except_dim(weight.detach(), 2, state->dim);
    v = weight.detach();
  }
  ModuleAccess::remove_parameter(module, name);
  module.register_parameter(name + "_g", g);
  module.register_parameter(name + "_v", v);
  detail::rebind_tensor(weight, state->compute_weight(module));
  module.register_forward_pre_hook(WeightNormHook{state});
  return module;
}

Module& remove_weight_norm(Module& module, const std::string& name) {
  std::shared_ptr<WeightNormState> state = find_weight_norm(module, name);
  EMBER_CHECK_VALUE(state != nullptr, "weight_norm of '", name, "' not found in ", module.repr());
  const Tensor weight = state->compute_weight(module);
  ModuleAccess::remove_hook<WeightNormHook>(module, state);
  ModuleAccess::remove_parameter(module, name + "_g");
  ModuleAccess::remove_parameter(module, name + "_v");
  restore_parameter(module, name, state->target, weight, /*requires_grad=*/true);
  return module;
}

Module& spectral_norm(Module& module, const std::string& name, int64_t n_power_iterations,
                      double eps, std::optional<int64_t> dim) {
  const int64_t d = dim.value_or(is_conv_transpose(module) ? 1 : 0);
  EMBER_CHECK(find_spectral_norm(module, name) == nullptr,
              "Cannot register two spectral_norm hooks on the same parameter ", name);
  EMBER_CHECK_VALUE(n_power_iterations > 0,
                    "Expected n_power_iterations to be positive, but got n_power_iterations=",
                    n_power_iterations);
  Tensor weight = detail::parameter_or_throw(module, name);
  EMBER_CHECK_VALUE(weight.defined(), "`SpectralNorm` cannot be applied as parameter `", name,
                    "` is None");
  auto state = std::make_shared<SpectralNormState>();
  state->name = name;
  state->dim = d;
  state->n_power_iterations = n_power_iterations;
  state->eps = eps;
  state->target = weight;
  Tensor u, v, orig;
  {
    NoGradGuard no_grad;
    const Tensor weight_mat = state->reshape_weight_to_matrix(weight);
    u = normalize(empty({weight_mat.size(0)}, weight.options()).normal_(0, 1), eps);
    v = normalize(empty({weight_mat.size(1)}, weight.options()).normal_(0, 1), eps);
    orig = weight.detach();
  }
  const bool requires_grad = weight.requires_grad();
  ModuleAccess::remove_parameter(module, name);
  module.register_parameter(name + "_orig", orig, requires_grad);
  // Until the first call the member holds weight.data, as PyTorch's.
  detail::rebind_tensor(weight, orig.detach());
  module.register_buffer(name + "_u", u);
  module.register_buffer(name + "_v", v);
  module.register_forward_pre_hook(SpectralNormHook{state});
  module.register_load_state_dict_pre_hook(SpectralNormLoadHook{state});
  return module;
}

Module& remove_spectral_norm(Module& module, const std::string& name) {
  std::shared_ptr<SpectralNormState> state = find_spectral_norm(module, name);
  EMBER_CHECK_VALUE(state != nullptr, "spectral_norm of '", name, "' not found in ", module.repr());
  Tensor weight;
  {
    NoGradGuard no_grad;
    weight = state->compute_weight(module, /*do_power_iteration=*/false);
  }
  ModuleAccess::remove_hook<SpectralNormHook>(module, state);
  ModuleAccess::remove_load_hook<SpectralNormLoadHook>(module, state);
  ModuleAccess::remove_buffer(module, name + "_u");
  ModuleAccess::remove_buffer(module, name + "_v");
  ModuleAccess::remove_parameter(module, name + "_orig");
  restore_parameter(module, name, state->target, weight, /*requires_grad=*/true);
  return module;
}

}  // namespace utils
}  // namespace nn
}  // namespace ember
