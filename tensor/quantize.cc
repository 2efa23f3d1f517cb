#include "tensor/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tensor/empty.h"
#include "tensor/parallel.h"

namespace ember {
namespace {

// PyTorch raises its dispatcher's error for quantized-only ops on a plain
// tensor; we keep its first sentence.
void check_quantized(const Tensor& t, const char* op) {
  EMBER_CHECK(t.is_quantized(), "Could not run 'aten::", op, "' with arguments from the '",
              t.is_cuda() ? "CUDA" : "CPU", "' backend.");
}

template <typename Q>
void quantize_kernel(const float* in, Q* out, int64_t n, double scale, int64_t zero_point) {
  constexpr int64_t qmin = std::numeric_limits<Q>::min();
  constexpr int64_t qmax = std::numeric_limits<Q>::max();
  // PyTorch multiplies by the float reciprocal (not x / scale) and rounds
  // half to even with nearbyint; we must do the same to agree on ties.
  const float inv_scale = 1.0f / static_cast<float>(scale);
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t q = zero_point + static_cast<int64_t>(std::nearbyint(in[i] * inv_scale));
      out[i] = static_cast<Q>(std::min(std::max(q, qmin), qmax));
    }
  });
}

template <typename Q>
void dequantize_kernel(const Q* in, float* out, int64_t n, double scale, int64_t zero_point) {
  // PyTorch's dequantize_val: float(scale) * (q - zero_point), in float
  // (checked bit for bit against PyTorch in quantize_test).
  const float fscale = static_cast<float>(scale);
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      out[i] = fscale * static_cast<float>(static_cast<int64_t>(in[i]) - zero_point);
    }
  });
}

}  // namespace

Tensor quantize_per_tensor(const Tensor& t, double scale, int64_t zero_point, ScalarType dtype) {
  EMBER_CHECK(t.dtype() == kFloat, "Quantize only works on Float Tensor, got ",
              scalar_type_name(t.dtype()));
  EMBER_CHECK(dtype == kQInt8 || dtype == kQUInt8, "ScalarType ", scalar_type_name(dtype),
              " is not supported in new_qtensor.");
  const int64_t qmin = dtype == kQInt8 ? -128 : 0;
  const int64_t qmax = dtype == kQInt8 ? 127 : 255;
  EMBER_CHECK(zero_point <= qmax, "quantize_tensor_per_tensor_affine zero_point ", zero_point,
              " is above upper bound.");
  EMBER_CHECK(zero_point >= qmin, "quantize_tensor_per_tensor_affine zero_point ", zero_point,
              " is below lower bound.");
  Tensor src = t.is_cpu() ? t.contiguous() : t.to(Device(kCPU)).contiguous();
  Tensor q = empty(t.sizes(), TensorOptions(dtype));
  q.unsafeGetTensorImpl()->set_quant_params(QuantParams{scale, zero_point});
  if (dtype == kQInt8) {
    quantize_kernel(src.data_ptr<float>(), q.data_ptr<int8_t>(), q.numel(), scale, zero_point);
  } else {
    quantize_kernel(src.data_ptr<float>(), q.data_ptr<uint8_t>(), q.numel(), scale, zero_point);
  }
  return t.is_cpu() ? q : q.to(t.device());
}

Tensor Tensor::dequantize() const {
  // On a plain tensor PyTorch returns it as float32.
  if (!is_quantized()) return to(kFloat);
  Tensor src = contiguous();
  Tensor out = empty(sizes(), TensorOptions(kFloat));
  const QuantParams& qp = impl_->quant_params();
  if (dtype() == kQInt8) {
    dequantize_kernel(src.data_ptr<int8_t>(), out.data_ptr<float>(), numel(), qp.scale,
                      qp.zero_point);
  } else {
    dequantize_kernel(src.data_ptr<uint8_t>(), out.data_ptr<float>(), numel(), qp.scale,
                      qp.zero_point);
  }
  return out;
}

Tensor Tensor::int_repr() const {
  check_quantized(*this, "int_repr");
  // A copy with the same layout, as the integer type.
  Tensor src = contiguous();
  Tensor out = empty(sizes(), TensorOptions(dtype() == kQInt8 ? kChar : kByte));
  std::copy_n(static_cast<const char*>(src.data_ptr()), numel(), static_cast<char*>(out.data_ptr()));
  return out;
}

double Tensor::q_scale() const {
  check_quantized(*this, "q_scale");
  return impl_->quant_params().scale;
}

int64_t Tensor::q_zero_point() const {
  check_quantized(*this, "q_zero_point");
  return impl_->quant_params().zero_point;
}

}  // namespace ember
