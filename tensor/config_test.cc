// show_config and the CPU features it reports, checked against the
// kernel's own view of the CPU (/proc/cpuinfo), an independent reading.
#include "tensor/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cpu_info.h"

extern "C" char* openblas_get_corename(void);

namespace ember {
namespace {

// The first processor's "key : value" fields of /proc/cpuinfo.
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k == key) return colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return "";
}

TEST(CpuInfo, AgreesWithProcCpuinfo) {
  const std::string flags_line = cpuinfo_field("flags");
  if (flags_line.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags on this system";
  std::set<std::string> flags;
  std::istringstream words(flags_line);
  for (std::string w; words >> w;) flags.insert(w);
  const CpuInfo& cpu = cpu_info();
  auto has = [&](const char* f) { return flags.count(f) > 0; };
  EXPECT_EQ(cpu.avx2, has("avx2"));
  EXPECT_EQ(cpu.fma, has("fma"));
  EXPECT_EQ(cpu.avx512f, has("avx512f"));
  EXPECT_EQ(cpu.avx512dq, has("avx512dq"));
  EXPECT_EQ(cpu.avx512bw, has("avx512bw"));
  EXPECT_EQ(cpu.avx512vl, has("avx512vl"));
  EXPECT_EQ(cpu.avx512_vnni, has("avx512_vnni"));
  EXPECT_EQ(cpu.avx512_bf16, has("avx512_bf16"));
  EXPECT_EQ(cpu.amx_tile, has("amx_tile"));
  EXPECT_EQ(cpu.amx_bf16, has("amx_bf16"));
  EXPECT_EQ(cpu.vendor, cpuinfo_field("vendor_id"));
  EXPECT_EQ(std::to_string(cpu.family), cpuinfo_field("cpu family"));
  EXPECT_EQ(std::to_string(cpu.model), cpuinfo_field("model"));
  std::string name = cpuinfo_field("model name");
  name.erase(name.find_last_not_of(' ') + 1);
  std::string brand = cpu.brand;
  brand.erase(brand.find_last_not_of(' ') + 1);
  EXPECT_EQ(brand, name);
  // ember is built for x86-64-v3: a host that runs this test has it.
  EXPECT_NE(cpu.isa_level(), "below x86-64-v3");
  EXPECT_EQ(cpu.isa_level() == "x86-64-v4",
            has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq"));
}

TEST(ShowConfig, NamesTheCpuAndTheChoices) {
  const std::string c = show_config();
  const CpuInfo& cpu = cpu_info();
  EXPECT_NE(c.find(cpu.brand), std::string::npos) << c;
  EXPECT_NE(c.find("ISA: " + cpu.isa_level()), std::string::npos) << c;
  EXPECT_NE(c.find("float32 GEMM: oneDNN sgemm"), std::string::npos) << c;
  EXPECT_NE(c.find("float64 GEMM: OpenBLAS"), std::string::npos) << c;
  EXPECT_NE(c.find(std::string("OpenBLAS core: ") + openblas_get_corename()), std::string::npos)
      << c;
  EXPECT_NE(c.find("oneDNN ISA: "), std::string::npos) << c;
  EXPECT_NE(c.find("threads: " + std::to_string(get_num_threads())), std::string::npos) << c;
}

// EMBER_CPU_GEMM pins the library (read once per process: each case runs
// in a child). Every choice gives the same products within float rounding.
void expect_choice(const char* value, const char* line) {
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_GEMM", value, 1);
        const Tensor a = arange(0, 20 * 5000, TensorOptions(kFloat)).remainder(7).view({20, 5000});
        const Tensor b = arange(0, 5000 * 25, TensorOptions(kFloat)).remainder(5).view({5000, 25});
        const Tensor ref = mm(a.to(kDouble), b.to(kDouble)).to(kFloat);
        const bool ok =
            mm(a, b).allclose(ref, 1e-5, 0) && show_config().find(line) != std::string::npos;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "")
      << value;
}

TEST(ShowConfig, EmberCpuGemmPinsTheLibrary) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  expect_choice("onednn", "oneDNN sgemm for every shape (EMBER_CPU_GEMM=onednn)");
  expect_choice("openblas", "OpenBLAS for every shape (EMBER_CPU_GEMM=openblas)");
  expect_choice("auto", "float32 GEMM: oneDNN sgemm");
}

TEST(ShowConfig, RefusesAnUnknownGemmChoice) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_GEMM", "mkl", 1);
        try {
          mm(ones({2, 2}), ones({2, 2}));
        } catch (const Error& e) {
          std::exit(std::string(e.what()).find(
                        "EMBER_CPU_GEMM must be auto, onednn or openblas, got 'mkl'") !=
                            std::string::npos
                        ? 0
                        : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

// EMBER_CPU_CONV pins the convolution path (in a child, as above): a layer
// that the rule gives to oneDNN gives the float64 result within float
// rounding on either path, and show_config says which.
bool conv_agrees_and_shows(const char* line) {
  manual_seed(1);
  const Tensor x = randn({4, 16, 9, 9}), w = randn({32, 16, 3, 3});
  const std::vector<int64_t> one{1, 1};
  const Tensor ref = convolution(x.to(kDouble), w.to(kDouble), Tensor(), one, one, one, 1);
  const Tensor y = convolution(x, w, Tensor(), one, one, one, 1);
  return (y.to(kDouble) - ref).abs().max().item<double>() < 1e-3 &&
         show_config().find(line) != std::string::npos;
}

void expect_conv_choice(const char* value, const char* line) {
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_CONV", value, 1);
        std::exit(conv_agrees_and_shows(line) ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "")
      << value;
}

// A convolution, which reads EMBER_CPU_CONV first.
void convolve_once() {
  const std::vector<int64_t> one{1, 1}, zero{0, 0};
  convolution(ones({1, 1, 3, 3}), ones({1, 1, 2, 2}), Tensor(), one, zero, one, 1);
}

TEST(ShowConfig, EmberCpuConvPinsThePath) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  expect_conv_choice("onednn", "oneDNN's direct convolution for every shape (EMBER_CPU_CONV=onednn)");
  expect_conv_choice("im2col", "im2col + GEMM for every shape (EMBER_CPU_CONV=im2col)");
  expect_conv_choice("auto", "float32 convolution: oneDNN's direct convolution where");
}

TEST(ShowConfig, RefusesAnUnknownConvChoice) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        setenv("EMBER_CPU_CONV", "winograd", 1);
        try {
          convolve_once();
        } catch (const Error& e) {
          std::exit(std::string(e.what()).find(
                        "EMBER_CPU_CONV must be auto, onednn or im2col, got 'winograd'") !=
                            std::string::npos
                        ? 0
                        : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ember
