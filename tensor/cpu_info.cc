#include "tensor/cpu_info.h"

#include <cpuid.h>
#include <unistd.h>

#include <cstring>

namespace ember {

namespace {

struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(unsigned leaf, unsigned subleaf = 0) {
  Regs r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return Regs{};
  return r;
}

bool bit(unsigned v, int b) { return (v >> b) & 1u; }

// XCR0: which register states the OS saves on a context switch.
uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

int64_t sysconf_bytes(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<int64_t>(v) : 0;
}

CpuInfo detect() {
  CpuInfo info;
  const Regs r0 = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  info.vendor = vendor;
  const unsigned max_leaf = r0.eax;

  const Regs r1 = cpuid(1);
  const unsigned base_family = (r1.eax >> 8) & 0xf, base_model = (r1.eax >> 4) & 0xf;
  info.family =
      static_cast<int>(base_family == 0xf ? base_family + ((r1.eax >> 20) & 0xff) : base_family);
  info.model = static_cast<int>(base_family == 0x6 || base_family == 0xf
                                    ? base_model + (((r1.eax >> 16) & 0xf) << 4)
                                    : base_model);
  const bool osxsave = bit(r1.ecx, 27);
  const uint64_t xcr = osxsave ? xcr0() : 0;
  const bool os_avx = (xcr & 0x6) == 0x6;                 // XMM and YMM state
  const bool os_avx512 = os_avx && (xcr & 0xe0) == 0xe0;  // opmask, ZMM
  const bool os_amx = (xcr & 0x60000) == 0x60000;         // XTILECFG, XTILEDATA
  info.fma = os_avx && bit(r1.ecx, 12) && bit(r1.ecx, 28);

  if (max_leaf >= 7) {
    const Regs r7 = cpuid(7, 0);
    info.avx2 = os_avx && bit(r7.ebx, 5);
    info.avx512f = os_avx512 && bit(r7.ebx, 16);
    info.avx512dq = info.avx512f && bit(r7.ebx, 17);
    info.avx512bw = info.avx512f && bit(r7.ebx, 30);
    info.avx512vl = info.avx512f && bit(r7.ebx, 31);
    info.avx512_vnni = info.avx512f && bit(r7.ecx, 11);
    info.amx_bf16 = os_amx && bit(r7.edx, 22);
    info.amx_tile = os_amx && bit(r7.edx, 24);
    if (r7.eax >= 1) info.avx512_bf16 = info.avx512f && bit(cpuid(7, 1).eax, 5);
  }

  if (cpuid(0x80000000).eax >= 0x80000004) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      const Regs r = cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i, &r, 16);
    }
    info.brand = brand;
    const size_t b = info.brand.find_first_not_of(' ');
    info.brand = b == std::string::npos ? "" : info.brand.substr(b);
  }

  info.l1d_bytes = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
  info.l2_bytes = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  info.l3_bytes = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
  return info;
}

}  // namespace

std::string CpuInfo::isa_level() const {
  if (avx512f && avx512bw && avx512vl && avx512dq && avx2 && fma) return "x86-64-v4";
  if (avx2 && fma) return "x86-64-v3";
  return "below x86-64-v3";
}

std::string CpuInfo::feature_list() const {
  std::string out;
  auto add = [&](bool has, const char* name) {
    if (!has) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(avx2, "avx2");
  add(fma, "fma");
  add(avx512f, "avx512f");
  add(avx512dq, "avx512dq");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512_vnni, "avx512_vnni");
  add(avx512_bf16, "avx512_bf16");
  add(amx_tile, "amx_tile");
  add(amx_bf16, "amx_bf16");
  return out;
}

const CpuInfo& cpu_info() {
  static const CpuInfo* info = new CpuInfo(detect());
  return *info;
}

}  // namespace ember
