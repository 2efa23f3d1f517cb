// Result layouts against PyTorch 1.13 (tools/golden/layout.py; Note [Result
// layout] in tensor/layout.h): elementwise ops, *_like factories, clone, to
// and the channels-last nn ops on transposed, permuted, channels-last,
// non-dense, expanded and empty inputs. Strides of size-1 dims carry no
// layout and PyTorch is not consistent about them, so only the strides of
// dims longer than 1 are compared.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nn/functional/activation.h"
#include "nn/functional/conv.h"
#include "nn/functional/dropout.h"
#include "nn/functional/normalization.h"
#include "nn/functional/padding.h"
#include "nn/functional/pixelshuffle.h"
#include "nn/functional/pooling.h"
#include "nn/functional/upsampling.h"
#include "tensor/all.h"
#include "tensor/layout.h"

namespace ember {
namespace {

namespace F = nn::functional;

struct LayoutCase {
  const char* input;
  const char* op;
  std::vector<int64_t> sizes, strides;
  bool contiguous, channels_last, suggests_channels_last;
};

const LayoutCase kCases[] = {
#include "nn/functional/testdata/layout_golden.inc"
};

const LayoutCase kGradCases[] = {
#include "nn/functional/testdata/layout_grad_golden.inc"
};

struct RandomCase {
  const char* input;
  const char* factory;
  std::vector<double> values;
};

const RandomCase kRandom[] = {
#include "nn/functional/testdata/layout_random_golden.inc"
};

Tensor base(int64_t n) { return arange(n, kFloat) * 0.1 + 0.05; }

// As INPUTS in tools/golden/layout.py.
Tensor make_input(const std::string& name) {
  if (name == "contig") return base(6).reshape({3, 2});
  if (name == "t") return base(6).reshape({2, 3}).t();
  if (name == "perm3") return base(24).reshape({2, 3, 4}).permute({2, 0, 1});
  if (name == "cl") return base(120).reshape({2, 4, 5, 3}).permute({0, 3, 1, 2});
  if (name == "nondense") return base(24).reshape({4, 6}).t().slice(1, 0, 4, 2);
  if (name == "size1") return base(6).reshape({2, 1, 3}).permute({2, 1, 0});
  if (name == "nc11") return base(6).reshape({2, 3, 1, 1});
  if (name == "expanded") return base(3).reshape({3, 1}).expand({3, 4});
  if (name == "empty_t") return zeros({0, 3}).t();
  if (name == "cl_c1") return base(20).reshape({2, 5, 2, 1}).permute({0, 3, 1, 2});
  ADD_FAILURE() << "no input " << name;
  return Tensor();
}

using Op = std::function<Tensor(const Tensor&)>;

// As OPS and NN4D in tools/golden/layout.py.
const std::map<std::string, Op>& ops() {
  static const auto* m = new std::map<std::string, Op>{
      {"neg", [](const Tensor& x) { return -x; }},
      {"exp", [](const Tensor& x) { return x.exp(); }},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }},
      {"abs", [](const Tensor& x) { return x.abs(); }},
      {"sin", [](const Tensor& x) { return x.sin(); }},
      {"tanh", [](const Tensor& x) { return x.tanh(); }},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }},
      {"relu", [](const Tensor& x) { return x.relu(); }},
      {"gelu", [](const Tensor& x) { return F::gelu(x); }},
      {"silu", [](const Tensor& x) { return F::silu(x); }},
      {"softplus", [](const Tensor& x) { return F::softplus(x); }},
      {"elu", [](const Tensor& x) { return F::elu(x); }},
      {"leaky_relu", [](const Tensor& x) { return F::leaky_relu(x); }},
      {"hardswish", [](const Tensor& x) { return F::hardswish(x); }},
      {"hardsigmoid", [](const Tensor& x) { return F::hardsigmoid(x); }},
      {"hardtanh", [](const Tensor& x) { return F::hardtanh(x); }},
      {"relu6", [](const Tensor& x) { return F::relu6(x); }},
      {"mish", [](const Tensor& x) { return F::mish(x); }},
      {"clamp", [](const Tensor& x) { return x.clamp(0.1, 0.5); }},
      {"pow2", [](const Tensor& x) { return x.pow(2); }},
      {"mul_scalar", [](const Tensor& x) { return x * 2; }},
      {"add_scalar", [](const Tensor& x) { return x + 1; }},
      {"rsub_scalar", [](const Tensor& x) { return 1 - x; }},
      {"div_scalar", [](const Tensor& x) { return x / 3; }},
      {"floor", [](const Tensor& x) { return x.floor(); }},
      {"sign", [](const Tensor& x) { return x.sign(); }},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }},
      {"erf", [](const Tensor& x) { return x.erf(); }},
      {"gt_scalar", [](const Tensor& x) { return x > 0.3; }},
      {"to_double", [](const Tensor& x) { return x.to(kDouble); }},
      {"to_int", [](const Tensor& x) { return x.to(kInt); }},
      {"clone", [](const Tensor& x) { return x.clone(); }},
      {"empty_like", [](const Tensor& x) { return empty_like(x); }},
      {"zeros_like", [](const Tensor& x) { return zeros_like(x); }},
      {"ones_like", [](const Tensor& x) { return ones_like(x); }},
      {"full_like", [](const Tensor& x) { return full_like(x, 7); }},
      {"rand_like", [](const Tensor& x) { return rand_like(x); }},
      {"randn_like", [](const Tensor& x) { return randn_like(x); }},
      {"where", [](const Tensor& x) { return where(x > 0.3, x, zeros({})); }},
      {"masked_fill", [](const Tensor& x) { return x.masked_fill(x > 0.3, 0); }},
      {"add_self", [](const Tensor& x) { return x + x; }},
      {"add_contig", [](const Tensor& x) { return x + x.contiguous(); }},
      {"contig_add", [](const Tensor& x) { return x.contiguous() + x; }},
      {"add_row", [](const Tensor& x) { return x + base(x.size(-1)); }},
      {"row_add", [](const Tensor& x) { return base(x.size(-1)) + x; }},
      {"add_0dim", [](const Tensor& x) { return x + tensor(2.0f); }},
      {"int_add_float", [](const Tensor& x) { return x.to(kLong) + 0.5; }},
      {"lerp", [](const Tensor& x) { return x.lerp(x.contiguous(), 0.3); }},
      {"addcmul", [](const Tensor& x) { return x.addcmul(x, x, 0.5); }},
      {"dropout_eval",
       [](const Tensor& x) { return F::dropout(x, F::DropoutFuncOptions().training(false)); }},
      {"contiguous", [](const Tensor& x) { return x.contiguous(); }},
      {"conv2d",
       [](const Tensor& x) {
         return F::conv2d(x, base(x.size(1) * 4).reshape({4, x.size(1), 1, 1}));
       }},
      {"conv_transpose2d",
       [](const Tensor& x) {
         return F::conv_transpose2d(x, base(x.size(1) * 8).reshape({x.size(1), 2, 2, 2}));
       }},
      {"conv2d_cl_weight",
       [](const Tensor& x) {
         return F::conv2d(x,
                          base(x.size(1) * 16)
                              .reshape({4, x.size(1), 2, 2})
                              .contiguous(MemoryFormat::ChannelsLast),
                          F::Conv2dFuncOptions().padding(1));
       }},
      {"max_pool2d_indices",
       [](const Tensor& x) {
         return std::get<1>(
             F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2).ceil_mode(true)));
       }},
      {"max_pool2d",
       [](const Tensor& x) {
         return F::max_pool2d(x, F::MaxPool2dFuncOptions(2).ceil_mode(true));
       }},
      {"avg_pool2d",
       [](const Tensor& x) {
         return F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).ceil_mode(true));
       }},
      {"adaptive_avg_pool2d_1", [](const Tensor& x) { return F::adaptive_avg_pool2d(x, 1); }},
      {"adaptive_avg_pool2d_2", [](const Tensor& x) { return F::adaptive_avg_pool2d(x, 2); }},
      {"batch_norm_train",
       [](const Tensor& x) {
         return F::batch_norm(x, Tensor(), Tensor(), F::BatchNormFuncOptions().training(true));
       }},
      {"batch_norm_eval",
       [](const Tensor& x) {
         return F::batch_norm(x, zeros({x.size(1)}), ones({x.size(1)}),
                              F::BatchNormFuncOptions().training(false));
       }},
      {"softmax1", [](const Tensor& x) { return F::softmax(x, 1); }},
      {"log_softmax1", [](const Tensor& x) { return F::log_softmax(x, 1); }},
      {"contiguous_cl", [](const Tensor& x) { return x.contiguous(MemoryFormat::ChannelsLast); }},
      {"clone_contig", [](const Tensor& x) { return x.clone(MemoryFormat::Contiguous); }},
      {"empty_like_cl",
       [](const Tensor& x) { return empty_like(x, {}, MemoryFormat::ChannelsLast); }},
      {"group_norm",
       [](const Tensor& x) {
         return F::group_norm(
             x, F::GroupNormFuncOptions(1).weight(base(x.size(1))).bias(base(x.size(1))));
       }},
      {"instance_norm",
       [](const Tensor& x) { return x.size(2) * x.size(3) > 1 ? F::instance_norm(x) : x; }},
      {"layer_norm",
       [](const Tensor& x) {
         return F::layer_norm(x, F::LayerNormFuncOptions({x.size(2), x.size(3)}));
       }},
      {"interpolate_nearest",
       [](const Tensor& x) {
         return F::interpolate(
             x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}));
       }},
      {"interpolate_bilinear",
       [](const Tensor& x) {
         return F::interpolate(x, F::InterpolateFuncOptions()
                                      .size(std::vector<int64_t>{3, 4})
                                      .mode(kBilinear)
                                      .align_corners(false));
       }},
      {"pixel_shuffle",
       [](const Tensor& x) {
         return F::pixel_shuffle(x.repeat({1, 4, 1, 1}), F::PixelShuffleFuncOptions(2));
       }},
      {"dropout2d_eval",
       [](const Tensor& x) { return F::dropout2d(x, F::Dropout2dFuncOptions().training(false)); }},
      {"pad_reflect",
       [](const Tensor& x) {
         return x.size(3) > 1 ? F::pad(x, F::PadFuncOptions({1, 1, 0, 0}).mode(kReflect)) : x;
       }},
  };
  return *m;
}

