#include "tensor/fallback.h"

#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember {
namespace detail {

namespace {
template <typename List>
Device common_device_of(const List& tensors) {
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (first == nullptr) {
      first = &t;
    } else if (t.device() != first->device()) {
      throw Error(absl::StrCat(
          "Expected all tensors to be on the same device, but found at least two devices, ",
          first->device().str(), " and ", t.device().str(), "!"));
    }
  }
  return first == nullptr ? Device(kCPU) : first->device();
}

std::mutex& warned_mu() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
std::set<std::string>& warned() {
  static std::set<std::string>* ops = new std::set<std::string>();
  return *ops;
}

bool fallback_for(const char* op, Device device) {
  if (device.is_cpu()) return false;
  std::lock_guard<std::mutex> lock(warned_mu());
  if (warned().insert(op).second) {
    std::cerr << "UserWarning: The operator '" << op
              << "' is not currently implemented for the "
              << (device.is_cuda() ? "CUDA" : device.str())
              << " backend; it falls back to run on the CPU, copying its inputs there and its "
                 "results back. This may have performance implications.\n";
  }
  return true;
}
}  // namespace

std::vector<std::string> fallen_back_ops() {
  std::lock_guard<std::mutex> lock(warned_mu());
  return {warned().begin(), warned().end()};
}

Device common_device(std::initializer_list<Tensor> tensors) { return common_device_of(tensors); }
Device common_device(TensorList tensors) { return common_device_of(tensors); }

bool cpu_fallback(const char* op, std::initializer_list<Tensor> tensors) {
  return fallback_for(op, common_device_of(tensors));
}
bool cpu_fallback(const char* op, TensorList tensors) {
  return fallback_for(op, common_device_of(tensors));
}

Tensor cpu(const Tensor& t) {
  if (!t.defined() || t.is_cpu()) return t;
  return t.to(Device(kCPU));
}

Tensor to_device(const Tensor& t, const Tensor& like) {
  if (!t.defined() || t.device() == like.device()) return t;
  return t.to(like.device());
}

}  // namespace detail
}  // namespace ember
