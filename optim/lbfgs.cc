#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "autograd/grad_mode.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/shape.h"

namespace ember {
namespace optim {

namespace {
// PyTorch's default max_eval: Python's max_iter * 5 // 4.
int64_t default_max_eval(int64_t max_iter) {
  const int64_t n = max_iter * 5;
  return n / 4 - (n % 4 < 0 ? 1 : 0);
}
}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

void LBFGSOptions::visit(OptionVisitor& v) {
  // Saved as the number it stands for (PyTorch saves the filled-in value).
  if (!max_eval_) max_eval_ = default_max_eval(max_iter_);
  v.field("lr", lr_);
  v.field("max_iter", max_iter_);
  v.field("max_eval", *max_eval_);
  v.field("tolerance_grad", tolerance_grad_);
  v.field("tolerance_change", tolerance_change_);
  v.field("history_size", history_size_);
  v.field("line_search_fn", line_search_fn_);
}

namespace {

constexpr char kGroupsError[] = "LBFGS doesn't support per-parameter options (parameter groups)";

// The entries of the global state (see lbfgs.h) that are numbers, and the
// history's numbered prefixes.
bool is_counter(const std::string& name) { return name == "func_evals" || name == "n_iter"; }
bool is_number(const std::string& name) {
  return name == "t" || name == "H_diag" || name == "prev_loss" || absl::StartsWith(name, "ro.") ||
         absl::StartsWith(name, "al.");  // PyTorch's scratch list, dropped by the next step
}
bool is_flat(const std::string& name) {
  return name == "d" || name == "prev_flat_grad" || absl::StartsWith(name, "old_dirs.") ||
         absl::StartsWith(name, "old_stps.");
}

// PyTorch's state dict entries for LBFGS, as step() works on them. The
// history is oldest first; entries PyTorch sets to None before the first
// iteration are nullopt or undefined.
struct LbfgsState {
  int64_t func_evals = 0;
  int64_t n_iter = 0;
  Tensor d;
  std::optional<double> t;
  std::deque<Tensor> old_dirs, old_stps;
  std::deque<double> ro;
  std::optional<double> H_diag;
  Tensor prev_flat_grad;
  std::optional<double> prev_loss;

