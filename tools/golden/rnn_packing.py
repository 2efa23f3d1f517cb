"""Golden values for torch.nn.utils.rnn (issue 19) and the recurrent layers
on packed input (nn/utils/rnn_test.cc): pack_padded_sequence,
pad_packed_sequence, pad_sequence and pack_sequence with the gradients that
flow through them, RNN / LSTM / GRU run on a PackedSequence (output data,
h_n and c_n taken at each sequence's own end, in the input's batch order),
and PyTorch's errors.

Run with Debian's PyTorch: /usr/bin/python3 tools/golden/rnn_packing.py
Writes nn/testdata/rnn_packing_{golden,errors_golden}.inc. The layer cases
are rnn_case.py's (as rnn.py's) with the results out.data, h_n[, c_n] and
the lengths in <case>.lengths.
"""

import os
import sys

import torch
import torch.nn as nn
from torch.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                pad_sequence)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_util import ErrorWriter, GoldenWriter, mk  # noqa: E402
from rnn_case import flatten, record_case, weighted_loss  # noqa: E402

torch.set_num_threads(1)
g = GoldenWriter("rnn_packing", package="nn")
errors = ErrorWriter("rnn_packing", package="nn")


def ids(*v):
    return torch.tensor(v, dtype=torch.int64)


def grad_of(name, x, results):
    """Stores results as <name>.out<i> and x's gradient of their weighted loss."""
    for i, t in enumerate(results):
        g.add("%s.out%d" % (name, i), t)
    weighted_loss(results).backward()
    g.add(name + ".grad.input", x.grad)


def leaf(name, shape, seed):
    x = mk(shape, seed=seed).requires_grad_()
    g.add(name + ".input", x)
    return x


# --- packing and padding -------------------------------------------------------------------
# Sorted lengths, time-major: out0 data, out1 batch_sizes.
x = leaf("pack_sorted", (4, 3, 2), 0)
p = pack_padded_sequence(x, ids(4, 2, 1))
grad_of("pack_sorted", x, [p.data, p.batch_sizes])

# Unsorted (no ties: PyTorch's sort is not stable), batch-first; the packing
# then padded back with a padding value and a total length.
x = leaf("pack_unsorted", (4, 5, 2), 1)
p = pack_padded_sequence(x, ids(2, 5, 1, 3), batch_first=True, enforce_sorted=False)
padded, lengths = pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=6)
grad_of("pack_unsorted", x, [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices,
                              padded, lengths])

# pad_sequence both ways, then pack_sequence of the same sequences unsorted.
seqs = [mk((3, 2), seed=2).requires_grad_(), mk((1, 2), seed=3).requires_grad_(),
        mk((4, 2), seed=4).requires_grad_()]
for i, s in enumerate(seqs):
    g.add("pad_sequence.seq%d" % i, s)
outs = [pad_sequence(seqs), pad_sequence(seqs, batch_first=True, padding_value=0.5)]
p = pack_sequence(seqs, enforce_sorted=False)
outs += [p.data, p.batch_sizes]
for i, t in enumerate(outs):
    g.add("pad_sequence.out%d" % i, t)
weighted_loss(outs).backward()
for i, s in enumerate(seqs):
    g.add("pad_sequence.grad.seq%d" % i, s.grad)

# --- recurrent layers on packed input -----------------------------------------------------


def packed_case(name, make, x, lengths, batch_first=False, enforce_sorted=False, hx=None):
    """x packed with lengths, run through make()'s module: results out.data,
    h_n[, c_n]."""
    g.add(name + ".lengths", lengths)

    def run(m, x, hx):
        packed = pack_padded_sequence(x, lengths, batch_first=batch_first,
                                      enforce_sorted=enforce_sorted)
        out, hidden = m(packed) if hx is None else m(packed, hx)
        return [out.data] + flatten(hidden)
    record_case(g, name, make, x, hx, run=run)


packed_case("lstm_packed", lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
            mk((5, 4, 3), seed=1), ids(3, 5, 1, 4),
            hx=(mk((4, 4, 4), seed=2), mk((4, 4, 4), seed=3)))
packed_case("lstm_proj_packed", lambda: nn.LSTM(3, 5, proj_size=2, batch_first=True),
            mk((3, 4, 3), seed=4), ids(4, 2, 1), batch_first=True, enforce_sorted=True)
packed_case("gru_packed", lambda: nn.GRU(2, 3, bidirectional=True, batch_first=True),
            mk((3, 4, 2), seed=5), ids(2, 4, 3), batch_first=True, hx=mk((2, 3, 3), seed=6))
packed_case("rnn_packed", lambda: nn.RNN(2, 3, num_layers=2, nonlinearity="relu"),
            mk((4, 3, 2), seed=7), ids(4, 4, 2), enforce_sorted=True)

# --- errors -------------------------------------------------------------------------------
x = torch.zeros(4, 3, 2)
errors.err("unsorted", lambda: pack_padded_sequence(x, ids(2, 4, 1)))
errors.err("zero_length", lambda: pack_padded_sequence(x, ids(4, 2, 0)))
errors.err("lengths_count", lambda: pack_padded_sequence(x, ids(4, 2)))
errors.err("empty", lambda: pack_padded_sequence(torch.zeros(0, 3, 2), ids(1, 1, 1)))
errors.err("lengths_2d", lambda: pack_padded_sequence(x, ids(4, 2, 1).reshape(1, 3)))
errors.err("total_length", lambda: pad_packed_sequence(pack_padded_sequence(x, ids(3, 2, 1)),
                                                       total_length=2))
errors.err("pad_sequence_empty", lambda: pad_sequence([]))
errors.err("pack_sequence_empty", lambda: pack_sequence([]))
errors.err("pad_sequence_sizes", lambda: pad_sequence([torch.zeros(2, 3), torch.zeros(2, 4)]))
errors.err("pack_sequence_unsorted", lambda: pack_sequence([torch.zeros(2), torch.zeros(3)]))
errors.err("packed_hidden_size",
           lambda: nn.GRU(2, 4)(pack_padded_sequence(x, ids(3, 2, 1)), torch.zeros(1, 2, 4)))
errors.err("packed_input_size", lambda: nn.RNN(3, 4)(pack_padded_sequence(x, ids(3, 2, 1))))

g.write()
errors.write()
