// Note [Convolution by taps] (conv_taps.cc): the rule that takes it, its
// kernels against the convolution's definition summed term by term in
// double (strided, dilated, rectangular, 1-D, taps that pair nothing,
// channels-last activations and weights), and the public ops that reach
// it (convolution, convolution_backward, conv_transpose) in float.
// Gradients against finite differences: nn/functional:nn_ops_gradcheck_test
// ("convolution by taps").
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/conv_taps.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/random.h"
#include "tensor/reduce.h"

namespace ember {
namespace {

using detail::ConvGeometry;

ConvGeometry geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t co, int64_t kh,
                      int64_t kw, int64_t s, int64_t p, int64_t d) {
  ConvGeometry g{};
  g.n = n, g.c = c, g.h = h, g.w = w, g.co = co, g.kh = kh, g.kw = kw;
  g.sh = g.sw = s, g.ph = g.pw = p, g.dh = g.dw = d, g.groups = 1;
  g.oh = (h + 2 * p - d * (kh - 1) - 1) / s + 1;
  g.ow = (w + 2 * p - d * (kw - 1) - 1) / s + 1;
  return g;
}

std::vector<double> random_values(int64_t n, int seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& e : v) e = u(gen);
  return v;
}

// The convolution's definition, term by term, on row-major arrays:
// y = conv(x, w) + b, and for gy the gradients gx and gw.
struct Direct {
  std::vector<double> y, gx, gw;
};
Direct direct(const ConvGeometry& g, const std::vector<double>& x, const std::vector<double>& w,
              const std::vector<double>& b, const std::vector<double>& gy) {
  Direct r{std::vector<double>(g.n * g.co * g.l()), std::vector<double>(x.size()),
           std::vector<double>(w.size())};
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t o = 0; o < g.co; ++o) {
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const int64_t yi = ((n * g.co + o) * g.oh + oy) * g.ow + ox;
          double acc = b[o];
          for (int64_t c = 0; c < g.c; ++c) {
            for (int64_t i = 0; i < g.kh; ++i) {
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t iy = oy * g.sh - g.ph + i * g.dh, ix = ox * g.sw - g.pw + j * g.dw;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                const int64_t xi = ((n * g.c + c) * g.h + iy) * g.w + ix;
                const int64_t wi = ((o * g.c + c) * g.kh + i) * g.kw + j;
                acc += w[wi] * x[xi];
                r.gx[xi] += w[wi] * gy[yi];
                r.gw[wi] += gy[yi] * x[xi];
              }
            }
          }
          r.y[yi] = acc;
        }
      }
    }
  }
  return r;
}

// [n][c][p] <-> [n][p][c].
std::vector<double> to_nhwc(const std::vector<double>& v, int64_t n, int64_t c, int64_t p) {
  std::vector<double> out(v.size());
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t q = 0; q < p; ++q) out[(s * p + q) * c + ch] = v[(s * c + ch) * p + q];
    }
  }
  return out;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-12) << what << " at " << i;
  }
}

struct Shape {
  int64_t n, c, h, w, co, kh, kw, s, p, d;
};
// Small channel counts (the kernels do not need the rule's): 3x3 over 2x2
// (ResNet-18's last planes), stride 2, dilation 2, rectangular kernels and
// planes, a 1-D one (h = 1), channel counts that are not multiples of 8
// (the float transposes' blocks), a kernel wider than the padded input
// leaves nothing for some taps (padding 2 around 1x1), and a tap covering
// the whole plane.
const Shape kShapes[] = {
    {2, 5, 2, 2, 7, 3, 3, 1, 1, 1},  {3, 4, 4, 4, 6, 3, 3, 2, 1, 1},
    {2, 3, 5, 4, 4, 3, 3, 1, 2, 2},  {2, 9, 3, 2, 10, 3, 1, 1, 1, 1},
    {1, 4, 1, 6, 3, 1, 5, 1, 2, 1},  {2, 3, 1, 1, 2, 5, 5, 1, 2, 1},
    {1, 17, 2, 3, 9, 2, 2, 1, 0, 1}, {2, 16, 3, 3, 16, 3, 3, 1, 1, 1},
};

