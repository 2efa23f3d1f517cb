#include "optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>

#include <unordered_map>
#include "tensor/creation.h"
#include "tensor/empty.h"

namespace ember {
namespace optim {

namespace {

// Python's % (the result takes the divisor's sign): CosineAnnealingLR's
// test runs on negative numbers early in the schedule.
int64_t py_mod(int64_t a, int64_t b) {
  // Python's ZeroDivisionError, where C++ would crash (step_size or T_max 0).
  EMBER_CHECK(b != 0, "integer division or modulo by zero");
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Tensor vector_tensor(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kDouble);
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}

Tensor vector_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kLong);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

class Saver : public SchedulerVisitor {
 public:
  explicit Saver(NamedTensors* out) : out_(out) {}
  void field(const char* name, int64_t& v) override {
    out_->emplace_back(name, scalar_tensor(v, kLong));
  }
  void field(const char* name, double& v) override {
    out_->emplace_back(name, scalar_tensor(v, kDouble));
  }
  void field(const char* name, std::vector<int64_t>& v) override {
    out_->emplace_back(name, vector_tensor(v));
  }
  void field(const char* name, std::vector<double>& v) override {
    out_->emplace_back(name, vector_tensor(v));
  }
  void field(const char* name, bool& v) override {
    out_->emplace_back(name, scalar_tensor(v, kBool));
  }
  void field(const char* name, std::string& v) override {
    Tensor t = empty({static_cast<int64_t>(v.size())}, kByte);
    std::copy(v.begin(), v.end(), reinterpret_cast<char*>(t.data_ptr<uint8_t>()));
    out_->emplace_back(name, t);
  }

 private:
  NamedTensors* out_;
};

// Reads saved tensors back into the fields they name; absent keys leave a
// field as it is.
class Loader : public SchedulerVisitor {
 public:
  explicit Loader(const NamedTensors& in) {
    for (const auto& kv : in) in_[kv.first] = kv.second.to(Device(kCPU)).contiguous();
  }
  void field(const char* name, int64_t& v) override {
    if (const Tensor* t = find(name, 0)) v = t->to(kLong).item<int64_t>();
  }
  void field(const char* name, double& v) override {
    if (const Tensor* t = find(name, 0)) v = t->item<double>();
  }
  void field(const char* name, std::vector<int64_t>& v) override {
    if (const Tensor* t = find(name, 1)) {
      Tensor l = t->to(kLong);
      v.assign(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
    }
  }
  void field(const char* name, std::vector<double>& v) override {
    if (const Tensor* t = find(name, 1)) {
      Tensor d = t->to(kDouble);
      v.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    }
  }
  void field(const char* name, bool& v) override {
    if (const Tensor* t = find(name, 0)) v = t->to(kBool).item<bool>();
  }
  void field(const char* name, std::string& v) override {
    if (const Tensor* t = find(name, 1)) {
      EMBER_CHECK_VALUE(t->dtype() == kByte, "'", name,
                        "' in a scheduler state dict must be a uint8 string");
      const char* begin = reinterpret_cast<const char*>(t->data_ptr<uint8_t>());
      v.assign(begin, begin + t->numel());
    }
  }

 private:
  const Tensor* find(const char* name, int64_t dim) {
    auto it = in_.find(name);
    if (it == in_.end()) return nullptr;
    EMBER_CHECK_VALUE(it->second.dim() == dim && (dim == 1 || it->second.numel() == 1), "'", name,
                      "' in a scheduler state dict must have ", dim, " dimension(s)");
    return &it->second;
  }
  std::unordered_map<std::string, Tensor> in_;
};

}  // namespace

namespace detail {

NamedTensors save_fields(const std::function<void(SchedulerVisitor&)>& visit) {
  NamedTensors out;
  Saver saver(&out);
  visit(saver);
  return out;
}

void load_fields(const NamedTensors& state_dict,
                 const std::function<void(SchedulerVisitor&)>& visit) {
  // Unknown keys are refused before anything changes.
  std::unordered_map<std::string, bool> known;
  for (const auto& kv : save_fields(visit)) known[kv.first] = true;
  for (const auto& kv : state_dict) {
    EMBER_CHECK_VALUE(known.count(kv.first), "unexpected key '", kv.first,
                      "' in a scheduler state dict");
  }
  Loader loader(state_dict);
  visit(loader);
}

std::vector<double> per_group(const PerGroup& value, const char* name, size_t groups) {
  EMBER_CHECK_VALUE(!value.is_list() || value.size() == groups, "expected ", groups,
                    " values for ", name, ", got ", value.size());
  return value.values(groups);
}

}  // namespace detail

// --- LRScheduler -------------------------------------------------------------

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch)
    : optimizer_(optimizer), last_epoch_(last_epoch) {
  auto& groups = optimizer.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    if (last_epoch == -1) {
      if (!groups[i].initial_lr) groups[i].initial_lr = groups[i].options().get_lr();
    } else {
      EMBER_CHECK(groups[i].initial_lr.has_value(), "param 'initial_lr' is not specified in "
                  "param_groups[", i, "] when resuming an optimizer");
    }
    base_lrs_.push_back(*groups[i].initial_lr);
  }
}

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch, Composite)
    : optimizer_(optimizer), last_epoch_(last_epoch) {}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step_impl(std::nullopt);
}

void LRScheduler::step() { step_impl(std::nullopt); }

void LRScheduler::step(double epoch) { step_impl(epoch); }