  static LbfgsState read(ParamState& st);
  void write(ParamState& st) const;
};

// The history entries "<prefix><i>", i = 0, 1, ...: they must be numbered
// from 0 without gaps.
std::vector<const Tensor*> history(ParamState& st, const std::string& prefix) {
  std::vector<const Tensor*> out;
  for (const auto& b : st.buffers) {
    if (!absl::StartsWith(b.first, prefix)) continue;
    size_t i = 0;
    EMBER_CHECK_VALUE(absl::SimpleAtoi(b.first.substr(prefix.size()), &i),
                      "LBFGS state has a bad history entry '", b.first, "'");
    if (out.size() <= i) out.resize(i + 1, nullptr);
    out[i] = &b.second;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    EMBER_CHECK_VALUE(out[i] != nullptr, "LBFGS state lacks the history entry '", prefix, i, "'");
  }
  return out;
}

LbfgsState LbfgsState::read(ParamState& st) {
  LbfgsState s;
  auto number = [&](const char* name) -> std::optional<double> {
    const Tensor* t = st.find(name);
    if (t == nullptr) return std::nullopt;
    return t->item<double>();
  };
  s.func_evals = static_cast<int64_t>(number("func_evals").value_or(0));
  s.n_iter = static_cast<int64_t>(number("n_iter").value_or(0));
  if (const Tensor* d = st.find("d")) s.d = *d;
  if (const Tensor* g = st.find("prev_flat_grad")) s.prev_flat_grad = *g;
  s.t = number("t");
  s.H_diag = number("H_diag");
  s.prev_loss = number("prev_loss");
  for (const Tensor* y : history(st, "old_dirs.")) s.old_dirs.push_back(*y);
  for (const Tensor* x : history(st, "old_stps.")) s.old_stps.push_back(*x);
  for (const Tensor* r : history(st, "ro.")) s.ro.push_back(r->item<double>());
  EMBER_CHECK_VALUE(s.old_dirs.size() == s.old_stps.size() && s.old_dirs.size() == s.ro.size(),
                    "LBFGS state has ", s.old_dirs.size(), " old_dirs, ", s.old_stps.size(),
                    " old_stps and ", s.ro.size(), " ro entries");
  // Every iteration sets all of them: a resumed run needs them all.
  if (s.n_iter > 0) {
    for (const char* name : {"d", "t", "H_diag", "prev_flat_grad", "prev_loss"}) {
      EMBER_CHECK_VALUE(st.find(name) != nullptr, "LBFGS state of a run at n_iter ", s.n_iter,
                        " lacks '", name, "'");
    }
  }
  return s;
}

void LbfgsState::write(ParamState& st) const {
  auto& b = st.buffers;
  b.clear();
  auto number = [&](const std::string& name, double v) {
    b.emplace_back(name, scalar_tensor(v, kDouble));
  };
  b.emplace_back("func_evals", scalar_tensor(func_evals, kLong));
  b.emplace_back("n_iter", scalar_tensor(n_iter, kLong));
  if (d.defined()) b.emplace_back("d", d);
  if (t) number("t", *t);
  for (size_t i = 0; i < old_dirs.size(); ++i) {
    b.emplace_back(absl::StrCat("old_dirs.", i), old_dirs[i]);
  }
  for (size_t i = 0; i < old_stps.size(); ++i) {
    b.emplace_back(absl::StrCat("old_stps.", i), old_stps[i]);
  }
  for (size_t i = 0; i < ro.size(); ++i) number(absl::StrCat("ro.", i), ro[i]);
  if (H_diag) number("H_diag", *H_diag);
  if (prev_flat_grad.defined()) b.emplace_back("prev_flat_grad", prev_flat_grad);
  if (prev_loss) number("prev_loss", *prev_loss);
}

double dot(const Tensor& a, const Tensor& b) { return a.dot(b).item<double>(); }
double abs_max(const Tensor& a) { return a.abs().max().item<double>(); }

// PyTorch's _cubic_interpolate (from minFunc's polyinterp): the minimizer
// of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped
// to [xmin, xmax] (by default the two points); their midpoint when the cubic
// has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  double xmin, xmax;
  if (bounds) {
    std::tie(xmin, xmax) = *bounds;
  } else if (x1 <= x2) {
    xmin = x1, xmax = x2;
  } else {
    xmin = x2, xmax = x1;
  }
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (!(d2_square >= 0)) return (xmin + xmax) / 2.0;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  // Python's min(max(min_pos, xmin), xmax): NaN propagates as there.
  return std::min(std::max(min_pos, xmin), xmax);
}

// The loss and the flat gradient at x + t * d (the parameters are put back).
using Objective = std::function<std::pair<double, Tensor>(double t)>;

// One point of the line search: step, loss, flat gradient, slope along d.
struct Point {
  double t, f;
  Tensor g;
  double gtd;
};

struct LineSearchResult {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// PyTorch's _strong_wolfe (from minFunc's WolfeLineSearch): bracket a step
// satisfying the strong Wolfe conditions, then zoom into the bracket by
// cubic interpolation.
LineSearchResult strong_wolfe(const Objective& obj, double t, const Tensor& d, double f,
                              const Tensor& g, double gtd, double tolerance_change,
                              double c1 = 1e-4, double c2 = 0.9, int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  auto evaluate = [&](double at) {
    auto fg = obj(at);
    return Point{at, fg.first, fg.second, dot(fg.second, d)};
  };
  auto armijo_fails = [&](const Point& p) { return p.f > f + c1 * p.t * gtd; };
  auto curvature_holds = [&](const Point& p) { return std::abs(p.gtd) <= -c2 * gtd; };

  Point next = evaluate(t);
  int64_t evals = 1;
  Point prev{0, f, g, gtd};
  // The bracket: one point (done) or two, the lower loss at low.
  std::vector<Point> bracket;
  bool done = false;
  int64_t ls_iter = 0;
  while (ls_iter < max_ls) {
    if (armijo_fails(next) || (ls_iter > 1 && next.f >= prev.f)) {
      bracket = {prev, next};
      break;
    }
    if (curvature_holds(next)) {
      bracket = {next};
      done = true;
      break;
    }
    if (next.gtd >= 0) {
      bracket = {prev, next};
      break;
    }
    // Extrapolate, between 1.01 and 10 times further.
    const double min_step = next.t + 0.01 * (next.t - prev.t);
    const double max_step = next.t * 10;
    const double t_new = cubic_interpolate(prev.t, prev.f, prev.gtd, next.t, next.f, next.gtd,
                                           std::make_pair(min_step, max_step));
    prev = next;
    next = evaluate(t_new);
    ++evals;
    ++ls_iter;
  }
  // Out of iterations: the start and the last point (the zoom won't run,
  // so the start's slope is not needed).
  if (ls_iter == max_ls) bracket = {Point{0, f, g, gtd}, next};

  // Zoom. PyTorch's low/high indices (0 and 1, or 1 and 0).
  size_t low = bracket.front().f <= bracket.back().f ? 0 : 1;
  size_t high = 1 - low;
  bool insufficient_progress = false;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change) break;
    double t_new = cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t,
                                     bracket[1].f, bracket[1].gtd);
    // A point too close to an end of the bracket (within a tenth of its
    // length) is moved a tenth away when this happens twice in a row or the
    // point is at or past the end.
    const double b_max = std::max(bracket[0].t, bracket[1].t);
    const double b_min = std::min(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (b_max - b_min);
    if (std::min(b_max - t_new, t_new - b_min) < eps) {
      if (insufficient_progress || t_new >= b_max || t_new <= b_min) {
        t_new = std::abs(t_new - b_max) < std::abs(t_new - b_min) ? b_max - eps : b_min + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    const Point p = evaluate(t_new);
    ++evals;
    ++ls_iter;
    if (armijo_fails(p) || p.f >= bracket[low].f) {
      bracket[high] = p;
      low = bracket[0].f <= bracket[1].f ? 0 : 1;
      high = 1 - low;
    } else {
      if (curvature_holds(p)) {
        done = true;
      } else if (p.gtd * (bracket[high].t - bracket[low].t) >= 0) {
        bracket[high] = bracket[low];  // the old high becomes the new low
      }
      bracket[low] = p;
    }
  }
  const Point& best = bracket[low];
  return {best.f, best.g, best.t, evals};
}

}  // namespace

LBFGS::LBFGS(std::vector<OptimizerParamGroup> groups, const LBFGSOptions& defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  EMBER_CHECK_VALUE(param_groups().size() == 1, kGroupsError);
  // PyTorch's constructor fills in max_eval.
  auto& o = static_cast<LBFGSOptions&>(param_groups()[0].options());
  if (!o.max_eval()) o.max_eval(default_max_eval(o.max_iter()));
}

void LBFGS::step_group(OptimizerParamGroup&) {}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const auto& p : param_groups()[0].params()) n += p.numel();
  return n;
}

