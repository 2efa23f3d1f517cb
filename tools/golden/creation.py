#!/usr/bin/python3
"""Golden values for tensor/creation_test.cc (run with Debian's /usr/bin/python3).

Writes tensor/testdata/creation_golden.inc. Each entry is named after the
PyTorch call that produced it; the test makes the same call in C++.
"""

import warnings

import torch

from golden_util import GoldenWriter

warnings.filterwarnings("ignore")  # torch.range is deprecated
w = GoldenWriter("creation")
f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
i32, i64 = torch.int32, torch.int64

# tensor(): dtype inference and conversion.
w.add("tensor_int_nested", torch.tensor([[1, 2], [3, 4]]))
w.add("tensor_mixed_int_float", torch.tensor([1, 2.5]))
w.add("tensor_mixed_bool_int", torch.tensor([True, 2]))
w.add("tensor_bool", torch.tensor([[True, False, True]]))
w.add("tensor_float_to_long", torch.tensor([1.5, -2.7], dtype=i64))
w.add("tensor_int_to_float", torch.tensor([[1, 2], [3, 4]], dtype=f32))
w.add("tensor_half", torch.tensor([0.1, 0.2, 65504.0], dtype=f16))
w.add("tensor_bfloat16", torch.tensor([0.1, 3.14159], dtype=bf16))
w.add("tensor_scalar", torch.tensor(3.5))
w.add("tensor_empty", torch.tensor([]))
w.add("tensor_empty_nested", torch.tensor([[]]))
w.add("tensor_3d", torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]))

# full: the fill value's kind picks the dtype.
w.add("full_float", torch.full((2, 3), 1.5))
w.add("full_int", torch.full((2,), 7))
w.add("full_bool", torch.full((2,), True))
w.add("full_float_as_int32", torch.full((2, 2), 2.7, dtype=i32))

# eye.
w.add("eye_3", torch.eye(3))
w.add("eye_2_4", torch.eye(2, 4))
w.add("eye_4_2_bool", torch.eye(4, 2, dtype=torch.bool))
w.add("eye_3_long", torch.eye(3, dtype=i64))

# arange: integer and floating arguments, the vectorized (>= 16 elements)
# and scalar paths, every dtype class.
w.add("arange_5", torch.arange(5))
w.add("arange_1_4", torch.arange(1, 4))
w.add("arange_1_2.5_0.5", torch.arange(1, 2.5, 0.5))
w.add("arange_0_1_0.1", torch.arange(0, 1, 0.1))
w.add("arange_0_1_0.1_double", torch.arange(0, 1, 0.1, dtype=f64))
w.add("arange_10_0_-3", torch.arange(10, 0, -3))
w.add("arange_-1.5_40.2_0.7", torch.arange(-1.5, 40.2, 0.7))
w.add("arange_-1.5_40.2_0.7_double", torch.arange(-1.5, 40.2, 0.7, dtype=f64))
w.add("arange_0_30_0.1", torch.arange(0, 30, 0.1))
w.add("arange_0_30_0.1_half", torch.arange(0, 30, 0.1, dtype=f16))
w.add("arange_0_30_0.1_bfloat16", torch.arange(0, 30, 0.1, dtype=bf16))
w.add("arange_-5_40_3_int32", torch.arange(-5, 40, 3, dtype=i32))
w.add("arange_0.5_7_long", torch.arange(0.5, 7, dtype=i64))
w.add("arange_0_100_uint8", torch.arange(0, 100, dtype=torch.uint8))

# range: inclusive end, default dtype.
w.add("range_1_4", torch.range(1, 4))
w.add("range_0_1_0.1", torch.range(0, 1, 0.1))
w.add("range_0_2_0.3_double", torch.range(0, 2, 0.3, dtype=f64))
w.add("range_1_10_2_long", torch.range(1, 10, 2, dtype=i64))
w.add("range_0_30_0.1", torch.range(0, 30, 0.1))

# linspace: computed from both ends.
w.add("linspace_3_10_5", torch.linspace(3, 10, 5))
w.add("linspace_0_1_100", torch.linspace(0, 1, 100))
w.add("linspace_-2.5_7.3_37_double", torch.linspace(-2.5, 7.3, 37, dtype=f64))
w.add("linspace_10_0_33", torch.linspace(10, 0, 33))
w.add("linspace_0_1_50_half", torch.linspace(0, 1, 50, dtype=f16))
w.add("linspace_-1_1_40_bfloat16", torch.linspace(-1, 1, 40, dtype=bf16))
w.add("linspace_0_10_5_long", torch.linspace(0, 10, 5, dtype=i64))
w.add("linspace_0_100_77_int32", torch.linspace(0, 100, 77, dtype=i32))
w.add("linspace_5_5_1", torch.linspace(5, 5, 1))
w.add("linspace_0_1_0", torch.linspace(0, 1, 0))

# logspace.
w.add("logspace_0_3_4", torch.logspace(0, 3, 4))
w.add("logspace_-2_2_20", torch.logspace(-2, 2, 20))
w.add("logspace_0_1_5_base2", torch.logspace(0, 1, 5, base=2))
w.add("logspace_0_3_4_long", torch.logspace(0, 3, 4, dtype=i64))
w.add("logspace_-1_1_9_base3_double", torch.logspace(-1, 1, 9, base=3, dtype=f64))
w.add("logspace_0_2_7_bfloat16", torch.logspace(0, 2, 7, dtype=bf16))
w.add("logspace_2_2_1", torch.logspace(2, 2, 1))

w.write()
