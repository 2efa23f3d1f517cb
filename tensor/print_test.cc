#include "tensor/print.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tensor/allocator.h"
#include "tensor/copy.h"
#include "tensor/empty.h"
#include "tensor/tensor.h"
#include "tensor/testing/fake_cuda.h"

namespace ember {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct GoldenOptions {
  int64_t precision;
  double threshold;
  int64_t edgeitems;
  int64_t linewidth;
  int sci_mode;  // -1: automatic, 0: false, 1: true
};

// One tensor printed by PyTorch: the bytes of a contiguous base, the view's
// geometry on it, and what str() gave.
struct PrintCase {
  const char* name;
  const char* dtype;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset;
  const char* data_hex;
  double scale;
  int64_t zero_point;
  bool requires_grad;
  const char* grad_fn;
  GoldenOptions opts;
  const char* default_dtype;
  const char* expected;
};

struct FloatRepr {
  uint64_t bits;
  const char* repr;
};

#include "tensor/testdata/print_golden.inc"

ScalarType parse_dtype(const std::string& name) {
  for (int k = 0; k < kNumScalarTypes; ++k) {
    auto t = static_cast<ScalarType>(k);
    if (name == dtype_name(t)) return t;
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return kFloat;
}

std::string unhex(const std::string& hex) {
  std::string out(hex.size() / 2, '\0');
  for (size_t k = 0; k < out.size(); ++k) {
    out[k] = static_cast<char>(std::stoi(hex.substr(2 * k, 2), nullptr, 16));
  }
  return out;
}

// What //autograd attaches to a tensor; printing only reads it.
class FakeAutogradMeta : public AutogradMetaInterface {
 public:
  FakeAutogradMeta(bool requires_grad, std::string grad_fn)
      : requires_grad_(requires_grad), grad_fn_(std::move(grad_fn)) {}
  bool requires_grad() const override { return requires_grad_; }
  std::string grad_fn_name() const override { return grad_fn_; }

 private:
  bool requires_grad_;
  std::string grad_fn_;
};

Tensor build(const PrintCase& c) {
  ScalarType dt = parse_dtype(c.dtype);
  std::string bytes = unhex(c.data_hex);
  Tensor base = empty({static_cast<int64_t>(bytes.size()) / element_size(dt)}, dt);
  if (!bytes.empty()) std::memcpy(base.data_ptr(), bytes.data(), bytes.size());
  auto impl =
      std::make_shared<TensorImpl>(base.impl()->storage(), dt, c.sizes, c.strides, c.offset);
  if (is_quantized(dt)) impl->set_quant_params(QuantParams{c.scale, c.zero_point});
  std::string grad_fn = c.grad_fn;
  if (c.requires_grad || !grad_fn.empty()) {
    impl->set_autograd_meta(std::make_unique<FakeAutogradMeta>(true, grad_fn));
  }
  return Tensor(std::move(impl));
}

class PrintGoldenTest : public ::testing::TestWithParam<PrintCase> {
 protected:
  void TearDown() override {
    reset_printoptions();
    set_default_dtype(kFloat);
  }
};

TEST_P(PrintGoldenTest, MatchesPyTorch) {
  const PrintCase& c = GetParam();
  Tensor t = build(c);
  PrintOptions o;
  o.precision = c.opts.precision;
  o.threshold = c.opts.threshold;
  o.edgeitems = c.opts.edgeitems;
  o.linewidth = c.opts.linewidth;
  if (c.opts.sci_mode >= 0) o.sci_mode = c.opts.sci_mode == 1;
  set_printoptions(o);
  set_default_dtype(parse_dtype(c.default_dtype));
  EXPECT_EQ(t.toString(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Golden, PrintGoldenTest, ::testing::ValuesIn(kPrintCases),
                         [](const ::testing::TestParamInfo<PrintCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(PrintTest, StreamOperatorWritesToString) {
  Tensor t = empty({2}, kInt);
  t.data_ptr<int32_t>()[0] = 7;
  t.data_ptr<int32_t>()[1] = -12;
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), "tensor([  7, -12], dtype=torch.int32)");
  EXPECT_EQ(os.str(), t.toString());
}

TEST(PrintTest, UndefinedTensor) { EXPECT_EQ(Tensor().toString(), "[ Tensor (undefined) ]"); }

TEST(PrintTest, SizeRepr) {
  EXPECT_EQ(size_repr({}), "torch.Size([])");
  EXPECT_EQ(size_repr({0}), "torch.Size([0])");
  EXPECT_EQ(size_repr({2, 3, 28}), "torch.Size([2, 3, 28])");
}

TEST(PrintTest, PythonFloatRepr) {
  for (const FloatRepr& f : kFloatReprs) {
    double v;
    std::memcpy(&v, &f.bits, sizeof(v));
    EXPECT_EQ(python_float_repr(v), f.repr);
  }
}

// CUDA tensors whose memory is host memory (tensor/testing/fake_cuda.h):
// the device path (copy to CPU, device= suffix) runs without a GPU.
class FakeCudaBackendTest : public ::testing::Test {
 protected:
  template <typename T>
  Tensor on_device(std::vector<T> values, ScalarType dtype, int8_t index) {
    Tensor t = empty({static_cast<int64_t>(values.size())},
                     TensorOptions(dtype).device(Device(kCUDA, index)));
    std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
    return t;
  }

  testing::FakeCudaBackend backend_;
};

// PyTorch shows the device of every CUDA tensor, before the dtype and
// autograd suffixes: tensor([1, 2, 3], device='cuda:0', dtype=torch.int32).
TEST_F(FakeCudaBackendTest, DeviceSuffixComesFirst) {
  EXPECT_EQ(on_device<float>({1.5f, 2.0f}, kFloat, 0).toString(),
            "tensor([1.5000, 2.0000], device='cuda:0')");
  EXPECT_EQ(on_device<int32_t>({1, 2, 3}, kInt, 0).toString(),
            "tensor([1, 2, 3], device='cuda:0', dtype=torch.int32)");
  EXPECT_EQ(on_device<int64_t>({7}, kLong, 1).toString(), "tensor([7], device='cuda:1')");
  Tensor g = on_device<double>({0.25}, kDouble, 0);
  g.impl()->set_autograd_meta(std::make_unique<FakeAutogradMeta>(true, ""));
  EXPECT_EQ(g.toString(),
            "tensor([0.2500], device='cuda:0', dtype=torch.float64, requires_grad=True)");
}

TEST_F(FakeCudaBackendTest, EmptyDeviceTensor) {
  Tensor t = empty({0, 2}, TensorOptions(kFloat).device(Device(kCUDA, 0)));
  EXPECT_EQ(t.toString(), "tensor([], device='cuda:0', size=(0, 2))");
}

TEST(PrintOptionsTest, DefaultsArePyTorchs) {
  reset_printoptions();
  PrintOptions o = get_printoptions();
  EXPECT_EQ(o.precision, 4);
  EXPECT_EQ(o.threshold, 1000);
  EXPECT_EQ(o.edgeitems, 3);
  EXPECT_EQ(o.linewidth, 80);
  EXPECT_FALSE(o.sci_mode.has_value());
}

TEST(PrintOptionsTest, UnsetArgumentsKeepValuesButSciModeResets) {
  reset_printoptions();
  set_printoptions(2, std::nullopt, std::nullopt, std::nullopt, true);
  set_printoptions(std::nullopt, std::nullopt, 5);
  PrintOptions o = get_printoptions();
  EXPECT_EQ(o.precision, 2);
  EXPECT_EQ(o.edgeitems, 5);
  EXPECT_EQ(o.linewidth, 80);
  EXPECT_FALSE(o.sci_mode.has_value());  // torch.set_printoptions does the same
  reset_printoptions();
}

TEST(PrintOptionsTest, Profiles) {
  set_printoptions_profile("short");
  EXPECT_EQ(get_printoptions().precision, 2);
  EXPECT_EQ(get_printoptions().edgeitems, 2);
  set_printoptions_profile("full");
  EXPECT_EQ(get_printoptions().threshold, kInf);
  EXPECT_EQ(get_printoptions().precision, 4);
  set_printoptions_profile("default");
  EXPECT_EQ(get_printoptions().threshold, 1000);
  EXPECT_THROW(set_printoptions_profile("long"), ValueError);
  reset_printoptions();
}

}  // namespace
}  // namespace ember
