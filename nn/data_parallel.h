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
// Each forward replicates the module on every device (Module::clone, then
// detail::link_replica: the replicas' parameters are differentiable copies
// of the module's, PyTorch's Broadcast), scatters the input along `dim`
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

#include <cstdint>
#include <memory>
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

// libtorch's data_parallel: `module` applied to `input` split across
// `devices`, the result on `output_device` (devices[0] by default).
template <typename ModuleType>
Tensor data_parallel(std::shared_ptr<ModuleType> module, const Tensor& input,
                     std::optional<std::vector<Device>> devices = std::nullopt,
                     std::optional<Device> output_device = std::nullopt, int64_t dim = 0) {
  const std::vector<Device> ids = devices.has_value() ? *devices : default_devices();
  if (ids.empty()) return module->forward(input);
  const Device out_device = output_device.value_or(ids[0]);
  if (ids.size() == 1) return module->forward(input.to(ids[0])).to(out_device);
  const std::vector<Tensor> chunks = scatter(input, ids, dim);
  const std::vector<Device> used(ids.begin(), ids.begin() + chunks.size());
  const std::vector<std::shared_ptr<ModuleType>> replicas = replicate(module, used);
  std::vector<Tensor> outputs;
  parallel_apply(
      chunks.size(), [&](size_t i) { return replicas[i]->forward(chunks[i]); }, &outputs);
  return gather(outputs, out_device, dim);
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
    return parallel::data_parallel(module, input, device_ids, output_device, dim);
  }

  std::shared_ptr<ModuleType> module;
  std::vector<Device> device_ids;
  std::optional<Device> output_device;
  int64_t dim;
};

template <typename ModuleType>
class DataParallel : public ModuleHolder<DataParallelImpl<ModuleType>> {
 public:
  using ModuleHolder<DataParallelImpl<ModuleType>>::ModuleHolder;
};

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_DATA_PARALLEL_H_
