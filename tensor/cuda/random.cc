// The CUDA random fills (random.cu) behind random_fill_kernel and
// randperm_kernel (tensor/random_kernel.h), and the CUDA generator API of
// cuda.h: Note [Device random numbers] in tensor/random.cc.

#include <cstdint>
#include <initializer_list>

#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/launch.h"
#include "tensor/cuda/random_kernels.h"
#include "tensor/cuda/random_launch.h"
#include "tensor/empty.h"
#include "tensor/random_kernel.h"
#include "tensor/selection.h"

namespace ember {
namespace cuda {

namespace detail {

void set_philox(kernels::RandomArgs& a, const ember::detail::RandomFill& f, int device) {
  a.seed = f.seed;
  a.offset = f.offset;
  uint64_t base = 0;
  if (const uint64_t* state =
          captured_rng_state(current_stream_handle(device), f.generator, &base)) {
    a.graph_state = state;
    a.offset = f.offset - base;
  }
}

}  // namespace detail

namespace {

using ember::detail::RandomFill;
using ember::detail::RandomKind;

// The elements of ops[0] (and of the other operands, the same sizes) in
// row-major order, as the kernels' loop takes them: dims innermost first, size-1 dims dropped, and
// neighbours merged where both operands step through them as one. The
// loop's linear index is then the element's row-major position.
kernels::Elementwise random_geometry(std::initializer_list<const Tensor*> operands) {
  kernels::Elementwise e;
  const Tensor* const* ops = operands.begin();
  const Tensor& self = *ops[0];
  e.ntensors = static_cast<int>(operands.size());
  e.numel = self.numel();
  int nd = 0;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    const int64_t size = self.size(d);
    if (size == 1) continue;
    if (nd > 0) {
      bool merge = true;
      for (int t = 0; t < e.ntensors; ++t) {
        merge = merge && ops[t]->stride(d) == e.strides[t][nd - 1] * e.sizes[nd - 1];
      }
      if (merge) {
        e.sizes[nd - 1] *= size;
        continue;
      }
    }
    EMBER_CHECK(nd < kernels::kMaxLoopDims, "CUDA random fills support at most ",
                kernels::kMaxLoopDims, " non-collapsible dims");
    e.sizes[nd] = size;
    for (int t = 0; t < e.ntensors; ++t) e.strides[t][nd] = ops[t]->stride(d);
    ++nd;
  }
  e.contiguous = true;
  for (int t = 0; t < e.ntensors; ++t) {
    for (int d = 0; d < nd; ++d) {
      if (d > 0 || e.strides[t][d] != 1) e.contiguous = false;
      e.strides[t][d] *= static_cast<int64_t>(element_size(ops[t]->dtype()));
    }
    e.data[t] = static_cast<char*>(ops[t]->data_ptr());
  }
  if (nd == 0) {  // one element
    nd = 1;
    e.sizes[0] = 1;
    for (int t = 0; t < e.ntensors; ++t) e.strides[t][0] = 0;
  }
  e.ndim = nd;
  return e;
}

void random_fill_cuda(Tensor& self, const RandomFill& f) {
  detail::DeviceGuard guard(self.device().index());
  kernels::RandomArgs a;
  const char* name = "random_cuda";
  switch (f.kind) {
    case RandomKind::kUniform: a.op = kernels::RandomOp::kUniform; name = "uniform_kernel_cuda"; break;
    case RandomKind::kNormal: a.op = kernels::RandomOp::kNormal; name = "normal_kernel_cuda"; break;
    case RandomKind::kBernoulli: a.op = kernels::RandomOp::kBernoulli; name = "bernoulli_scalar_cuda_"; break;
    case RandomKind::kBernoulliTensor: a.op = kernels::RandomOp::kBernoulliTensor; name = "bernoulli_tensor_cuda_self_"; break;
    case RandomKind::kRandom: a.op = kernels::RandomOp::kRandom; name = "random_from_to_kernel_cuda"; break;
    case RandomKind::kExponential: a.op = kernels::RandomOp::kExponential; name = "exponential_cuda"; break;
  }
  a.a = f.a;
  a.b = f.b;
  a.from = f.from;
  a.range = f.range;
  detail::set_philox(a, f, self.device().index());
  const Tensor* p = nullptr;
  if (f.kind == RandomKind::kBernoulliTensor) {
    EMBER_CHECK(f.p.device() == self.device() && f.p.sizes() == self.sizes() &&
                    (f.p.dtype() == kFloat || f.p.dtype() == kDouble),
                "bernoulli_: probabilities must be float or double, of self's sizes and device");
    p = &f.p;
    a.p_double = f.p.dtype() == kDouble;
  }
  detail::check_launch(
      kernels::launch_random(detail::kernel_dtype(self.dtype()),
                             p != nullptr ? random_geometry({&self, p}) : random_geometry({&self}),
                             a),
      name, self.dtype());
}

// native_dropout's fused pass (Note [Fused dropout] in
// tensor/native_dropout.cc); floating dtypes only (the caller checks).
void dropout_cuda(const Tensor& input, Tensor& mask, Tensor& out, double scale,
                  const RandomFill* draw) {
  detail::DeviceGuard guard(input.device().index());
  EMBER_CHECK(mask.dtype() == kBool, "Mask should be Bool Scalar Type",
              scalar_type_name(mask.dtype()));
  kernels::RandomArgs a;
  if (draw != nullptr) detail::set_philox(a, *draw, input.device().index());
  detail::check_launch(
      kernels::launch_dropout(detail::kernel_dtype(input.dtype()),
                              random_geometry({&out, &input, &mask}), a,
                              draw != nullptr ? draw->a : 0, scale, draw != nullptr),
      "fused_dropout", input.dtype());
}

// PyTorch's CUDA randperm sorts random keys too. 62-bit keys tie with
// probability about n^2 / 2^63, and argsort gives a permutation even then.
// argsort runs wherever sort runs (Note [CPU fallback] while sort has no
// CUDA kernel); the keys are drawn on the device.
void randperm_cuda(Tensor& out, const Generator& gen) {
  Tensor keys = empty({out.numel()}, TensorOptions(kLong).device(out.device()));
  random_(keys, 0, int64_t{1} << 62, gen);
  out.copy_(argsort(keys));
}

}  // namespace

void manual_seed(uint64_t seed) {
  // Without a device there is nothing to seed (PyTorch queues the call
  // until CUDA starts, which then never happens).
  if (!is_available()) return;
  ember::detail::default_generator_for(Device(kCUDA, static_cast<int8_t>(current_device())))
      .manual_seed(seed);
}

void manual_seed_all(uint64_t seed) { ember::detail::manual_seed_devices(kCUDA, seed); }

Generator default_generator(int64_t device) {
  if (device < 0) device = current_device();
  EMBER_CHECK(device < static_cast<int64_t>(device_count()), "Invalid device id ", device);
  return ember::detail::default_generator_for(Device(kCUDA, static_cast<int8_t>(device)));
}

Tensor get_rng_state(int64_t device) { return default_generator(device).get_state(); }

void set_rng_state(const Tensor& state, int64_t device) {
  default_generator(device).set_state(state);
}

}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(random_fill_kernel, kCUDA, &cuda::random_fill_cuda);
EMBER_REGISTER_KERNEL(randperm_kernel, kCUDA, &cuda::randperm_cuda);
EMBER_REGISTER_KERNEL(dropout_kernel, kCUDA, &cuda::dropout_cuda);
}  // namespace detail

}  // namespace ember