Tensor LBFGS::load_state_entry(const Tensor& p, int64_t index, const std::string& name,
                               const Tensor& saved) const {
  if (is_counter(name) || is_number(name)) {
    EMBER_CHECK_VALUE(saved.numel() == 1, "loaded state dict has a '", name, "' of ", saved.numel(),
                      " elements for parameter ", index);
    return saved.to(Device(kCPU)).reshape({}).to(is_counter(name) ? kLong : kDouble);
  }
  EMBER_CHECK_VALUE(is_flat(name), "loaded state dict has an entry '", name,
                    "' that LBFGS does not keep, for parameter ", index);
  EMBER_CHECK_VALUE(saved.dim() == 1 && saved.numel() == numel(), "loaded state dict has a '", name,
                    "' of the wrong shape: LBFGS wants 1-D of the ", numel(),
                    " elements of all its parameters");
  Tensor t = saved.is_floating_point() ? saved.to(p.dtype()) : saved;
  return t.to(p.device());
}

Tensor LBFGS::step(const LossClosure& closure) {
  EMBER_CHECK_TYPE(closure != nullptr,
                   "LBFGS.step() missing 1 required positional argument: 'closure'");
  EMBER_CHECK_VALUE(param_groups().size() == 1, kGroupsError);
  NoGradGuard no_grad;
  const std::vector<Tensor>& params = param_groups()[0].params();
  const auto& o = static_cast<const LBFGSOptions&>(param_groups()[0].options());
  const int64_t max_eval = o.max_eval().value_or(default_max_eval(o.max_iter()));

  auto evaluate = [&] {
    EnableGradGuard enable;
    return closure();
  };
  // All gradients in one vector (zeros for a parameter without one).
  auto gather_flat_grad = [&] {
    std::vector<Tensor> views;
    for (const auto& p : params) {
      const Tensor& g = p.grad();
      views.push_back(g.defined() ? g.reshape({-1}) : zeros({p.numel()}, p.options()));
    }
    return cat(views, 0);
  };
  // p += step * update, the update split over the parameters.
  auto add_grad = [&](double step, const Tensor& update) {
    int64_t offset = 0;
    for (auto p : params) {
      const int64_t n = p.numel();
      p.add_(update.slice(0, offset, offset + n).view_as(p), step);
      offset += n;
    }
  };

  ParamState& st = state_for(params[0]);
  LbfgsState s = LbfgsState::read(st);

  const Tensor orig_loss = evaluate();
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  ++s.func_evals;
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = abs_max(flat_grad) <= o.tolerance_grad();
  if (opt_cond) {
    s.write(st);
    return orig_loss;
  }

  int64_t n_iter = 0;
  while (n_iter < o.max_iter()) {
    ++n_iter;
    ++s.n_iter;

    // The descent direction.
    if (s.n_iter == 1) {
      s.d = flat_grad.neg();
      s.old_dirs.clear();
      s.old_stps.clear();
      s.ro.clear();
      s.H_diag = 1;
    } else {
      // Update the memory with the last step, when its curvature is positive.
      Tensor y = flat_grad.sub(s.prev_flat_grad);
      Tensor step = s.d.mul(*s.t);
      const double ys = dot(y, step);
      if (ys > 1e-10) {
        if (static_cast<int64_t>(s.old_dirs.size()) == o.history_size()) {
          s.old_dirs.pop_front();
          s.old_stps.pop_front();
          s.ro.pop_front();
        }
        s.old_dirs.push_back(y);
        s.old_stps.push_back(step);
        s.ro.push_back(1. / ys);
        // The scale of the initial inverse Hessian.
        s.H_diag = ys / dot(y, y);
      }
      // The two-loop recursion: the inverse Hessian approximation times
      // the negative gradient, in one buffer.
      const size_t num_old = s.old_dirs.size();
      std::vector<double> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t i = num_old; i-- > 0;) {
        al[i] = dot(s.old_stps[i], q) * s.ro[i];
        q.add_(s.old_dirs[i], -al[i]);
      }
      Tensor r = q.mul(*s.H_diag);
      for (size_t i = 0; i < num_old; ++i) {
        const double be_i = dot(s.old_dirs[i], r) * s.ro[i];
        r.add_(s.old_stps[i], al[i] - be_i);
      }
      s.d = r;
    }
    if (!s.prev_flat_grad.defined()) {
      s.prev_flat_grad = flat_grad.clone();
    } else {
      s.prev_flat_grad.copy_(flat_grad);
    }
    s.prev_loss = loss;

    // The step length: scaled down by the gradient's size on the very first
    // iteration, lr after.
    s.t = s.n_iter == 1 ? std::min(1., 1. / flat_grad.abs().sum().item<double>()) * o.lr() : o.lr();
    const double gtd = dot(flat_grad, s.d);
    if (gtd > -o.tolerance_change()) break;  // not a descent direction any more

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      EMBER_CHECK(*o.line_search_fn() == "strong_wolfe", "only 'strong_wolfe' is supported");
      std::vector<Tensor> x_init;
      for (const auto& p : params) x_init.push_back(p.clone());
      const Tensor d = s.d;
      Objective obj = [&](double t) {
        add_grad(t, d);
        const double f = evaluate().item<double>();
        Tensor g = gather_flat_grad();
        for (size_t i = 0; i < params.size(); ++i) Tensor(params[i]).copy_(x_init[i]);
        return std::make_pair(f, g);
      };
      LineSearchResult ls = strong_wolfe(obj, *s.t, d, loss, flat_grad, gtd, o.tolerance_change());
      loss = ls.f;
      flat_grad = ls.g;
      s.t = ls.t;
      ls_func_evals = ls.evals;
      add_grad(*s.t, s.d);
      opt_cond = abs_max(flat_grad) <= o.tolerance_grad();
    } else {
      // A fixed step; the function is evaluated again except after the last
      // iteration (in a stochastic setting that evaluation is of no use).
      add_grad(*s.t, s.d);
      if (n_iter != o.max_iter()) {
        loss = evaluate().item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = abs_max(flat_grad) <= o.tolerance_grad();
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    s.func_evals += ls_func_evals;

    if (n_iter == o.max_iter()) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    // Lack of progress.
    if (abs_max(s.d.mul(*s.t)) <= o.tolerance_change()) break;
    if (std::abs(loss - *s.prev_loss) < o.tolerance_change()) break;
  }
  s.write(st);
  return orig_loss;
}

}  // namespace optim
}  // namespace ember
