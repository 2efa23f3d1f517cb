#ifndef EMBER_TENSOR_PRECISION_H_
#define EMBER_TENSOR_PRECISION_H_

// Note [float32 matmul precision]: PyTorch's switches for how much
// precision float32 matrix products and convolutions may trade for speed
// on tensor cores. One process-wide setting each, read at every call:
//
//  - set_float32_matmul_precision("highest" | "high" | "medium")
//    (torch.set_float32_matmul_precision; default "highest"): "highest"
//    multiplies float32 in float32; "high" and "medium" let cuBLAS use TF32
//    tensor cores (10-bit mantissa products, float32 accumulation). ember
//    has no bfloat16x3 path, so "medium" computes as "high" does, which
//    PyTorch allows.
//  - cuda::matmul::set_allow_tf32(b) (torch.backends.cuda.matmul.allow_tf32,
//    default false) is the same setting seen as a bool: true sets "high",
//    false "highest"; allow_tf32() is precision != "highest".
//  - cuda::set_cudnn_allow_tf32(b) (torch.backends.cudnn.allow_tf32, default
//    true): whether cuDNN convolutions in float32 may use TF32.
//
// float16 and bfloat16 products always use tensor cores with float32
// accumulation; double is never affected. The CPU ignores all three, as
// PyTorch 1.13's CPU does.

#include <string>

namespace ember {

// Any other string changes nothing and warns on stderr, as PyTorch does.
void set_float32_matmul_precision(const std::string& precision);
std::string get_float32_matmul_precision();

namespace cuda {
namespace matmul {
void set_allow_tf32(bool allow);
bool allow_tf32();
}  // namespace matmul

void set_cudnn_allow_tf32(bool allow);
bool cudnn_allow_tf32();
}  // namespace cuda

}  // namespace ember

#endif  // EMBER_TENSOR_PRECISION_H_
