#include "autograd/gradcheck.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/random.h"

namespace ember {
namespace autograd {

namespace {

// Element k (row-major over sizes) of a float64 tensor, by its strides.
double* element(const Tensor& t, int64_t k) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t s = t.sizes()[d];
    off += (k % s) * t.strides()[d];
    k /= s;
  }
  return t.data_ptr<double>() + off;
}

std::vector<size_t> diff_inputs(const variable_list& inputs) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) idx.push_back(i);
  }
  return idx;
}

std::string check_first_order(const GradcheckFn& fn, const variable_list& inputs,
                              const GradcheckOptions& o) {
  const std::vector<size_t> wrt = diff_inputs(inputs);
  if (wrt.empty()) return "gradcheck expects at least one input tensor to require gradient";
  for (size_t i : wrt) {
    if (inputs[i].dtype() != kDouble) {
      return absl::StrCat("input ", i, " is not float64: gradcheck needs double precision");
    }
  }
  variable_list outputs = fn(inputs);
  variable_list wrt_tensors;
  for (size_t i : wrt) wrt_tensors.push_back(inputs[i]);
  for (size_t oi = 0; oi < outputs.size(); ++oi) {
    const Tensor& out = outputs[oi];
    if (!out.defined() || !out.is_floating_point()) continue;
    const int64_t n_out = out.numel();
    // Analytical Jacobian: one vector-Jacobian product per output element.
    std::vector<variable_list> rows;
    for (int64_t k = 0; k < n_out; ++k) {
      if (!out.requires_grad()) {
        rows.emplace_back(wrt.size());
        continue;
      }
      Tensor go = zeros(out.sizes(), out.options());
      *element(go, k) = 1.0;
      rows.push_back(grad({out}, wrt_tensors, {go}, /*retain_graph=*/true,
                          /*create_graph=*/false, /*allow_unused=*/true));
    }
    // Numerical Jacobian, input element by input element.
    for (size_t w = 0; w < wrt.size(); ++w) {
      const Tensor& x = inputs[wrt[w]];
      for (int64_t j = 0; j < x.numel(); ++j) {
        double* p = element(x, j);
        const double orig = *p;
        Tensor plus, minus;
        {
          NoGradGuard no_grad;
          *p = orig + o.eps;
          plus = fn(inputs)[oi].to(kDouble).clone();
          *p = orig - o.eps;
          minus = fn(inputs)[oi].to(kDouble).clone();
          *p = orig;
        }
        for (int64_t k = 0; k < n_out; ++k) {
          const double num = (*element(plus, k) - *element(minus, k)) / (2 * o.eps);
          const Tensor& row = rows[k][w];
          const double ana = row.defined() ? *element(row.contiguous(), j) : 0.0;
          if (!(std::fabs(ana - num) <= o.atol + o.rtol * std::fabs(num))) {
            return absl::StrCat("Jacobian mismatch for output ", oi, " with respect to input ",
                                wrt[w], ", output element ", k, ", input element ", j,
                                ": numerical ", num, " analytical ", ana);
          }
        }
      }
    }
  }
  return "";
}

}  // namespace

std::string gradcheck(const GradcheckFn& fn, const variable_list& inputs,
                      const GradcheckOptions& options) {
  std::string r = check_first_order(fn, inputs, options);
  if (!r.empty() || !options.check_grad_grad) return r;
  r = gradgradcheck(fn, inputs, {}, options);
  return r.empty() ? r : absl::StrCat("second order: ", r);
}

std::string gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                          const variable_list& grad_outputs, const GradcheckOptions& options) {
  const std::vector<size_t> wrt = diff_inputs(inputs);
  if (wrt.empty()) return "gradgradcheck expects at least one input tensor to require gradient";
  const variable_list outs = fn(inputs);
  variable_list vs = grad_outputs;
  if (vs.empty()) {
    for (const Tensor& out : outs) {
      vs.push_back(out.defined() && out.is_floating_point()
                       ? randn(out.sizes(), kDouble).requires_grad_()
                       : Tensor());
    }
  } else if (vs.size() != outs.size()) {
    return absl::StrCat("gradgradcheck: got ", vs.size(), " grad_outputs for ", outs.size(),
                        " outputs");
  }
  const size_t n_in = inputs.size();
  // The incoming gradients are inputs of the checked function too: the
  // derivative of a backward with respect to its grad_output is what
  // chains it to the ops before it.
  GradcheckFn vjp = [&](const variable_list& args) {
    const bool outer = GradMode::is_enabled();
    EnableGradGuard enable;  // the finite differences run under no_grad
    variable_list ins(args.begin(), args.begin() + n_in);
    variable_list o = fn(ins);
    variable_list used_outs, used_vs, wrt_t;
    for (size_t i = 0; i < o.size(); ++i) {
      if (o[i].defined() && o[i].requires_grad() && args[n_in + i].defined()) {
        used_outs.push_back(o[i]);
        used_vs.push_back(args[n_in + i]);
      }
    }
    for (size_t i : wrt) wrt_t.push_back(ins[i]);
    variable_list g(wrt_t.size());
    if (!used_outs.empty()) {
      g = grad(used_outs, wrt_t, used_vs, true, /*create_graph=*/outer, true);
    }
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].defined()) g[i] = zeros(wrt_t[i].sizes(), wrt_t[i].options().dtype(kDouble));
      if (!outer) g[i] = g[i].detach();
    }
    return g;
  };
  variable_list args = inputs;
  args.insert(args.end(), vs.begin(), vs.end());
  return check_first_order(vjp, args, options);
}

}  // namespace autograd
}  // namespace ember