// Both activation layouts, both weight layouts: forward (with and without
// bias), the input gradient and the weight gradient, each alone and together.
TEST(ConvTaps, KernelsMatchTheDefinition) {
  int seed = 1;
  for (const Shape& sh : kShapes) {
    const ConvGeometry base =
        geometry(sh.n, sh.c, sh.h, sh.w, sh.co, sh.kh, sh.kw, sh.s, sh.p, sh.d);
    const int64_t k = sh.kh * sh.kw;
    const auto x = random_values(sh.n * sh.c * sh.h * sh.w, seed++);
    const auto w = random_values(sh.co * sh.c * k, seed++);
    const auto b = random_values(sh.co, seed++);
    const auto gy = random_values(sh.n * sh.co * base.l(), seed++);
    const Direct want = direct(base, x, w, b, gy);
    const std::vector<double> no_bias(sh.co, 0.0);
    const Direct want_nb = direct(base, x, w, no_bias, gy);
    for (int layout = 0; layout < 3; ++layout) {  // row-major; nhwc; nhwc with an ohwi weight
      ConvGeometry g = base;
      g.channels_last = layout >= 1;
      g.weight_channels_last = layout == 2;
      const std::string what =
          "shape " + std::to_string(&sh - kShapes) + " layout " + std::to_string(layout);
      auto act = [&](const std::vector<double>& v, int64_t ch, int64_t plane) {
        return g.channels_last ? to_nhwc(v, sh.n, ch, plane) : v;
      };
      const auto xl = act(x, sh.c, sh.h * sh.w), gyl = act(gy, sh.co, g.l());
      const auto wl = g.weight_channels_last ? to_nhwc(w, sh.co, sh.c, k) : w;
      std::vector<double> y(want.y.size()), gx(x.size()), gw(w.size());
      detail::conv_taps_forward<double>(g, xl.data(), wl.data(), b.data(), y.data());
      expect_near_all(y, act(want.y, sh.co, g.l()), what + " forward");
      detail::conv_taps_forward<double>(g, xl.data(), wl.data(), nullptr, y.data());
      expect_near_all(y, act(want_nb.y, sh.co, g.l()), what + " forward without bias");
      detail::conv_taps_backward<double>(g, gyl.data(), xl.data(), wl.data(), gx.data(), gw.data());
      expect_near_all(gx, act(want.gx, sh.c, sh.h * sh.w), what + " gx");
      expect_near_all(gw, want.gw, what + " gw");  // row-major whatever the weight's layout
      std::fill(gx.begin(), gx.end(), 7.0);
      detail::conv_taps_backward<double>(g, gyl.data(), xl.data(), wl.data(), gx.data(), nullptr);
      expect_near_all(gx, act(want.gx, sh.c, sh.h * sh.w), what + " gx alone");
      std::fill(gw.begin(), gw.end(), 7.0);
      detail::conv_taps_backward<double>(g, gyl.data(), xl.data(), nullptr, nullptr, gw.data());
      expect_near_all(gw, want.gw, what + " gw alone");
    }
  }
}

// Taken where a quarter or more of im2col's multiply-adds read padding,
// with 32 channels or more on both sides, one group and a kernel of more
// than one tap.
TEST(ConvTaps, Rule) {
  auto takes = [](const ConvGeometry& g) { return detail::use_conv_taps(g); };
  const ConvGeometry layer4 = geometry(32, 512, 2, 2, 512, 3, 3, 1, 1, 1);
  EXPECT_NEAR(detail::conv_useful_fraction(layer4), 4.0 / 9.0, 1e-12);
  EXPECT_TRUE(takes(layer4));
  const ConvGeometry layer3 = geometry(32, 256, 4, 4, 256, 3, 3, 1, 1, 1);
  EXPECT_NEAR(detail::conv_useful_fraction(layer3), 100.0 / 144.0, 1e-12);
  EXPECT_TRUE(takes(layer3));
  EXPECT_TRUE(takes(geometry(32, 256, 4, 4, 512, 3, 3, 2, 1, 1)));   // layer4.0: 25/36
  EXPECT_FALSE(takes(geometry(32, 128, 8, 8, 128, 3, 3, 1, 1, 1)));  // layer2: 0.84
  EXPECT_FALSE(takes(geometry(32, 64, 16, 16, 64, 3, 3, 1, 1, 1)));
  EXPECT_FALSE(takes(geometry(32, 512, 2, 2, 16, 3, 3, 1, 1, 1)));   // 16 output channels
  EXPECT_FALSE(takes(geometry(32, 256, 4, 4, 512, 1, 1, 2, 0, 1)));  // 1x1
  ConvGeometry grouped = layer4;
  grouped.groups = 2;
  EXPECT_FALSE(takes(grouped));
  EXPECT_DOUBLE_EQ(detail::conv_useful_fraction(geometry(64, 1, 28, 28, 20, 5, 5, 1, 0, 1)), 1.0);
}

double max_rel_diff(const Tensor& got, const Tensor& want) {
  const double scale = std::max(1.0, want.abs().max().item<double>());
  return (got.to(kDouble) - want).abs().max().item<double>() / scale;
}

