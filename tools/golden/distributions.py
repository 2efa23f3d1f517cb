#!/usr/bin/python3
"""What PyTorch 1.13's torch.poisson and torch.binomial draw for fixed seeds
(torch.Generator().manual_seed(seed)), and their errors, for
tensor/distributions_test.cc.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/distributions.py
Writes tensor/testdata/distributions_golden.inc and distributions_errors_golden.inc."""
import torch

from golden_util import ErrorWriter, GoldenWriter

nan = float("nan")
RATES = [0.0, 0.5, 3.0, 9.5, 10.0, 50.0, 1000.0, 2.25]
COUNTS = [0.0, 5.0, 20.0, 100.0, 1000.0, 7.0, 40.0, 3.0, 60.0, -2.0]
PROBS = [0.5, 0.3, 0.5, 0.05, 0.9, 1.0, 0.75, 0.0, 0.2, 0.5]


def gen(seed):
    return torch.Generator().manual_seed(seed)


g = GoldenWriter("distributions")
for dt, name in ((torch.float64, "f64"), (torch.float32, "f32"), (torch.bfloat16, "bf16")):
    g.add("poisson/%s" % name, torch.poisson(torch.tensor(RATES, dtype=dt), gen(42)))
for dt, name in ((torch.float64, "f64"), (torch.float32, "f32")):
    g.add("binomial/%s" % name, torch.binomial(torch.tensor(COUNTS, dtype=dt),
                                               torch.tensor(PROBS, dtype=dt), gen(7)))
# Broadcast prob, and one draw after another from the same generator.
gg = gen(3)
c = torch.tensor([[10.0], [200.0]], dtype=torch.float64)
p = torch.tensor([0.1, 0.6, 0.95], dtype=torch.float64)
g.add("binomial/broadcast", torch.binomial(c, p, gg))
g.add("poisson/after", torch.poisson(torch.tensor([[4.0, 40.0], [0.1, 12.0]]), gg))
g.add("binomial/nan_prob", torch.binomial(torch.tensor([5.0, 0.0]), torch.tensor([nan, nan]), gen(1)))
g.write()

e = ErrorWriter("distributions")
e.err("poisson_negative", lambda: torch.poisson(torch.tensor([1.0, -1.0])))
e.err("poisson_nan", lambda: torch.poisson(torch.tensor([nan])))
e.err("poisson_long", lambda: torch.poisson(torch.tensor([1, 2])))
e.err("poisson_half", lambda: torch.poisson(torch.tensor([1.0], dtype=torch.half)))
e.err("binomial_dtypes", lambda: torch.binomial(torch.tensor([1.0]), torch.tensor([0.5], dtype=torch.float64)))
e.err("binomial_long_count", lambda: torch.binomial(torch.tensor([1]), torch.tensor([0.5])))
e.err("binomial_long", lambda: torch.binomial(torch.tensor([1]), torch.tensor([1])))
e.err("binomial_shapes", lambda: torch.binomial(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5, 0.5])))
e.write()
