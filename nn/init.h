#ifndef EMBER_NN_INIT_H_
#define EMBER_NN_INIT_H_

// nn::init: torch.nn.init's fills, in place, without autograd recording.
// After ember::manual_seed(s) they draw exactly the values PyTorch draws
// (tensor/random.h's Note [PyTorch-identical random streams]), because the
// bounds are computed in double with Python's formulas, in Python's order.
//
// libtorch spells the nonlinearity and fan mode as torch::kReLU,
// torch::kFanIn...; here they are the enums below, with the same names in
// ember::nn::init (kReLU, kFanIn, ...).

#include <cstdint>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace init {

enum class Nonlinearity {
  kLinear,
  kConv1D,
  kConv2D,
  kConv3D,
  kConvTranspose1D,
  kConvTranspose2D,
  kConvTranspose3D,
  kSigmoid,
  kTanh,
  kReLU,
  kLeakyReLU,
  kSELU,
};
enum class FanMode { kFanIn, kFanOut };

inline constexpr Nonlinearity kLinear = Nonlinearity::kLinear;
inline constexpr Nonlinearity kConv1D = Nonlinearity::kConv1D;
inline constexpr Nonlinearity kConv2D = Nonlinearity::kConv2D;
inline constexpr Nonlinearity kConv3D = Nonlinearity::kConv3D;
inline constexpr Nonlinearity kConvTranspose1D = Nonlinearity::kConvTranspose1D;
inline constexpr Nonlinearity kConvTranspose2D = Nonlinearity::kConvTranspose2D;
inline constexpr Nonlinearity kConvTranspose3D = Nonlinearity::kConvTranspose3D;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::kSigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::kTanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::kReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::kLeakyReLU;
inline constexpr Nonlinearity kSELU = Nonlinearity::kSELU;
inline constexpr FanMode kFanIn = FanMode::kFanIn;
inline constexpr FanMode kFanOut = FanMode::kFanOut;

// The recommended gain for a nonlinearity; param is leaky_relu's
// negative_slope (ignored by the others).
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

// (fan_in, fan_out): size(1) and size(0) times the receptive field (the
// product of the remaining dims). ValueError below 2 dims.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

// While one is alive on this thread, the random fills below (and so every
// module's reset_parameters) leave their tensor as it is and draw nothing.
// Deep copies of modules build under it and then copy the original's
// values, so that copying consumes no random numbers, as Python's
// copy.deepcopy (nn::TransformerEncoder's clones of its layer).
class NoInitGuard {
 public:
  NoInitGuard();
  ~NoInitGuard();
  NoInitGuard(const NoInitGuard&) = delete;
  NoInitGuard& operator=(const NoInitGuard&) = delete;
  static bool active();

 private:
  bool previous_;
};

// Each returns its argument (a handle to the same tensor).
Tensor uniform_(Tensor tensor, double a = 0, double b = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, const Scalar& value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
// The identity matrix; ValueError unless 2-D.
Tensor eye_(Tensor tensor);
// The Dirac delta for convolution weights [out, in, *k] (3-D to 5-D): each
// output channel of a group passes its input channel's center tap (groups
// split the output channels). ValueError for other dims, or out channels
// not divisible by groups.
Tensor dirac_(Tensor tensor, int64_t groups = 1);
// normal_(0, std), then in each column ceil(sparsity * rows) entries,
// chosen by randperm, set to 0 (2-D only), drawing as PyTorch's.
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);
// A (semi-)orthogonal matrix: the Q of a QR of a normal_(0, 1) draw of
// [rows, numel / rows] (transposed when wider than tall), its columns'
// signs those that make R's diagonal positive (so Q is unique and equals
// PyTorch's within rounding), times gain. ValueError under 2 dims.
Tensor orthogonal_(Tensor tensor, double gain = 1);
// A normal(mean, std) truncated to [a, b], drawn as PyTorch's: uniform_ over
// the CDF's image of [a, b], then the inverse CDF (erfinv in the tensor's
// dtype, PyTorch's rational approximation and two Newton steps), clamped.
// Float and double tensors; a CUDA tensor is filled on the CPU and copied.
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2,
                     double b = 2);
Tensor xavier_uniform_(Tensor tensor, double gain = 1);
Tensor xavier_normal_(Tensor tensor, double gain = 1);
// a: the negative slope after this layer (leaky_relu only). A tensor with
// no elements is left as it is (PyTorch warns and returns).
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                        Nonlinearity nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                       Nonlinearity nonlinearity = kLeakyReLU);

}  // namespace init
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_INIT_H_