// ResNet-18's last layer in float through the public ops, row-major and
// channels-last (which stays channels-last), against float64 computed
// the same way (the double kernels are checked against the definition
// above).
TEST(ConvTaps, PublicOpsInFloat) {
  manual_seed(3);
  Tensor x = randn({4, 64, 2, 2}), w = randn({64, 64, 3, 3}), b = randn({64});
  Tensor gy = randn({4, 64, 2, 2});
  const ConvGeometry g = geometry(4, 64, 2, 2, 64, 3, 3, 1, 1, 1);
  ASSERT_TRUE(detail::use_conv_taps(g));
  const Tensor y64 =
      convolution(x.to(kDouble), w.to(kDouble), b.to(kDouble), {1, 1}, {1, 1}, {1, 1}, 1);
  const auto [gx64, gw64, gb64] = convolution_backward(
      gy.to(kDouble), x.to(kDouble), w.to(kDouble), {1, 1}, {1, 1}, {1, 1}, 1, {true, true, true});
  for (bool cl : {false, true}) {
    const MemoryFormat f = cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
    Tensor xf = x.contiguous(f), wf = w.contiguous(f), gyf = gy.contiguous(f);
    Tensor y = convolution(xf, wf, b, {1, 1}, {1, 1}, {1, 1}, 1);
    EXPECT_TRUE(y.is_contiguous(f)) << cl;
    EXPECT_LT(max_rel_diff(y, y64), 1e-5) << cl;
    auto [gx, gw, gb] =
        convolution_backward(gyf, xf, wf, {1, 1}, {1, 1}, {1, 1}, 1, {true, true, true});
    EXPECT_TRUE(gx.is_contiguous(f)) << cl;
    EXPECT_LT(max_rel_diff(gx, gx64), 1e-5) << cl;
    EXPECT_LT(max_rel_diff(gw, gw64), 1e-5) << cl;
    EXPECT_LT(max_rel_diff(gb, gb64), 1e-5) << cl;
  }
  // The double route is the definition's (the first test), so the double
  // results above are the definition's too.
  std::vector<double> xv(x.numel()), wv(w.numel()), bv(b.numel()), gyv(gy.numel());
  auto fill = [](std::vector<double>& v, const Tensor& t) {
    Tensor d = t.to(kDouble).contiguous();
    std::copy(d.data_ptr<double>(), d.data_ptr<double>() + d.numel(), v.begin());
  };
  fill(xv, x), fill(wv, w), fill(bv, b), fill(gyv, gy);
  const Direct want = direct(g, xv, wv, bv, gyv);
  const double* y64p = y64.contiguous().data_ptr<double>();
  for (size_t i = 0; i < want.y.size(); ++i) ASSERT_NEAR(y64p[i], want.y[i], 1e-10) << i;
}

// conv_transpose is the input gradient of the convolution whose geometry
// it describes: over 2x2 outputs of a 3x3 kernel it takes the tap route.
TEST(ConvTaps, ConvTransposeMatchesTheDefinition) {
  manual_seed(4);
  // conv_transpose of x [2, 40, 2, 2] with weight [40, 36, 3, 3], padding
  // 1: the convolution [2, 36, 2, 2] -> [2, 40, 2, 2]'s input gradient.
  Tensor x = randn({2, 40, 2, 2}, kDouble), w = randn({40, 36, 3, 3}, kDouble);
  ASSERT_TRUE(detail::use_conv_taps(geometry(2, 36, 2, 2, 40, 3, 3, 1, 1, 1)));
  Tensor out = conv_transpose(x, w, Tensor(), {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1);
  ASSERT_EQ(out.sizes(), IntArrayRef({2, 36, 2, 2}));
  const double* xp = x.data_ptr<double>();
  const double* wp = w.data_ptr<double>();
  std::vector<double> want(2 * 36 * 4, 0.0);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 40; ++c)
      for (int64_t iy = 0; iy < 2; ++iy)
        for (int64_t ix = 0; ix < 2; ++ix)
          for (int64_t o = 0; o < 36; ++o)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                const int64_t oy = iy - 1 + i, ox = ix - 1 + j;
                if (oy < 0 || oy >= 2 || ox < 0 || ox >= 2) continue;
                want[((n * 36 + o) * 2 + oy) * 2 + ox] +=
                    xp[((n * 40 + c) * 2 + iy) * 2 + ix] * wp[((c * 36 + o) * 3 + i) * 3 + j];
              }
  const double* got = out.contiguous().data_ptr<double>();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-10) << i;
}

}  // namespace
}  // namespace ember
