#include "nn/data_parallel.h"

#include <exception>
#include <thread>

#include "autograd/grad_mode.h"
#include "tensor/cuda/cuda.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace parallel {

std::vector<std::shared_ptr<Module>> replicate_modules(const Module& module,
                                                       const std::vector<Device>& devices) {
  std::vector<std::shared_ptr<Module>> replicas;
  replicas.reserve(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    std::shared_ptr<Module> r = module.clone(devices[i]);
    detail::link_replica(*r, module, devices[i], /*share_buffers=*/i == 0);
    replicas.push_back(std::move(r));
  }
  return replicas;
}

std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices, int64_t dim) {
  EMBER_CHECK(!devices.empty(), "scatter: no devices");
  std::vector<Tensor> chunks = input.chunk(static_cast<int64_t>(devices.size()), dim);
  for (size_t i = 0; i < chunks.size(); ++i) chunks[i] = chunks[i].to(devices[i]);
  return chunks;
}

Tensor gather(const std::vector<Tensor>& outputs, const Device& device, int64_t dim) {
  std::vector<Tensor> moved;
  moved.reserve(outputs.size());
  for (const Tensor& t : outputs) moved.push_back(t.to(device));
  return cat(moved, dim);
}

void parallel_apply(size_t n, const std::function<Tensor(size_t)>& fn, std::vector<Tensor>* out) {
  out->assign(n, Tensor());
  std::vector<std::exception_ptr> errors(n);
  const bool grad = GradMode::is_enabled();
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      AutoGradMode mode(grad);
      try {
        (*out)[i] = fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<Device> default_devices() {
  std::vector<Device> out;
  if (!cuda::is_available()) return out;
  for (size_t i = 0; i < cuda::device_count(); ++i) out.emplace_back(kCUDA, static_cast<int>(i));
  return out;
}

}  // namespace parallel
}  // namespace nn
}  // namespace ember
