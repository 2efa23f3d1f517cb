#include "nn/functional/activation.h"

#include <cmath>
#include <mutex>

#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/random.h"
#include "tensor/record_function.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {
namespace nn {
namespace functional {

namespace {

// PyTorch's inplace=True, through copy_ (activation.h). An input that
// requires grad is cloned first: the op's node saves its input, which the
// copy_ would otherwise change under it (PyTorch's in-place kernels save
// their result instead).
template <typename Op>
Tensor apply(const Tensor& input, bool inplace, Op op) {
  if (!inplace) return op(input);
  Tensor result = op(input.requires_grad() ? input.clone() : input);
  Tensor t = input;
  return t.copy_(result);
}

// torch.nn.functional.selu's constants.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

}  // namespace

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  if (options.inplace()) {
    Tensor t = input;
    return t.relu_();
  }
  return ember::relu(input);
}

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  return apply(input, options.inplace(),
               [&](const Tensor& x) { return ember::leaky_relu(x, options.negative_slope()); });
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ember::gelu(input, options.approximate());
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }
Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return softmax(-input, options);
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}


Tensor elu(const Tensor& input, const ELUFuncOptions& options) {
  return apply(input, options.inplace(),
               [&](const Tensor& x) { return ember::elu(x, options.alpha()); });
}
Tensor selu(const Tensor& input, const SELUFuncOptions& options) {
  return apply(input, options.inplace(),
               [](const Tensor& x) { return ember::elu(x, kSeluAlpha, kSeluScale); });
}
Tensor celu(const Tensor& input, const CELUFuncOptions& options) {
  return apply(input, options.inplace(),
               [&](const Tensor& x) { return ember::celu(x, options.alpha()); });
}
Tensor silu(const Tensor& input, bool inplace) {
  return apply(input, inplace, [](const Tensor& x) { return ember::silu(x); });
}
Tensor mish(const Tensor& input, bool inplace) {
  return apply(input, inplace, [](const Tensor& x) { return ember::mish(x); });
}
Tensor hardsigmoid(const Tensor& input, bool inplace) {
  return apply(input, inplace, [](const Tensor& x) { return ember::hardsigmoid(x); });
}
Tensor hardswish(const Tensor& input, bool inplace) {
  return apply(input, inplace, [](const Tensor& x) { return ember::hardswish(x); });
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}
Tensor softsign(const Tensor& input) { return input / (input.abs() + 1); }
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options) {
  return apply(input, options.inplace(), [&](const Tensor& x) {
    return ember::hardtanh(x, options.min_val(), options.max_val());
  });
}
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options) {
  return apply(input, options.inplace(),
               [](const Tensor& x) { return ember::hardtanh(x, 0.0, 6.0); });
}
Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }
Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }
Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ember::softshrink(input, options.lambda());
}
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ember::hardshrink(input, options.lambda());
}
Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options) {
  return apply(input, options.inplace(), [&](const Tensor& x) {
    return ember::threshold(x, options.threshold(), options.value());
  });
}

// 1.13's glu: one GluBackward0 node (autograd/derivatives/nn_more.cc);
// the forward is a * sigmoid(b) of the two halves.
Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t dim = ember::detail::wrap_dim(options.dim(), input.dim());
  const int64_t n = input.size(dim);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", dim, " is size ", n);
  profiler::RecordFunction prof_range("glu", profiler::RangeKind::kOp, input);
  ember::detail::OpScope scope(input);
  Tensor out = input.narrow(dim, 0, n / 2) * ember::sigmoid(input.narrow(dim, n / 2, n / 2));
  if (scope.active()) scope.record("glu", {input}, {out}, {Scalar(dim)});
  return out;
}

namespace {

// u * (upper - lower) + lower rounded twice, as ATen's build computes it
// (no fused multiply-add, which -march=x86-64-v3 would otherwise allow).
__attribute__((optimize("fp-contract=off"))) double scale_uniform(double u, double lower,
                                                                    double upper) {
  const double span = upper - lower;
  return u * span + lower;
}

// ATen's _rrelu_with_noise_train: the slope of each element <= 0 from
// uniform_real_distribution<double>(lower, upper) on the generator's
// random64(), cast to the element type; 1 for the others.
template <typename T>
void rrelu_noise(const Tensor& x, Tensor& noise, double lower_arg, double upper_arg) {
  // ATen converts the bounds to the element type first (0.1 becomes 0.1f).
  const double lower = static_cast<T>(lower_arg);
  const double upper = static_cast<T>(upper_arg);
  const T* in = x.data_ptr<T>();
  T* out = noise.data_ptr<T>();
  GeneratorImpl* gen = default_generator().impl();
  std::lock_guard<std::mutex> lock(gen->mutex());
  constexpr uint64_t kMask = (uint64_t{1} << 53) - 1;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (in[i] <= 0) {
      const double u = static_cast<double>(gen->random64() & kMask) * std::ldexp(1.0, -53);
      out[i] = static_cast<T>(scale_uniform(u, lower, upper));
    } else {
      out[i] = T(1);
    }
  }
}

}  // namespace

// 1.13's rrelu is rrelu_with_noise (RreluWithNoiseBackward0; in place
// RreluWithNoiseBackward1, whose formula reads the result): in training the
// slopes drawn are the noise the node keeps, in eval leaky_relu's forward.
Tensor rrelu(const Tensor& input, const RReLUFuncOptions& o) {
  EMBER_CHECK_VALUE(o.lower() <= o.upper(), "Lower bound should be less than or equal to the "
                                            "upper bound");
  Tensor noise;
  if (o.training()) {
    EMBER_CHECK(input.is_cpu() && (input.dtype() == kFloat || input.dtype() == kDouble),
                "rrelu in training: CPU float or double tensors, got ", dtype_name(input.dtype()),
                " on ", input.device().str());
    const Tensor x = input.detach().contiguous();
    noise = empty_like(x, {}, MemoryFormat::Contiguous);
    if (x.dtype() == kFloat) {
      rrelu_noise<float>(x, noise, o.lower(), o.upper());
    } else {
      rrelu_noise<double>(x, noise, o.lower(), o.upper());
    }
  }
  const auto forward = [&](const Tensor& x) {
    return o.training() ? x * noise : ember::leaky_relu(x, (o.lower() + o.upper()) / 2);
  };
  const OpArgs args{Scalar(o.lower()), Scalar(o.upper()), Scalar(o.training())};
  if (!o.inplace()) {
    profiler::RecordFunction prof_range("rrelu_with_noise", profiler::RangeKind::kOp, input);
    ember::detail::OpScope scope(input);
    // Contiguous whatever the input's layout, as 1.13's (empty_like with
    // LEGACY_CONTIGUOUS_MEMORY_FORMAT).
    Tensor out = forward(input).contiguous();
    if (scope.active()) scope.record("rrelu_with_noise", {input, noise}, {out}, args);
    return out;
  }
  profiler::RecordFunction prof_range("rrelu_with_noise_", profiler::RangeKind::kInplaceOp, input);
  ember::detail::OpScope scope(input);
  Tensor self = input;
  Tensor before;
  if (scope.active()) before = scope.before_inplace("rrelu_with_noise_", self);
  self.copy_(forward(input));  // nothing records inside the scope
  if (scope.active()) {
    scope.record_inplace("rrelu_with_noise_", self, std::move(before), {noise}, args);
  }
  return self;
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