std::string str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Strides of the dims longer than 1 (-1 elsewhere).
std::vector<int64_t> layout_strides(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < sizes.size(); ++d) out.push_back(sizes[d] > 1 ? strides[d] : -1);
  return out;
}

TEST(LayoutTest, EveryCaseMatchesPyTorch) {
  int checked = 0;
  for (const LayoutCase& c : kCases) {
    SCOPED_TRACE(std::string(c.input) + " " + c.op);
    Tensor x = make_input(c.input);
    Tensor y;
    if (std::string(c.op) == "input") {
      y = x;
      EXPECT_EQ(x.suggest_memory_format() == MemoryFormat::ChannelsLast,
                c.suggests_channels_last);
    } else {
      auto it = ops().find(c.op);
      ASSERT_NE(it, ops().end()) << "no op " << c.op;
      y = it->second(x);
    }
    ASSERT_EQ(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), c.sizes);
    if (y.numel() > 0) {
      EXPECT_EQ(str(layout_strides(y.sizes(), y.strides())),
                str(layout_strides(c.sizes, c.strides)))
          << "PyTorch's strides " << str(c.strides) << ", ember's "
          << str(std::vector<int64_t>(y.strides().begin(), y.strides().end()));
    }
    EXPECT_EQ(y.is_contiguous(), c.contiguous);
    if (y.dim() == 4) {
      EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), c.channels_last);
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(sizeof(kCases) / sizeof(kCases[0])));
}

