#include "nn/data_parallel.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

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
    EMBER_CHECK(nn::detail::link_replica(*r, module, devices[i], /*share_buffers=*/i == 0),
                "DataParallel: a clone of ", module.name(), " differs from it");
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

namespace detail {
namespace {

// The use count of each of the module's tensors (its own handles, its
// layers' members, and the copy parameters() returns): more than when the
// replica was made, and a graph (or someone) still holds them.
std::vector<long> tensor_holds(const Module& m) {
  std::vector<long> out;
  for (const Tensor& t : m.parameters()) out.push_back(t.use_count());
  for (const Tensor& t : m.buffers()) out.push_back(t.use_count());
  return out;
}

}  // namespace

struct ReplicaCache::Entry {
  std::vector<Device> devices;
  std::vector<std::shared_ptr<Module>> replicas;
  std::vector<std::vector<long>> holds;  // tensor_holds of each replica, unused
};

ReplicaCache::ReplicaCache() = default;
ReplicaCache::~ReplicaCache() = default;

int64_t ReplicaCache::builds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return builds_;
}

std::unique_ptr<ReplicaCache::Entry> ReplicaCache::build(const Module& module,
                                                         const std::vector<Device>& devices) {
  auto e = std::make_unique<Entry>();
  e->devices = devices;
  e->replicas = replicate_modules(module, devices);
  for (const auto& r : e->replicas) e->holds.push_back(tensor_holds(*r));
  std::lock_guard<std::mutex> lock(mu_);
  ++builds_;
  return e;
}

std::unique_ptr<ReplicaCache::Entry> ReplicaCache::take(const Module& module,
                                                        const std::vector<Device>& devices) {
  std::unique_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = std::move(kept_);
  }
  // A short last batch uses the first replicas.
  if (e == nullptr || devices.size() > e->devices.size() ||
      !std::equal(devices.begin(), devices.end(), e->devices.begin())) {
    return build(module, devices);
  }
  for (size_t i = 0; i < e->replicas.size(); ++i) {
    if (tensor_holds(*e->replicas[i]) != e->holds[i]) return build(module, devices);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!nn::detail::link_replica(*e->replicas[i], module, devices[i], /*share_buffers=*/i == 0)) {
      return build(module, devices);
    }
  }
  return e;
}

void ReplicaCache::put(std::unique_ptr<Entry> entry) {
  std::lock_guard<std::mutex> lock(mu_);
  kept_ = std::move(entry);
}

Tensor run_data_parallel(Module& module, const Tensor& input, const std::vector<Device>& devices,
                         std::optional<Device> output_device, int64_t dim,
                         const std::function<Tensor(Module&, const Tensor&)>& forward,
                         ReplicaCache* cache) {
  if (devices.empty()) return forward(module, input);
  const Device out_device = output_device.value_or(devices[0]);
  if (devices.size() == 1) return forward(module, input.to(devices[0])).to(out_device);
  const std::vector<Tensor> chunks = scatter(input, devices, dim);
  const std::vector<Device> used(devices.begin(), devices.begin() + chunks.size());
  // The cache's replicas go back to it however the forward ends.
  struct Lease {
    ReplicaCache* cache;
    std::unique_ptr<ReplicaCache::Entry> entry;
    ~Lease() {
      if (cache != nullptr) cache->put(std::move(entry));
    }
  } lease{cache, cache != nullptr ? cache->take(module, used) : nullptr};
  const std::vector<std::shared_ptr<Module>> replicas =
      lease.entry != nullptr ? lease.entry->replicas : replicate_modules(module, used);
  std::vector<Tensor> outputs;
  parallel_apply(
      chunks.size(), [&](size_t i) { return forward(*replicas[i], chunks[i]); }, &outputs);
  return gather(outputs, out_device, dim);
}

}  // namespace detail
}  // namespace parallel
}  // namespace nn
}  // namespace ember
