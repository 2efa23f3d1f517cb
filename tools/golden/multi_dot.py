#!/usr/bin/python3
"""What PyTorch 1.13's torch.linalg.multi_dot gives, for
tensor/multi_dot_test.cc: values of each case (inputs mk(shape, float64,
seed i) for operand i, int64 where named) and the errors.
Run with Debian's PyTorch: /usr/bin/python3 tools/golden/multi_dot.py
Writes tensor/testdata/multi_dot_golden.inc and multi_dot_errors_golden.inc."""
import torch

from golden_util import ErrorWriter, GoldenWriter, mk

md = torch.linalg.multi_dot


def ops(shapes, dtype=torch.float64):
    return [mk(list(s), dtype, i) for i, s in enumerate(shapes)]


# name -> operand shapes; the C++ test builds the same operands.
CASES = {
    "mat_mat": [(2, 3), (3, 4)],
    "vec_vec": [(3,), (3,)],
    "mat_vec": [(2, 3), (3,)],
    "vec_mat": [(2,), (2, 3)],
    "vec_mat_vec": [(3,), (3, 4), (4,)],
    "three_left": [(10, 100), (100, 5), (5, 50)],
    "three_right": [(50, 5), (5, 100), (100, 10)],
    "four": [(2, 30), (30, 3), (3, 40), (40, 2)],
    "five_vectors": [(6,), (6, 2), (2, 7), (7, 3), (3,)],
    "empty_rows": [(0, 3), (3, 2), (2, 4)],
    "empty_inner": [(2, 0), (0, 3)],
}

g = GoldenWriter("multi_dot")
for name, shapes in CASES.items():
    g.add(name, md(ops(shapes)))
g.add("long", md(ops([(2, 3), (3, 4), (4, 2)], torch.int64)))
g.write()

e = ErrorWriter("multi_dot")
e.err("one", lambda: md(ops([(2, 2)])))
e.err("none", lambda: md([]))
e.err("first_3d", lambda: md(ops([(2, 2, 2), (2, 2)])))
e.err("last_3d", lambda: md(ops([(2, 2), (2, 2, 2)])))
e.err("last_0d", lambda: md(ops([(2, 2), ()])))
e.err("middle_1d", lambda: md(ops([(2, 2), (2,), (2, 2)])))
e.err("dtype", lambda: md([mk([2, 2]), mk([2, 2], torch.float64)]))
e.err("shapes", lambda: md(ops([(2, 3), (2, 2)])))
e.err("shapes_vec", lambda: md(ops([(3,), (2, 2)])))
e.write()
