// Note [Channels-last pooling] (pool_channels_last.cc): max_pool2d and its
// backward on channels-last inputs give exactly the row-major kernels'
// values, PyTorch's indices (flat h * W + w per plane, ties to the first
// maximum, NaN winning) and gradients, in channels-last memory, over odd
// channel counts and planes, a batch of one, padding, dilation, ceil_mode,
// and one and two threads; avg_pool2d (count_include_pad, divisor_override,
// int64) and adaptive_avg_pool2d the same, bit for bit.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/creation.h"
#include "tensor/math.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/random.h"

namespace ember {
namespace {

struct Case {
  std::vector<int64_t> shape, kernel, stride, padding, dilation;
  bool ceil_mode;
};

const Case kCases[] = {
    {{2, 17, 9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},  // ResNet's stem pool
    {{1, 3, 7, 5}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},    // N = 1, odd planes
    {{3, 20, 8, 9}, {2, 3}, {1, 2}, {1, 0}, {1, 1}, false},   // rectangular windows
    {{2, 9, 11, 10}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, true},   // ceil_mode
    {{2, 5, 13, 9}, {3, 2}, {2, 1}, {1, 1}, {2, 3}, true},    // dilation, ceil_mode
    {{2, 64, 16, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},
};

Tensor channels_last(const Tensor& t) { return t.contiguous(MemoryFormat::ChannelsLast); }

TEST(PoolChannelsLast, MaxPoolMatchesRowMajorKernelsExactly) {
  const int threads = get_num_threads();
  for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i) {
    const Case& k = kCases[i];
    for (ScalarType type : {kFloat, kDouble, kBFloat16}) {
      for (bool ties : {false, true}) {
        manual_seed(11 + i);
        // Few distinct values: many ties, whose first maximum must win.
        Tensor x = ties ? randint(0, 3, k.shape).to(kFloat) : randn(k.shape);
        if (i == 0 && !ties) {             // NaNs win their windows
          float* p = x.data_ptr<float>();  // [0, 1, 2, 3] and [1, 4, 0, 0]
          p[((0 * 17 + 1) * 9 + 2) * 11 + 3] = std::numeric_limits<float>::quiet_NaN();
          p[((1 * 17 + 4) * 9 + 0) * 11 + 0] = std::numeric_limits<float>::quiet_NaN();
        }
        x = x.to(type);
        const Tensor xcl = channels_last(x);
        ASSERT_FALSE(xcl.is_contiguous());
        auto [want, want_idx] =
            max_pool2d_with_indices(x, k.kernel, k.stride, k.padding, k.dilation, k.ceil_mode);
        const Tensor gy = randn(want.sizes()).to(type);
        const Tensor want_gx = max_pool2d_with_indices_backward(gy, k.shape, want_idx);
        for (int n : {1, 2}) {
          set_num_threads(n);
          auto [out, idx] =
              max_pool2d_with_indices(xcl, k.kernel, k.stride, k.padding, k.dilation, k.ceil_mode);
          EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(idx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(out.isnan(), want.isnan())) << i;
          EXPECT_TRUE(equal(out.masked_fill(out.isnan(), 0), want.masked_fill(want.isnan(), 0)))
              << i << " ties " << ties;
          EXPECT_TRUE(equal(idx, want_idx)) << i << " ties " << ties;
          const Tensor gx = max_pool2d_with_indices_backward(channels_last(gy), k.shape, idx);
          EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(gx, want_gx)) << i << " ties " << ties;
        }
      }
    }
  }
  set_num_threads(threads);
}

TEST(PoolChannelsLast, AveragePoolsMatchRowMajorKernelsExactly) {
  const int threads = get_num_threads();
  for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i) {
    const Case& k = kCases[i];
    for (ScalarType type : {kFloat, kDouble, kBFloat16, kLong}) {
      manual_seed(21 + i);
      const Tensor x = type == kLong ? randint(-50, 50, k.shape) : randn(k.shape).to(type);
      const Tensor xcl = channels_last(x);
      for (int variant = 0; variant < 3; ++variant) {
        const bool include_pad = variant != 1;
        const std::optional<int64_t> divisor =
            variant == 2 ? std::optional<int64_t>(5) : std::nullopt;
        const Tensor want =
            avg_pool2d(x, k.kernel, k.stride, k.padding, k.ceil_mode, include_pad, divisor);
        const Tensor gy = randn(want.sizes()).to(type == kLong ? kFloat : type);
        const Tensor want_gx = avg_pool2d_backward(gy, k.shape, k.kernel, k.stride, k.padding,
                                                   k.ceil_mode, include_pad, divisor);
        for (int n : {1, 2}) {
          set_num_threads(n);
          const Tensor out =
              avg_pool2d(xcl, k.kernel, k.stride, k.padding, k.ceil_mode, include_pad, divisor);
          EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(out, want)) << i << " variant " << variant;
          if (type == kLong) continue;  // no int64 backward
          const Tensor gx = avg_pool2d_backward(channels_last(gy), k.shape, k.kernel, k.stride,
                                                k.padding, k.ceil_mode, include_pad, divisor);
          EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(gx, want_gx)) << i << " variant " << variant;
        }
      }
      if (type == kLong) continue;
      for (std::vector<int64_t> size : {std::vector<int64_t>{3, 4}, {5, 2}, {2, 1}}) {
        const Tensor want = adaptive_avg_pool2d(x, size);
        const Tensor gy = randn(want.sizes()).to(type);
        const Tensor want_gx = adaptive_avg_pool2d_backward(gy, k.shape);
        for (int n : {1, 2}) {
          set_num_threads(n);
          const Tensor out = adaptive_avg_pool2d(xcl, size);
          EXPECT_TRUE(out.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(out, want)) << i << " adaptive " << size[0] << "x" << size[1];
          const Tensor gx = adaptive_avg_pool2d_backward(channels_last(gy), k.shape);
          EXPECT_TRUE(gx.is_contiguous(MemoryFormat::ChannelsLast)) << i;
          EXPECT_TRUE(equal(gx, want_gx)) << i << " adaptive " << size[0] << "x" << size[1];
        }
      }
    }
  }
  set_num_threads(threads);
}

}  // namespace
}  // namespace ember
