#include "tensor/config.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "tensor/blas.h"
#include "tensor/cpu_info.h"
#include "tensor/cuda/cuda.h"
#include "tensor/onednn.h"
#include "tensor/parallel.h"

namespace ember {

namespace {

std::string bytes(int64_t n) {
  if (n <= 0) return "unknown";
  if (n % (int64_t{1} << 20) == 0) return absl::StrCat(n >> 20, " MiB");
  return absl::StrCat(n >> 10, " KiB");
}

}  // namespace

// Note [CPU dispatch]: ember's own kernels are compiled once for x86-64-v3
// (AVX2, FMA; .bazelrc), so they are the same code on every host that can
// run ember. What differs by host is delegated to the libraries, and read
// at run time: oneDNN's JIT picks its ISA from cpuid (ONEDNN_MAX_CPU_ISA
// caps it), OpenBLAS picks its kernel when it loads (OPENBLAS_CORETYPE
// sets it), and ember's GEMM routing (Note [GEMM backends]) asks OpenBLAS
// which kernel it picked. An AVX2 host is reproduced on an AVX-512 one with
// ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell. None of the choices
// depends on a measurement, so a 1-thread run is bit-reproducible on one
// host.
std::string show_config() {
  const CpuInfo& cpu = cpu_info();
  std::string out = "ember built with:\n";
  absl::StrAppend(&out, "  - compiler: ",
#if defined(__clang__)
                  "clang ",
#elif defined(__GNUC__)
                  "GCC ",
#endif
                  __VERSION__, ", C++", __cplusplus / 100 % 100, "\n");
  absl::StrAppend(&out, "  - ember's kernels: ",
#if defined(__AVX512F__)
                  "AVX-512",
#elif defined(__AVX2__)
                  "x86-64-v3 (AVX2, FMA)",
#else
                  "baseline x86-64",
#endif
                  ", the same code on every host\n");
  absl::StrAppend(&out, "  - CUDA: ",
                  cuda::is_available() ? absl::StrCat(cuda::device_count(), " device(s) available")
                                       : "no device available (or built without a toolkit)",
                  "\n");
  absl::StrAppend(&out, "CPU (read at run time):\n");
  absl::StrAppend(&out, "  - ", cpu.brand.empty() ? "unknown model" : cpu.brand, " (", cpu.vendor,
                  " family ", cpu.family, " model ", cpu.model, ")\n");
  absl::StrAppend(&out, "  - ISA: ", cpu.isa_level(), ": ", cpu.feature_list(), "\n");
  absl::StrAppend(&out, "  - caches: L1d ", bytes(cpu.l1d_bytes), ", L2 ", bytes(cpu.l2_bytes),
                  ", L3 ", bytes(cpu.l3_bytes), "\n");
  absl::StrAppend(&out, "  - threads: ", get_num_threads(), " (ember's intra-op pool)\n");
  absl::StrAppend(&out, "Choices for this CPU:\n");
  absl::StrAppend(&out, detail::gemm_config());
  absl::StrAppend(&out, detail::onednn::conv_config());
  absl::StrAppend(&out,
                  "  - float64 convolution: im2col + the float64 GEMM above; either is split by "
                  "samples across threads\n");
  return out;
}

}  // namespace ember
