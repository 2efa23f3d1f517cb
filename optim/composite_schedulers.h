#ifndef EMBER_OPTIM_COMPOSITE_SCHEDULERS_H_
#define EMBER_OPTIM_COMPOSITE_SCHEDULERS_H_
// Schedulers made of schedulers (PyTorch 1.13):
//   SequentialLR      one scheduler after another, switching at milestones
//                     (the next one starts from its closed form at epoch 0)
//   ChainedScheduler  every scheduler steps, each on the lr the previous set
//
//   auto warmup = std::make_shared<optim::LinearLR>(opt, 0.1, 1.0, 5);
//   auto decay = std::make_shared<optim::CosineAnnealingLR>(opt, 95);
//   optim::SequentialLR sched(opt, {warmup, decay}, /*milestones=*/{5});
//
// The children are shared: the composite steps them and saves their state
// under "_schedulers.<i>." in its own state dict.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "optim/lr_scheduler.h"

namespace ember {
namespace optim {

class SequentialLR : public LRScheduler {
 public:
  // Throws PyTorch's ValueErrors when a scheduler belongs to another
  // optimizer or milestones.size() != schedulers.size() - 1.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);

  NamedTensors state_dict() override;
  void load_state_dict(const NamedTensors& state_dict) override;

 protected:
  // step() only: PyTorch's SequentialLR.step takes no epoch.
  void step_impl(const std::optional<double>& epoch) override;
  std::vector<double> get_lr() override { return current_lrs(); }
  void visit(SchedulerVisitor& v) override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

class ChainedScheduler : public LRScheduler {
 public:
  // Throws PyTorch's ValueError when the schedulers' optimizers differ.
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);

  NamedTensors state_dict() override;
  void load_state_dict(const NamedTensors& state_dict) override;

 protected:
  void step_impl(const std::optional<double>& epoch) override;
  std::vector<double> get_lr() override { return current_lrs(); }
  void visit(SchedulerVisitor& v) override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

}  // namespace optim
}  // namespace ember

#endif  // EMBER_OPTIM_COMPOSITE_SCHEDULERS_H_
