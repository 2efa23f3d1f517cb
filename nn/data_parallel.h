#ifndef EMBER_NN_DATA_PARALLEL_H_
#define EMBER_NN_DATA_PARALLEL_H_

// One process driving several devices: PyTorch's nn.DataParallel and
// libtorch's nn::parallel::data_parallel.
//
//   Net net;
//   nn::DataParallel<NetImpl> dp(net.ptr(), {Device(kCUDA, 0), Device(kCUDA, 1)});
//   Tensor out = dp(batch);          // the batch split across the devices
//   loss(out).backward();            // gradients summed into net's
//
// Each forward replicates the module on every device (replicas made by
// Module::clone and linked by detail::link_replica: their parameters are
// differentiable copies of the module's, PyTorch's Broadcast; DataParallel
// keeps its replicas between forwards, Note [DataParallel keeps its
// replicas]), scatters the input along `dim`
// into chunks as Tensor::chunk makes them (a batch of fewer rows than
// devices uses fewer replicas), runs each replica on its chunk in its own
// thread (grad mode as the caller's), and gathers the outputs on
// `output_device` (device_ids[0] by default). Backward sums the replicas'
// gradients into the module's parameters. Buffers as PyTorch's: the
// replica on device_ids[0] shares the module's buffers when they live
// there, so BatchNorm's running statistics follow that replica's chunk;
// the other replicas' updates are lost. Replicating leaves the default
// generator as it was. `device_ids` may repeat a device: {kCPU, kCPU} runs
// two replicas on CPU threads (how the tests check it here). With no
// device_ids, every CUDA device is used, and without one the module is
// called as it is.
//
// Note [DataParallel keeps its replicas]: cloning constructs each module
// again (its initial values drawn, then overwritten) and copies every
// parameter, which link_replica then copies once more; PyTorch's replicate
// does neither. So DataParallel (the module) clones its replicas once and
// on later forwards only links them again: each replica's parameters
// become fresh differentiable copies of the module's current ones (values
// after optimizer steps or load_state_dict, a tensor registered in place
// of one, requires_grad, the device and dtype after to()), its buffers
// copies of the module's (or shared, as above), and each of its modules
// takes its original's train/eval mode. The replicas are cloned again
// when they no longer fit or are still in use:
//   - link_replica finds the module's structure changed: a module's type,
//     the names, presence or shapes of its parameters and buffers, a
//     submodule added or removed;
//   - the devices differ (device_ids changed, or more chunks than before);
//   - a graph recorded by an earlier forward still holds one of their
//     tensors (two forwards before one backward, retain_graph): linking
//     would change the values it saved, so that graph keeps its replicas.
// Non-tensor state a module changes after it was constructed (an option
// assigned, a submodule replaced by one of the same type but other
// options) reaches neither cloned nor kept replicas (Note [Cloning
// modules]). Between forwards the kept replicas hold the last step's copies
// of the parameters: one copy per device beyond the module's own, which
// PyTorch frees after backward. parallel::data_parallel, the function,
// clones afresh on every call, as libtorch's does.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace parallel {

// `module`'s clones on `devices`, linked for DataParallel (see above).
std::vector<std::shared_ptr<Module>> replicate_modules(const Module& module,
                                                       const std::vector<Device>& devices);
template <typename ModuleType>
std::vector<std::shared_ptr<ModuleType>> replicate(const std::shared_ptr<ModuleType>& module,
                                                   const std::vector<Device>& devices) {
  std::vector<std::shared_ptr<ModuleType>> out;
  for (auto& m : replicate_modules(*module, devices)) {
    out.push_back(std::dynamic_pointer_cast<ModuleType>(m));
  }
  return out;
}

// `input` split along `dim` in Tensor::chunk's sizes, chunk i on devices[i]
// (differentiably); fewer chunks than devices when dim is shorter.
std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices, int64_t dim);
// The outputs moved to `device` and concatenated along `dim`.
Tensor gather(const std::vector<Tensor>& outputs, const Device& device, int64_t dim);
// fn(i) for each i in [0, n), each on its own thread with the caller's grad
// mode; the first exception is rethrown.
void parallel_apply(size_t n, const std::function<Tensor(size_t)>& fn, std::vector<Tensor>* out);
// The devices DataParallel uses when given none: every CUDA device.
std::vector<Device> default_devices();

