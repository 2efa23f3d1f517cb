#!/usr/bin/python3
"""nn.init.dirac_, sparse_, trunc_normal_ and orthogonal_ as PyTorch 1.13 fills them (sparse_ and
trunc_normal_ under manual_seed), for nn/init_extra_test.cc. Run with Debian's PyTorch:
/usr/bin/python3 tools/golden/init_extra.py"""
import torch
from torch.nn import init

from golden_util import GoldenWriter


def main():
    w = GoldenWriter("init_extra", "nn")
    w.add("dirac_3d", init.dirac_(torch.empty(3, 2, 5)))
    w.add("dirac_4d_groups2", init.dirac_(torch.empty(4, 3, 3, 2), groups=2))
    w.add("dirac_5d", init.dirac_(torch.empty(2, 2, 3, 1, 3)))
    torch.manual_seed(0)
    w.add("sparse_6x4", init.sparse_(torch.empty(6, 4), 0.5, std=0.02))
    torch.manual_seed(1)
    w.add("sparse_5x3_default_std", init.sparse_(torch.empty(5, 3), 0.3))
    torch.manual_seed(2)
    w.add("trunc_normal_default", init.trunc_normal_(torch.empty(4, 6)))
    torch.manual_seed(3)
    w.add("trunc_normal_shifted", init.trunc_normal_(torch.empty(3, 5), 0.5, 0.2, -0.1, 0.9))
    torch.manual_seed(4)
    w.add("trunc_normal_double",
          init.trunc_normal_(torch.empty(2, 7, dtype=torch.float64), 0.0, 1.0, -1.5, 0.5))
    torch.manual_seed(5)
    w.add("orthogonal_tall", init.orthogonal_(torch.empty(6, 4)))
    torch.manual_seed(6)
    w.add("orthogonal_wide_gain", init.orthogonal_(torch.empty(3, 2, 4), gain=2.0))
    w.write()


if __name__ == "__main__":
    main()
