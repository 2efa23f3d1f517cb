#!/usr/bin/python3
"""Debian's torchrun (PyTorch 1.13 on Python >= 3.11) crashes before it starts
a worker: Std.from_str turns "0" (and "3") into None, because iterating an
IntFlag no longer yields its zero and multi-bit members, and to_map(None)
then fails. This runs torchrun with Std.from_str fixed; every argument is
torchrun's (1.13 spells them with underscores: --nproc_per_node,
--no_python).

  tools/torchrun113.py --no_python --nproc_per_node=2 bazel-bin/trainers/mnist --epochs=1
"""
import re
import sys

from torch.distributed.elastic.multiprocessing.api import Std


def _from_str(cls, vm):
    if re.fullmatch(r"[0-3]", vm):
        return cls(int(vm))
    if re.fullmatch(r"([0-9]+:[0-3])(,[0-9]+:[0-3])*", vm):
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} does not match a number in 0-3 or a mapping like 0:1,1:3")


Std.from_str = classmethod(_from_str)

from torch.distributed.run import main  # noqa: E402  (after the fix)

if __name__ == "__main__":
    sys.exit(main())