namespace detail {
// DataParallel's replicas kept between forwards (Note [DataParallel keeps
// its replicas]). Thread-safe: a forward takes them out and puts them back,
// and a forward that finds them taken clones its own.
class ReplicaCache {
 public:
  struct Entry;
  ReplicaCache();
  ~ReplicaCache();
  ReplicaCache(const ReplicaCache&) = delete;
  ReplicaCache& operator=(const ReplicaCache&) = delete;

  // Replicas of `module` on `devices` linked for one forward: the kept
  // ones when they still serve (the first devices.size() of them), else
  // clones. Give them back to put() after the forward.
  std::unique_ptr<Entry> take(const Module& module, const std::vector<Device>& devices);
  void put(std::unique_ptr<Entry> entry);
  // How many times replicas were cloned.
  int64_t builds() const;

 private:
  std::unique_ptr<Entry> build(const Module& module, const std::vector<Device>& devices);

  mutable std::mutex mu_;
  std::unique_ptr<Entry> kept_;
  int64_t builds_ = 0;
};

// data_parallel's steps: scatter `input`, forward(replica i, chunk i) on
// each replica's thread, gather. Replicas come from `cache`, or are cloned
// afresh when it is null.
Tensor run_data_parallel(Module& module, const Tensor& input, const std::vector<Device>& devices,
                         std::optional<Device> output_device, int64_t dim,
                         const std::function<Tensor(Module&, const Tensor&)>& forward,
                         ReplicaCache* cache);

template <typename ModuleType>
Tensor forward_as(Module& m, const Tensor& input) {
  return dynamic_cast<ModuleType&>(m).forward(input);
}
}  // namespace detail

// libtorch's data_parallel: `module` applied to `input` split across
// `devices`, the result on `output_device` (devices[0] by default).
template <typename ModuleType>
Tensor data_parallel(std::shared_ptr<ModuleType> module, const Tensor& input,
                     std::optional<std::vector<Device>> devices = std::nullopt,
                     std::optional<Device> output_device = std::nullopt, int64_t dim = 0) {
  return detail::run_data_parallel(*module, input,
                                   devices.has_value() ? *devices : default_devices(),
                                   output_device, dim, detail::forward_as<ModuleType>, nullptr);
}

}  // namespace parallel

// PyTorch's nn.DataParallel as a module: `module` is its child (state dict
// keys "module.*", as PyTorch's).
template <typename ModuleType>
class DataParallelImpl : public Module {
 public:
  explicit DataParallelImpl(std::shared_ptr<ModuleType> module_,
                            std::vector<Device> device_ids = {},
                            std::optional<Device> output_device = std::nullopt, int64_t dim = 0)
      : module(register_module("module", std::move(module_))),
        device_ids(device_ids.empty() ? parallel::default_devices() : std::move(device_ids)),
        output_device(output_device),
        dim(dim) {}

  Tensor forward(const Tensor& input) {
    return parallel::detail::run_data_parallel(*module, input, device_ids, output_device, dim,
                                               parallel::detail::forward_as<ModuleType>,
                                               &replicas_);
  }

  // How many times the replicas were cloned (Note [DataParallel keeps its
  // replicas]).
  int64_t replicas_built() const { return replicas_.builds(); }

  std::shared_ptr<ModuleType> module;
  std::vector<Device> device_ids;
  std::optional<Device> output_device;
  int64_t dim;

 private:
  parallel::detail::ReplicaCache replicas_;
};

template <typename ModuleType>
class DataParallel : public ModuleHolder<DataParallelImpl<ModuleType>> {
 public:
  using ModuleHolder<DataParallelImpl<ModuleType>>::ModuleHolder;
};

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_DATA_PARALLEL_H_
