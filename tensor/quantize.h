#ifndef EMBER_TENSOR_QUANTIZE_H_
#define EMBER_TENSOR_QUANTIZE_H_

// Per-tensor affine quantization (qint8, quint8):
//   q = clamp(zero_point + nearbyint(x * (1 / scale)), qmin, qmax)
//   x' = (q - zero_point) * scale
// The quantized tensor stores q (int8 / uint8) and carries scale and
// zero_point in its TensorImpl. Tensor::dequantize, int_repr, q_scale and
// q_zero_point are defined in quantize.cc.

#include <cstdint>

#include "tensor/tensor.h"

namespace ember {

// `t` must be float32; dtype is kQInt8 or kQUInt8.
Tensor quantize_per_tensor(const Tensor& t, double scale, int64_t zero_point, ScalarType dtype);

// Free-function spellings of the Tensor methods.
inline Tensor dequantize(const Tensor& t) { return t.dequantize(); }
inline Tensor int_repr(const Tensor& t) { return t.int_repr(); }

}  // namespace ember

#endif  // EMBER_TENSOR_QUANTIZE_H_
