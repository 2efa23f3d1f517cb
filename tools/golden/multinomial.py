#!/usr/bin/python3
"""Golden draws of torch.multinomial for tensor/multinomial_test.cc (run with
Debian's /usr/bin/python3 from the repo root's tools/golden directory).

Every entry is torch.manual_seed(seed) then one multinomial call, so the test
checks that ember draws PyTorch 1.13's CPU indices: the Gumbel-max path
(without replacement, or one sample) and the cumulative-distribution path
(with replacement). Writes tensor/testdata/multinomial_golden.inc and
tensor/testdata/multinomial_errors_golden.inc.
"""

import torch

from golden_util import ErrorWriter, GoldenWriter

w = GoldenWriter("multinomial")
e = ErrorWriter("multinomial")
f16, bf16, f64 = torch.float16, torch.bfloat16, torch.float64

P = torch.tensor([0.1, 0.2, 0.3, 0.4])
ROWS = torch.tensor([[1., 2., 3., 4., 0.], [0., 0., 5., 1., 1.], [3., 3., 3., 3., 3.]])
WIDE = torch.arange(1., 101.)  # 100 categories, unnormalized

CASES = [
    ("p_1", lambda: torch.multinomial(P, 1)),
    ("p_3", lambda: torch.multinomial(P, 3)),
    ("p_4", lambda: torch.multinomial(P, 4)),
    ("p_10_replacement", lambda: torch.multinomial(P, 10, True)),
    ("p_1_replacement", lambda: torch.multinomial(P, 1, True)),
    ("rows_2", lambda: torch.multinomial(ROWS, 2)),
    ("rows_7_replacement", lambda: torch.multinomial(ROWS, 7, True)),
    ("rows_transposed_replacement", lambda: torch.multinomial(ROWS.t().contiguous().t(), 6, True)),
    ("rows_transposed_3", lambda: torch.multinomial(ROWS.t().contiguous().t(), 3)),
    ("rows_double_4_replacement", lambda: torch.multinomial(ROWS.to(f64), 4, True)),
    ("rows_double_2", lambda: torch.multinomial(ROWS.to(f64), 2)),
    ("wide_50_replacement", lambda: torch.multinomial(WIDE, 50, True)),
    ("wide_20", lambda: torch.multinomial(WIDE, 20)),
    ("wide_bf16_30_replacement", lambda: torch.multinomial(WIDE.to(bf16), 30, True)),
    ("wide_bf16_5", lambda: torch.multinomial(WIDE.to(bf16), 5)),
    ("one_hot_1", lambda: torch.multinomial(torch.tensor([0., 0., 1.]), 1)),
    ("one_hot_5_replacement", lambda: torch.multinomial(torch.tensor([0., 0., 1.]), 5, True)),
    ("empty_rows", lambda: torch.multinomial(torch.zeros(0, 3), 2)),
]
for seed, (name, f) in enumerate(CASES):
    torch.manual_seed(100 + seed)
    w.add(name + "_seed%d" % (100 + seed), f())

# The generator argument draws from its own state.
g = torch.Generator().manual_seed(7)
w.add("generator_seed7_replacement", torch.multinomial(ROWS, 5, True, generator=g))
w.add("generator_seed7_then", torch.multinomial(ROWS, 3, generator=g))

e.err("dims_3", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
e.err("dims_0", lambda: torch.multinomial(torch.tensor(1.), 1))
e.err("long", lambda: torch.multinomial(torch.tensor([1, 2]), 1))
e.err("zero_samples", lambda: torch.multinomial(P, 0))
e.err("too_many", lambda: torch.multinomial(P, 5))
e.err("no_categories", lambda: torch.multinomial(torch.zeros(2, 0), 1))
e.err("negative", lambda: torch.multinomial(torch.tensor([-1., 2.]), 1))
e.err("inf", lambda: torch.multinomial(torch.tensor([float("inf"), 1.]), 2))
e.err("nan", lambda: torch.multinomial(torch.tensor([float("nan"), 1.]), 1))
e.err("zero_sum", lambda: torch.multinomial(torch.tensor([[1., 0.], [0., 0.]]), 1))
e.err("negative_replacement", lambda: torch.multinomial(torch.tensor([1., -1.]), 2, True))
e.err("inf_replacement", lambda: torch.multinomial(torch.tensor([float("inf"), 0.]), 2, True))
e.err("zero_sum_replacement", lambda: torch.multinomial(torch.tensor([0., 0.]), 2, True))

w.write()
e.write()
