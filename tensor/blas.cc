#include "tensor/blas.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "tensor/error.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"

extern "C" char* openblas_get_corename(void);

namespace ember {
namespace detail {

namespace {

void dnnl_gemm_1thread(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc) {
  onednn::single_thread();
  dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  EMBER_CHECK(st == dnnl_success, "oneDNN sgemm failed with status ", static_cast<int>(st));
}

// Below this many multiply-adds a GEMM is not worth waking the pool for.
constexpr int64_t kSplitMacs = int64_t{1} << 18;

// Note [GEMM backends]: whether OpenBLAS's float kernel for this CPU is one
// of its AVX2 or AVX-512 ones. OpenBLAS picks its kernel when it loads; a
// CPU newer than the library (Debian's 0.3.21 on Emerald Rapids) gets the
// SSE3 "Prescott" kernel, 2.4x slower than oneDNN even on the shapes the
// rule below sends to OpenBLAS.
bool openblas_float_is_fast() {
  static const bool fast = [] {
    const std::string core = absl::AsciiStrToLower(openblas_get_corename());
    for (const char* good : {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"}) {
      if (core == good) return true;
    }
    return false;
  }();
  return fast;
}

// EMBER_CPU_GEMM=onednn|openblas pins every float GEMM to one library (to
// compare them, or to reproduce another host); unset or "auto": the rule.
onednn::Choice gemm_choice() {
  static const onednn::Choice choice = onednn::env_choice("EMBER_CPU_GEMM", "openblas");
  return choice;
}

bool use_openblas(int64_t m, int64_t n, int64_t k) {
  if (const std::optional<bool> pin = onednn::pinned_onednn(gemm_choice())) return !*pin;
  return m * n <= 1024 && k >= 4096 && openblas_float_is_fast();
}

}  // namespace

std::string gemm_config() {
  std::string out = "  - float32 GEMM: ";
  switch (gemm_choice()) {
    case onednn::Choice::kOneDnn:
      out += "oneDNN sgemm for every shape (EMBER_CPU_GEMM=onednn)";
      break;
    case onednn::Choice::kOther:
      out += "OpenBLAS for every shape (EMBER_CPU_GEMM=openblas)";
      break;
    case onednn::Choice::kAuto:
      out += "oneDNN sgemm";
      out += openblas_float_is_fast()
                 ? "; OpenBLAS for outputs of <= 1024 elements over reductions of >= 4096"
                 : " for every shape (OpenBLAS's kernel for this CPU is not an AVX2/AVX-512 one)";
      break;
  }
  out += "\n  - bfloat16 GEMM: ";
  if (use_bf16_gemm()) {
    const std::string impl = onednn::gemm_impl_bf16();
    out += "oneDNN's bfloat16 matmul (" + (impl.empty() ? std::string("none on this CPU") : impl) +
           ")";
    if (!onednn::native_bf16()) out += ", emulated: this CPU has no native bfloat16";
  } else {
    out += onednn::native_bf16()
               ? "converted to float32 and back (EMBER_CPU_GEMM=openblas)"
               : "converted to float32 and back (this CPU has no native bfloat16; Note "
                 "[bfloat16 CPU GEMM])";
  }
  out += "\n  - float64 GEMM: OpenBLAS\n";
  out += "  - oneDNN ISA: ";
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx2:
      out += "avx2";
      break;
    case dnnl_cpu_isa_avx2_vnni:
      out += "avx2_vnni";
      break;
    case dnnl_cpu_isa_avx512_core:
      out += "avx512_core";
      break;
    case dnnl_cpu_isa_avx512_core_vnni:
      out += "avx512_core_vnni";
      break;
    case dnnl_cpu_isa_avx512_core_bf16:
      out += "avx512_core_bf16";
      break;
    case dnnl_cpu_isa_avx512_core_amx:
      out += "avx512_core_amx";
      break;
    default:
      out += "code " + std::to_string(static_cast<int>(dnnl_get_effective_cpu_isa()));
      break;
  }
  out += " (ONEDNN_MAX_CPU_ISA caps it)\n  - OpenBLAS core: ";
  out += openblas_get_corename();
  out += " (OPENBLAS_CORETYPE sets it)\n";
  return out;
}

namespace {

// Note [GEMM threads]: rows of C (and of op(A)) or columns of C (and of
// op(B)), whichever dim is longer, in equal parts across ember's pool, each
// part one call of one_thread(m, n, a, b, c) with offset operands; whole on
// the calling thread when the GEMM is small or inside a parallel region.
template <typename In, typename OneThread>
void split_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const In* a, int64_t lda,
                const In* b, int64_t ldb, float* c, int64_t ldc, OneThread one_thread) {
  const int64_t threads = in_parallel_region() ? 1 : get_num_threads();
  if (threads <= 1 || m * n * k < kSplitMacs) {
    one_thread(m, n, a, b, c);
    return;
  }
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n;
  const int64_t parts = std::min<int64_t>(threads, len);
  parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t lo = len * p / parts, hi = len * (p + 1) / parts;
      if (by_rows) {
        one_thread(hi - lo, n, ta ? a + lo : a + lo * lda, b, c + lo * ldc);
      } else {
        one_thread(m, hi - lo, a, tb ? b + lo * ldb : b + lo, c + lo);
      }
    }
  });
}

}  // namespace

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (!in_parallel_region() && use_openblas(m, n, k)) {  // Note [GEMM backends]
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
             [&](int64_t pm, int64_t pn, const float* pa, const float* pb, float* pc) {
               dnnl_gemm_1thread(ta, tb, pm, pn, k, alpha, pa, lda, pb, ldb, beta, pc, ldc);
             });
}

bool use_bf16_gemm() {
  if (const std::optional<bool> pin = onednn::pinned_onednn(gemm_choice())) return *pin;
  return onednn::native_bf16();
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const BFloat16* a,
               int64_t lda, const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
             [&](int64_t pm, int64_t pn, const BFloat16* pa, const BFloat16* pb, float* pc) {
               EMBER_CHECK(
                   onednn::gemm_bf16(ta, tb, pm, pn, k, alpha, pa, lda, pb, ldb, beta, pc, ldc),
                   "oneDNN has no bfloat16 matmul for a ", pm, "x", k, " by ", k, "x", pn,
                   " product on this CPU (EMBER_CPU_GEMM=openblas takes float32)");
             });
}

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace detail
}  // namespace ember