// A gradient's sizes, layout and contiguity against PyTorch's.
void check_layout(const Tensor& g, const LayoutCase& c) {
  ASSERT_EQ(std::vector<int64_t>(g.sizes().begin(), g.sizes().end()), c.sizes);
  if (g.numel() > 0) {
    EXPECT_EQ(str(layout_strides(g.sizes(), g.strides())), str(layout_strides(c.sizes, c.strides)))
        << "PyTorch's strides " << str(c.strides) << ", ember's "
        << str(std::vector<int64_t>(g.strides().begin(), g.strides().end()));
  }
  EXPECT_EQ(g.is_contiguous(), c.contiguous);
  if (g.dim() == 4) {
    EXPECT_EQ(g.is_contiguous(MemoryFormat::ChannelsLast), c.channels_last);
  }
}

// Note [Gradient layout contract] (autograd/node.cc): a leaf's .grad has
// the leaf's strides when the leaf is dense, whatever layout the backward
// produced (an expanded sum gradient, a transposed one), and keeps it when
// gradients accumulate.
TEST(LayoutTest, GradientsFollowTheLeafsLayout) {
  int checked = 0;
  for (const LayoutCase& c : kGradCases) {
    SCOPED_TRACE(std::string(c.input) + " " + c.op);
    Tensor x = make_input(c.input).detach().requires_grad_();
    const std::string op = c.op;
    Tensor loss;
    if (op == "grad_sum") {
      loss = x.sum();
    } else if (op == "grad_exp_sum") {
      loss = x.exp().sum();
    } else if (op == "grad_mul_sum") {
      loss = (x * 3).sum();
    } else if (op == "grad_t_exp_sum") {
      loss = x.dim() == 2 ? x.t().exp().sum() : x.exp().sum();
    } else if (op.rfind("grad_of_", 0) == 0) {  // through an nn op's backward
      auto it = ops().find(op.substr(8));
      ASSERT_NE(it, ops().end()) << "no op " << op.substr(8);
      loss = it->second(x).sum();
    } else if (op.rfind("nonleaf_grad_of_", 0) == 0) {
      // What the nn op's backward itself hands to a non-leaf input (x * 1
      // keeps x's layout; no layout contract applies to it).
      auto it = ops().find(op.substr(16));
      ASSERT_NE(it, ops().end()) << "no op " << op.substr(16);
      Tensor mid = x * 1;
      Tensor seen;
      mid.register_hook([&seen](const Tensor& g) { seen = g; });
      it->second(mid).sum().backward();
      ASSERT_TRUE(seen.defined());
      check_layout(seen, c);
      ++checked;
      continue;
    } else {
      ASSERT_EQ(op, "grad_accumulated");
      x.exp().sum().backward();
      loss = x.exp().sum();
    }
    loss.backward();
    check_layout(x.grad(), c);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(sizeof(kGradCases) / sizeof(kGradCases[0])));
}

