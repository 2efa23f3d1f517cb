// The CUDA entries of the multi-tensor optimizer tables (Note
// [Multi-tensor updates] in tensor/multi_tensor.h): Tensors to the
// launchers' pointer lists.

#include <vector>

#include "tensor/cuda/context.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/multi_tensor_kernels.h"
#include "tensor/error.h"
#include "tensor/multi_tensor.h"

namespace ember {
namespace cuda {
namespace {

// The lists as the launchers take them; checks what the kernels assume.
struct Lists {
  std::vector<void*> ptrs;
  std::vector<int64_t> numel;
  kernels::TensorLists view;

  Lists(std::initializer_list<TensorList> lists, const std::vector<double>* a,
        const std::vector<double>* b) {
    const TensorList& params = *lists.begin();
    const int n = static_cast<int>(params.size());
    for (const Tensor& p : params) numel.push_back(p.numel());
    for (const TensorList& list : lists) {
      EMBER_CHECK(static_cast<int>(list.size()) == n, "multi-tensor update: lists of ", n,
                  " and ", list.size(), " tensors");
      for (int t = 0; t < n; ++t) {
        const Tensor& x = list[t];
        EMBER_CHECK(x.is_cuda() && x.device() == params[0].device() &&
                        x.dtype() == params[0].dtype() && x.is_contiguous() &&
                        x.numel() == numel[t],
                    "multi-tensor update: every tensor must be contiguous, of one dtype, on "
                    "one CUDA device, and as large as its parameter");
        ptrs.push_back(const_cast<void*>(x.data_ptr()));
      }
    }
    EMBER_CHECK(a == nullptr || static_cast<int>(a->size()) == n,
                "multi-tensor update: per-tensor scalars");
    view.depth = static_cast<int>(lists.size());
    view.n = n;
    view.ptrs = ptrs.data();
    view.numel = numel.data();
    view.a = a != nullptr ? a->data() : nullptr;
    view.b = b != nullptr ? b->data() : nullptr;
  }
};

void multi_adam_cuda(const ember::detail::MultiAdamArgs& args, TensorList params,
                     TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                     TensorList max_exp_avg_sqs) {
  if (params.empty()) return;
  detail::DeviceGuard guard(params[0].device().index());
  const kernels::AdamConsts k{args.beta1,
                              args.beta2,
                              args.eps,
                              args.weight_decay,
                              1 - args.lr * args.weight_decay,
                              args.decoupled,
                              args.maximize,
                              args.amsgrad,
                              args.lr};
  // capturable: the steps on the device, no host scalars.
  const bool capturable = !args.state_steps.empty();
  std::vector<float*> steps;
  for (const Tensor& s : args.state_steps) {
    EMBER_CHECK(
        s.is_cuda() && s.device() == params[0].device() && s.dtype() == kFloat && s.numel() == 1,
        "multi-tensor update: every state step must be a float32 tensor of one element "
        "on the parameters' device");
    steps.push_back(static_cast<float*>(const_cast<void*>(s.data_ptr())));
  }
  EMBER_CHECK(!capturable || steps.size() == params.size(),
              "multi-tensor update: one state step per parameter");
  const std::vector<double>* a = capturable ? nullptr : &args.step_size;
  const std::vector<double>* b = capturable ? nullptr : &args.bias_correction2_sqrt;
  Lists l = args.amsgrad ? Lists({params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs}, a, b)
                         : Lists({params, grads, exp_avgs, exp_avg_sqs}, a, b);
  if (capturable) l.view.steps = steps.data();
  detail::check_launch(kernels::launch_multi_adam(detail::kernel_dtype(params[0].dtype()), l.view, k),
                       args.decoupled ? "_fused_adamw_" : "_fused_adam_", params[0].dtype());
}

void multi_sgd_cuda(const ember::detail::MultiSgdArgs& args, TensorList params, TensorList grads,
                    TensorList bufs) {
  if (params.empty()) return;
  detail::DeviceGuard guard(params[0].device().index());
  const bool momentum = !bufs.empty();
  std::vector<double> fresh(params.size(), 0.0);
  for (size_t t = 0; t < args.fresh.size() && t < fresh.size(); ++t) fresh[t] = args.fresh[t];
  const kernels::SgdConsts k{args.lr,       args.weight_decay, args.momentum, args.dampening,
                             args.nesterov, args.maximize,     momentum};
  const Lists l = momentum ? Lists({params, grads, bufs}, &fresh, nullptr)
                           : Lists({params, grads}, &fresh, nullptr);
  detail::check_launch(kernels::launch_multi_sgd(detail::kernel_dtype(params[0].dtype()), l.view, k),
                       "_foreach_sgd", params[0].dtype());
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(multi_tensor_adam_kernel, kCUDA, &cuda::multi_adam_cuda);
EMBER_REGISTER_KERNEL(multi_tensor_sgd_kernel, kCUDA, &cuda::multi_sgd_cuda);
}  // namespace detail

}  // namespace ember
