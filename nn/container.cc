#include "nn/container.h"

namespace ember {
namespace nn {
namespace {

const std::shared_ptr<Module>& at_index(const std::vector<std::shared_ptr<Module>>& modules,
                                        int64_t index) {
  const int64_t n = static_cast<int64_t>(modules.size());
  EMBER_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range");
  return modules[index < 0 ? index + n : index];
}

}  // namespace

const std::shared_ptr<Module>& ModuleListImpl::ptr(int64_t index) const {
  return at_index(modules_, index);
}

void ModuleListImpl::append(std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleList: cannot add an empty module");
  add_child(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

const std::shared_ptr<Module>& SequentialImpl::ptr(int64_t index) const {
  return at_index(modules_, index);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& f : forwards_) x = f(x);
  return x;
}

}  // namespace nn
}  // namespace ember
