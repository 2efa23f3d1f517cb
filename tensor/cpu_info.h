#ifndef EMBER_TENSOR_CPU_INFO_H_
#define EMBER_TENSOR_CPU_INFO_H_

// What the running CPU can do, read once from cpuid (and the OS's saved
// register state, XCR0), never from what the build machine had. The
// kernel and library choices of Note [CPU dispatch] are made from it, and
// show_config() (tensor/config.h) prints it.

#include <cstdint>
#include <string>

namespace ember {

struct CpuInfo {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD"...
  std::string brand;   // the processor's brand string
  int family = 0, model = 0;
  // Usable: the CPU has it and the OS saves its registers.
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_vnni = false, avx512_bf16 = false;
  bool amx_tile = false, amx_bf16 = false;
  // Per core (L1d, L2) and per package (L3), in bytes; 0 when unknown.
  int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;

  // The widest x86-64 level it runs: "x86-64-v4" (AVX-512 F/BW/VL/DQ),
  // "x86-64-v3" (AVX2, FMA) or "below x86-64-v3".
  std::string isa_level() const;
  // The feature names above that are present, space-separated.
  std::string feature_list() const;
};

// The running CPU (computed on first use).
const CpuInfo& cpu_info();

}  // namespace ember

#endif  // EMBER_TENSOR_CPU_INFO_H_
