#ifndef EMBER_TENSOR_ONEDNN_H_
#define EMBER_TENSOR_ONEDNN_H_

// ember's use of oneDNN beyond sgemm: its convolution primitives on the CPU
// (Note [oneDNN convolution]), its bfloat16 matmul (Note [bfloat16 CPU GEMM]) and the one-thread
// rule every oneDNN call shares (Note [GEMM threads] in blas.h). Internal.

#include <cstdint>
#include <optional>
#include <string>

namespace ember {
namespace detail {
namespace onednn {

// Makes the calling thread's oneDNN calls single-threaded (its OpenMP team
// is one thread); ember's pool splits the work instead.
void single_thread();

// A path pinned by an environment variable (EMBER_CPU_GEMM, EMBER_CPU_CONV),
// read by the caller once per process: unset or "auto" is kAuto, "onednn"
// kOneDnn, `other` kOther (any case); anything else is refused, naming the
// variable and its values.
enum class Choice { kAuto, kOneDnn, kOther };
Choice env_choice(const char* var, const char* other);
// Whether a pinned choice takes oneDNN; nullopt when it is kAuto (the
// caller's rule decides).
std::optional<bool> pinned_onednn(Choice c);

// One convolution over n samples, in PyTorch's terms (input [n, c, h, w],
// weight [co, c / groups, kh, kw], output [n, co, oh, ow], contiguous).
struct ConvShape {
  int64_t n, c, h, w;
  int64_t co, kh, kw;
  int64_t oh, ow;
  int64_t sh, sw, ph, pw, dh, dw, groups;
  // bfloat16 data (input, weight, bias, output and gradients), float32
  // otherwise; the weight gradient of a bfloat16 pass is float32 (the
  // caller sums the parts of a split batch, then rounds once).
  bool bf16 = false;
  // The input, the output and their gradients are channels-last in memory
  // ([n, h, w, c] and [n, oh, ow, co]; Note [Native channels-last
  // convolution] in conv.cc); the weight stays [co, c / groups, kh, kw].
  bool channels_last = false;
  // The weight (not its gradient) is channels-last: [co, kh, kw, c / groups].
  bool weight_channels_last = false;
};

enum class ConvPass { kForward, kBackwardData, kBackwardWeights };

// Note [oneDNN convolution]: float32 convolutions go to oneDNN's direct
// convolution primitives (JIT kernels for the host's ISA, on blocked
// layouts such as nChw16c that the calls below reorder to and from) where
// that measured faster than im2col + GEMM; the rule is in onednn.cc.
// EMBER_CPU_CONV=onednn|im2col pins one path for every pass. Each call runs
// on the calling thread alone (the caller splits the batch), so results are
// the same run to run.
bool use_conv(const ConvShape& s, ConvPass pass);
// Whether EMBER_CPU_CONV pins a path (then Note [Convolution by taps] in
// conv_taps.cc is not taken either).
bool conv_pinned();

// Note [bfloat16 CPU convolution]: whether bfloat16 convolutions run
// oneDNN's bfloat16 primitives (every pass). By default only where the CPU
// has native bfloat16 instructions (AVX-512 BF16 or AMX): elsewhere oneDNN
// emulates them, 3-5x slower than its float32 kernels on an AVX-512 host
// (BENCHMARKS.md), and converting to float32 and back is faster
// (Note [Reduced-precision CPU convolution] in conv.cc).
// EMBER_CPU_CONV=onednn takes them anyway, =im2col never.
bool use_bf16_conv();

// Each returns false, writing nothing, if oneDNN has no primitive for the
// shape (the caller then takes im2col). Pointers hold float32 or, with
// s.bf16, bfloat16 data; b may be null.
bool conv_forward(const ConvShape& s, const void* x, const void* w, const void* b, void* y);
// gx = the input gradient.
bool conv_backward_data(const ConvShape& s, const void* gy, const void* w, void* gx);
// gw = the weight gradient over these n samples (overwritten; float32).
bool conv_backward_weights(const ConvShape& s, const void* gy, const void* x, float* gw);

// show_config()'s line on the CPU convolution.
std::string conv_config();

// Whether the CPU has native bfloat16 instructions (AVX-512 BF16 or AMX) as
// oneDNN sees them (ONEDNN_MAX_CPU_ISA caps it).
bool native_bf16();

// Note [bfloat16 CPU GEMM] (onednn.cc): C[m, n] (float32) = alpha * op(A)
// op(B) + beta * C for bfloat16 A and B, with dnnl_sgemm's arguments, on the
// calling thread (one oneDNN matmul primitive per shape, cached as the
// convolution plans). false, writing nothing, where oneDNN has no matmul for
// it. beta == 0: C is not read.
bool gemm_bf16(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const void* a,
               int64_t lda, const void* b, int64_t ldb, float beta, float* c, int64_t ldc);
// oneDNN's name for its bfloat16 matmul on this host ("" if it has none).
std::string gemm_impl_bf16();

}  // namespace onednn
}  // namespace detail
}  // namespace ember

#endif  // EMBER_TENSOR_ONEDNN_H_