void LRScheduler::step_impl(const std::optional<double>& epoch) {
  ++step_count_;
  std::vector<double> lrs;
  if (!epoch) {
    ++last_epoch_;
    lrs = get_lr();
  } else {
    EMBER_CHECK_VALUE(*epoch == std::floor(*epoch), "step(epoch) of this scheduler takes an "
                      "integer epoch, but got ", *epoch);
    last_epoch_ = static_cast<int64_t>(*epoch);
    auto closed = closed_form_lr();
    lrs = closed ? std::move(*closed) : get_lr();
  }
  set_lrs(lrs);
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = current_lrs();
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

std::vector<double> LRScheduler::current_lrs_times(double factor) const {
  std::vector<double> lrs = current_lrs();
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

std::vector<double> LRScheduler::base_lrs_times(double factor) const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

void LRScheduler::visit(SchedulerVisitor& v) {
  v.field("base_lrs", base_lrs_);
  v.field("last_epoch", last_epoch_);
  v.field("_step_count", step_count_);
  v.field("_last_lr", last_lr_);
}

NamedTensors LRScheduler::state_dict() {
  return detail::save_fields([this](SchedulerVisitor& v) { visit(v); });
}

void LRScheduler::load_state_dict(const NamedTensors& state_dict) {
  detail::load_fields(state_dict, [this](SchedulerVisitor& v) { visit(v); });
}

// --- the schedules -------------------------------------------------------------

namespace {
// LambdaLR's and MultiplicativeLR's check of a list of lambdas, made before
// the base class touches the optimizer, as in PyTorch.
Optimizer& check_lambdas(Optimizer& optimizer, size_t lambdas) {
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK_VALUE(lambdas == groups, "Expected ", groups, " lr_lambdas, but got ", lambdas);
  return optimizer;
}

// One lambda for every group.
std::vector<LambdaLR::LrLambda> for_each_group(const Optimizer& optimizer,
                                               LambdaLR::LrLambda lr_lambda) {
  return std::vector<LambdaLR::LrLambda>(optimizer.param_groups().size(), std::move(lr_lambda));
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, for_each_group(optimizer, std::move(lr_lambda)), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(check_lambdas(optimizer, lr_lambdas.size()), last_epoch),
      lr_lambdas_(std::move(lr_lambdas)) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) {
    lrs.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  }
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch)
    : MultiplicativeLR(optimizer, for_each_group(optimizer, std::move(lr_lambda)), last_epoch) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas,
                                   int64_t last_epoch)
    : LRScheduler(check_lambdas(optimizer, lr_lambdas.size()), last_epoch),
      lr_lambdas_(std::move(lr_lambdas)) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ <= 0) return lrs;
  // PyTorch zips the lambdas with the groups.
  lrs.resize(std::min(lrs.size(), lr_lambdas_.size()));
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  return lrs;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  if (last_epoch_ == 0 || py_mod(last_epoch_, step_size_) != 0) return current_lrs();
  return current_lrs_times(gamma_);
}

std::optional<std::vector<double>> StepLR::closed_form_lr() {
  // Python's floor division.
  const int64_t k = (last_epoch_ - py_mod(last_epoch_, step_size_)) / step_size_;
  return base_lrs_times(std::pow(gamma_, static_cast<double>(k)));
}

void StepLR::visit(SchedulerVisitor& v) {
  v.field("step_size", step_size_);
  v.field("gamma", gamma_);
  LRScheduler::visit(v);
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma,
                         int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  const auto n = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (n == 0) return current_lrs();
  return current_lrs_times(std::pow(gamma_, static_cast<double>(n)));
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() {
  const auto k = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                 milestones_.begin();
  return base_lrs_times(std::pow(gamma_, static_cast<double>(k)));
}

void MultiStepLR::visit(SchedulerVisitor& v) {
  v.field("milestones", milestones_);
  v.field("gamma", gamma_);
  LRScheduler::visit(v);
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  if (last_epoch_ == 0) return current_lrs();
  return current_lrs_times(gamma_);
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() {
  return base_lrs_times(std::pow(gamma_, static_cast<double>(last_epoch_)));
}

void ExponentialLR::visit(SchedulerVisitor& v) {
  v.field("gamma", gamma_);
  LRScheduler::visit(v);
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min,
                                     int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), T_max_(T_max), eta_min_(eta_min) {
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  // A group added after the scheduler has no base lr: PyTorch's zip leaves
  // it alone.
  lrs.resize(std::min(lrs.size(), base_lrs_.size()));
  const double pi = M_PI, e = static_cast<double>(last_epoch_), t = static_cast<double>(T_max_);
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double base = base_lrs_[i];
    if (step_count_ == 1 && last_epoch_ > 0) {
      lrs[i] = eta_min_ + (base - eta_min_) * (1 + std::cos(e * pi / t)) / 2;
    } else if (py_mod(last_epoch_ - 1 - T_max_, 2 * T_max_) == 0) {
      lrs[i] = lrs[i] + (base - eta_min_) * (1 - std::cos(pi / t)) / 2;
    } else {
      lrs[i] = (1 + std::cos(pi * e / t)) / (1 + std::cos(pi * (e - 1) / t)) *
                   (lrs[i] - eta_min_) +
               eta_min_;
    }
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(eta_min_ + (base - eta_min_) *
                                 (1 + std::cos(M_PI * static_cast<double>(last_epoch_) /
                                               static_cast<double>(T_max_))) /
                                 2);
  }
  return lrs;
}

void CosineAnnealingLR::visit(SchedulerVisitor& v) {
  v.field("T_max", T_max_);
  v.field("eta_min", eta_min_);
  LRScheduler::visit(v);
}

}  // namespace optim
}  // namespace ember
