#!/usr/bin/env python3
"""The mechanical rename that turns a libtorch program into an ember one.

    tools/libtorch_port.py ORIGINAL.cpp OUT.cc

is exactly what examples/libtorch/ applies to pytorch/examples' cpp/
programs (examples/libtorch/README.md lists them); a libtorch user moving to
ember applies the same to their own sources:

  #include <torch/torch.h>        -> #include "ember.h"
  #include <c10d/....hpp>         -> #include "ember.h"
  torch:: / at:: / c10::          -> ember::
  c10d::                          -> ember::c10d:: (ember::distributed)
  using namespace torch (at, c10) -> using namespace ember
  TORCH_MODULE(...)               -> EMBER_MODULE(...)

Nothing else changes: every remaining difference is ember's to close.
"""

import re
import sys

RULES = [
    (re.compile(r"#include\s*<torch/(torch|all|script)\.h>"), '#include "ember.h"'),
    (re.compile(r"#include\s*<c10d/\w+\.hpp>"), '#include "ember.h"'),
    (re.compile(r"\bc10d::"), "ember::c10d::"),
    (re.compile(r"\b(torch|at|c10)::"), "ember::"),
    (re.compile(r"\busing namespace (torch|at|c10)\b"), "using namespace ember"),
    (re.compile(r"\bTORCH_MODULE\("), "EMBER_MODULE("),
]


def port(text):
    for pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    return text


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        text = f.read()
    with open(argv[2], "w") as f:
        f.write(port(text))


if __name__ == "__main__":
    main(sys.argv)