// rand_like/randn_like fill memory in order, so each element of a
// transposed, permuted, channels-last or non-dense tensor gets PyTorch's
// number under the same seed.
TEST(LayoutTest, RandomLikeFillsInPyTorchsOrder) {
  for (const RandomCase& c : kRandom) {
    SCOPED_TRACE(std::string(c.input) + " " + c.factory);
    Tensor x = make_input(c.input);
    manual_seed(7);
    Tensor y = std::string(c.factory) == "rand_like" ? rand_like(x) : randn_like(x);
    Tensor flat = y.contiguous().reshape({-1});
    ASSERT_EQ(flat.numel(), static_cast<int64_t>(c.values.size()));
    for (int64_t i = 0; i < flat.numel(); ++i) {
      EXPECT_EQ(flat[i].item<float>(), static_cast<float>(c.values[i])) << "element " << i;
    }
  }
}

// The examples: a result keeps its input's layout, so view()
// succeeds and fails where PyTorch's does.
TEST(LayoutTest, ViewsOfResultsFollowTheLayout) {
  Tensor x = arange(12, kFloat).reshape({3, 4});
  EXPECT_EQ((x.t() + 1).t().view({-1}).sizes(), IntArrayRef({12}));
  EXPECT_EQ(x.t().exp().t().view({2, 6}).sizes(), IntArrayRef({2, 6}));
  EXPECT_THROW((x.t() + 1).view({-1}), Error);
  EXPECT_TRUE((x.t() + 1).t().is_contiguous());
  // Same values either way.
  EXPECT_TRUE(equal((x.t() + 1).contiguous(), x.t().contiguous() + 1));
}

TEST(LayoutTest, MemoryFormatErrorsAreDescriptive) {
  Tensor x = zeros({2, 3});
  try {
    x.contiguous(MemoryFormat::ChannelsLast);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "required rank 4 tensor to use channels_last format");
  }
  try {
    empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::Preserve));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unsupported memory format Preserve");
  }
  try {
    zeros({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast3d);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "required rank 5 tensor to use channels_last_3d format");
  }
  try {
    x.t().contiguous(MemoryFormat::Preserve);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "preserve memory format is unsupported by the contiguous operator");
  }
  EXPECT_THROW(empty_like(x, TensorOptions().memory_format(MemoryFormat::Contiguous),
                          MemoryFormat::Contiguous),
               Error);
}

TEST(LayoutTest, ChannelsLastFactoriesAndConversions) {
  Tensor e = empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast));
  EXPECT_EQ(e.strides(), IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(zeros({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast))
                .strides(),
            IntArrayRef({60, 1, 15, 3}));
  Tensor x = arange(120, kFloat).reshape({2, 3, 4, 5});
  Tensor cl = x.to(TensorOptions(kFloat).memory_format(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(equal(cl, x));
  EXPECT_EQ(cl.suggest_memory_format(), MemoryFormat::ChannelsLast);
  // PyTorch's to() aliases when the format asked for is the one the strides
  // suggest.
  EXPECT_TRUE(cl.to(kFloat, false, false, MemoryFormat::ChannelsLast).is_same(cl));
  EXPECT_TRUE(x.to(kDouble, false, false, MemoryFormat::ChannelsLast)
                  .is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(empty({2, 3, 4, 5, 6}, TensorOptions().memory_format(MemoryFormat::ChannelsLast3d))
                .strides(),
            IntArrayRef({360, 1, 90, 18, 3}));
}

// PyTorch 1.13's empty_like of such geometries (as_strided views).
TEST(LayoutTest, InferDenseStridesKeepsTheOrder) {
  // Zero strides decide nothing: those dims keep their row-major place.
  EXPECT_EQ(infer_dense_strides({6, 5, 4, 3, 2}, {6, 0, 120, 0, 1}),
            DimVector({6, 36, 180, 2, 1}));
  EXPECT_EQ(infer_dense_strides({2, 3, 4}, {1, 9, 2}), DimVector({1, 8, 2}));
  EXPECT_EQ(infer_dense_strides({3, 3}, {2, 2}), DimVector({3, 1}));
  EXPECT_EQ(infer_dense_strides({6, 2}, {1, 12}), DimVector({1, 6}));
}

}  // namespace
}  // namespace ember
