#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/all.h"

namespace ember {
namespace {

// A 1-D tensor of `dtype` holding the bytes of `v`.
template <typename T>
Tensor filled_with(const std::vector<T>& v, ScalarType dtype) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, dtype);
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(T));
  return t;
}

// copy_'s float16 conversions of dense blocks (copy.cc's convert_block,
// eight at a time with F16C) give the portable round-to-nearest-even bits:
// every 4099th float bit pattern (NaNs, infinities, subnormals and values
// past half's range among them) and every half, at a length no multiple of
// 8, contiguous and transposed; doubles round through float as Half(float).
TEST(HalfConversionTest, DenseHalfConversionsAreTheScalarOnes) {
  std::vector<float> fs;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 4099) {
    const uint32_t u = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &u, 4);
    fs.push_back(f);
  }
  fs.resize(fs.size() / 6 * 6 - 3);
  const int64_t n = static_cast<int64_t>(fs.size());
  const Tensor f = filled_with(fs, kFloat);
  const Tensor h = f.to(kHalf);
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t want = Half::from_float_portable(fs[i]);
    const uint16_t got = h.data_ptr<Half>()[i].x;
    if (std::isnan(fs[i])) {
      EXPECT_EQ(got & 0x7c00u, 0x7c00u) << i;
      EXPECT_NE(got & 0x3ffu, 0u) << i;
    } else {
      ASSERT_EQ(got, want) << fs[i];
    }
  }
  // Transposed: same strides on both sides, so the flat path again.
  const Tensor ft = f.narrow(0, 0, n / 6 * 6).view({6, n / 6}).t();
  EXPECT_TRUE(ft.to(kHalf).view(kShort).equal(ft.contiguous().to(kHalf).view(kShort)));
  EXPECT_EQ(ft.to(kHalf).strides(), ft.strides());

  std::vector<uint16_t> all(65536 + 5);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  const Tensor hs = filled_with(all, kShort).view(kHalf).to(kFloat);
  for (size_t i = 0; i < all.size(); ++i) {
    const float want = Half::to_float_portable(all[i]);
    const float got = hs.data_ptr<float>()[i];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << i;
    } else {
      ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << i << ": " << got << " vs " << want;
    }
  }

  std::vector<double> ds;
  for (int i = 0; i < 1003; ++i)
    ds.push_back(std::ldexp(1.0 + i / 1003.0, i % 40 - 28) * (i % 3 ? 1 : -1));
  ds[5] = 65519.99999;  // rounds to 65520.0f, then to inf in half
  const Tensor hd = filled_with(ds, kDouble).to(kHalf);
  for (int i = 0; i < 1003; ++i) {
    ASSERT_EQ(hd.data_ptr<Half>()[i].x, Half::from_float_portable(static_cast<float>(ds[i])))
        << ds[i];
  }
}

}  // namespace
}  // namespace ember
