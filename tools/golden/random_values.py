#!/usr/bin/python3
"""Golden values for tensor/random_test.cc (run with Debian's /usr/bin/python3).
(Not named random.py: that would shadow Python's random module.)

Every entry is torch.manual_seed(seed) followed by the named call(s), so the
test can check that ember's generator reproduces PyTorch's CPU stream.
Writes tensor/testdata/random_golden.inc.
"""

import torch

from golden_util import GoldenWriter

w = GoldenWriter("random")
f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64


def seeded(seed):
    torch.manual_seed(seed)


# rand: every floating dtype.
seeded(0); w.add("rand_5_seed0", torch.rand(5))
seeded(1); w.add("rand_37_seed1", torch.rand(37))
seeded(2); w.add("rand_7_double_seed2", torch.rand(7, dtype=f64))
seeded(3); w.add("rand_20_half_seed3", torch.rand(20, dtype=f16))
seeded(4); w.add("rand_20_bfloat16_seed4", torch.rand(4, 5, dtype=bf16))

# randn: the per-element path (< 16 values, with its cached second normal)
# and the 16-wide Box-Muller fill.
seeded(5); w.add("randn_5_seed5", torch.randn(5))
seeded(6)
w.add("randn_7_double_seed6_first", torch.randn(7, dtype=f64))
w.add("randn_7_double_seed6_second", torch.randn(5, dtype=f64))
seeded(7); w.add("randn_16_seed7", torch.randn(16))
seeded(8); w.add("randn_37_seed8", torch.randn(37))
seeded(9); w.add("randn_1000_seed9", torch.randn(10, 100))
seeded(10); w.add("randn_40_double_seed10", torch.randn(40, dtype=f64))
seeded(11); w.add("randn_33_half_seed11", torch.randn(33, dtype=f16))
seeded(12); w.add("randn_33_bfloat16_seed12", torch.randn(33, dtype=bf16))

# normal with mean and std.
seeded(13); w.add("normal_2_3_50_seed13", torch.normal(2.0, 3.0, (50,)))
seeded(14); w.add("normal_-1_0.5_5_double_seed14", torch.normal(-1.0, 0.5, (5,), dtype=f64))
seeded(15); w.add("normal_2_3_20_double_seed15", torch.normal(2.0, 3.0, (20,), dtype=f64))

# randint: 32-bit and 64-bit draws, several dtypes.
seeded(16); w.add("randint_0_10_20_seed16", torch.randint(0, 10, (20,)))
seeded(17); w.add("randint_-5_5_3x4_int32_seed17", torch.randint(-5, 5, (3, 4), dtype=torch.int32))
seeded(18); w.add("randint_0_2p40_5_seed18", torch.randint(0, 2**40, (5,)))
seeded(19); w.add("randint_3_10_6_uint8_seed19", torch.randint(3, 10, (6,), dtype=torch.uint8))
seeded(20); w.add("randint_0_7_8_float_seed20", torch.randint(0, 7, (8,), dtype=f32))

# randperm.
seeded(21); w.add("randperm_10_seed21", torch.randperm(10))
seeded(22); w.add("randperm_50_seed22", torch.randperm(50))
seeded(23); w.add("randperm_5_int32_seed23", torch.randperm(5, dtype=torch.int32))
seeded(24); w.add("randperm_30_float_seed24", torch.randperm(30, dtype=f32))

# In-place fills.
seeded(25); w.add("uniform_-2_3_30_seed25", torch.empty(30).uniform_(-2, 3))
seeded(26); w.add("uniform_-2_3_30_half_seed26", torch.empty(30, dtype=f16).uniform_(-2, 3))
seeded(27); w.add("bernoulli_0.3_30_seed27", torch.empty(30).bernoulli_(0.3))
seeded(28); w.add("bernoulli_0.5_10_bool_seed28", torch.empty(10, dtype=torch.bool).bernoulli_())
seeded(29); w.add("exponential_1.5_20_double_seed29", torch.empty(20, dtype=f64).exponential_(1.5))
seeded(30); w.add("exponential_1_20_seed30", torch.empty(20).exponential_())
seeded(33); w.add("cauchy_0.5_2_20_double_seed33", torch.empty(20, dtype=f64).cauchy_(0.5, 2))
seeded(34); w.add("cauchy_20_half_seed34", torch.empty(20, dtype=f16).cauchy_())
seeded(35); w.add("log_normal_20_seed35", torch.empty(20).log_normal_())
seeded(36); w.add("log_normal_-1_0.5_15_double_seed36",
                  torch.empty(15, dtype=f64).log_normal_(-1, 0.5))
seeded(37); w.add("geometric_0.3_20_seed37", torch.empty(20).geometric_(0.3))
seeded(38); w.add("geometric_0.7_20_long_seed38", torch.empty(20, dtype=torch.long).geometric_(0.7))
seeded(39); w.add("cauchy_4x6_transposed_seed39", torch.empty(6, 4).t().cauchy_())
seeded(31); w.add("random_0_100_10_seed31", torch.empty(10, dtype=torch.int64).random_(0, 100))

# Non-contiguous outputs are filled in memory order.
seeded(32); x = torch.empty(4, 6); x.t().uniform_(); w.add("uniform_transposed_seed32", x)
seeded(33); x = torch.empty(4, 6, dtype=f64); x.t().normal_(); w.add("normal_transposed_seed33", x)
seeded(34); x = torch.zeros(4, 6); x[:, 1:5].uniform_(); w.add("uniform_sliced_seed34", x)

# Generator objects have their own stream.
g = torch.Generator().manual_seed(123)
seeded(0)
w.add("generator_123_rand_5", torch.rand(5, generator=g))
w.add("generator_123_randn_20", torch.randn(20, generator=g))
w.add("generator_default_after", torch.rand(3))
w.add("fresh_generator_rand_4", torch.rand(4, generator=torch.Generator()))
w.write()
