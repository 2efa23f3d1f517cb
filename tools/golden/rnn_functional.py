"""Golden values for libtorch's functional recurrences (nn/rnn_functional_test.cc):
torch.lstm / gru / rnn_tanh / rnn_relu (time-major, batch_first and packed) and
torch.lstm_cell / gru_cell / rnn_tanh_cell / rnn_relu_cell, in float32 and float64,
with the gradients of

    loss = sum_i sum(out_i * mk(out_i.shape, dtype, seed=5 + i))

with respect to the input, the states and every parameter for the cases marked
grads, and the errors 1.13 raises. Run with /usr/bin/python3 (Debian's torch 1.13).

Each layer case stores "<case>/spec" = [mode, has_biases, num_layers, dropout,
train, bidirectional, batch_first, packed, grads, seed] (mode: 0 rnn_tanh,
1 rnn_relu, 2 lstm, 3 gru), then per dtype ("<case>/f32/..."): "in", "hx<i>",
"p<i>" (the flat parameters, drawn by the nn module under manual_seed(0)),
"batch_sizes" when packed, "out<i>", and with grads "grad_in", "grad_hx<i>",
"grad_p<i>". Dropout cases draw their masks after manual_seed(seed). Cell cases
store "<case>/spec" = [mode, bias (0 none, 1 both, 2 b_ih only), grads] and
"in", "hx<i>", "w_ih", "w_hh", "b_ih", "b_hh", "out<i>", "grad_*" likewise.
"""

import torch
import torch.nn as nn

from golden_util import ErrorWriter, GoldenWriter, mk

torch.set_num_threads(1)
g = GoldenWriter("rnn_functional", package="nn")
errors = ErrorWriter("rnn_functional", package="nn")

MODES = ["rnn_tanh", "rnn_relu", "lstm", "gru"]
DTYPES = (("f32", torch.float32), ("f64", torch.float64))


def module_params(mode, input_size, hidden, num_layers, bias, bidirectional, proj_size):
    torch.manual_seed(0)
    kw = dict(num_layers=num_layers, bias=bias, bidirectional=bidirectional)
    if mode == "lstm":
        m = nn.LSTM(input_size, hidden, proj_size=proj_size, **kw)
    elif mode == "gru":
        m = nn.GRU(input_size, hidden, **kw)
    else:
        m = nn.RNN(input_size, hidden, nonlinearity=mode[4:], **kw)
    return [p.detach() for p in m._flat_weights]


def record_grads(prefix, outs, leaves):
    dt = outs[0].dtype
    loss = sum((o * mk(list(o.shape), dt, 5 + i)).sum() for i, o in enumerate(outs))
    loss.backward()
    for name, t in leaves:
        g.add(prefix + "grad_" + name, t.grad)


def layer_case(name, mode, input_size, hidden, seq, batch, num_layers=1, bias=True,
               bidirectional=False, batch_first=False, proj_size=0, lengths=None, dropout=0.0,
               train=False, grads=False, seed=0):
    """lengths: a packed case of sequences of these (decreasing) lengths."""
    m = MODES.index(mode)
    packed = lengths is not None
    g.add(name + "/spec", torch.tensor(
        [m, int(bias), num_layers, dropout, int(train), int(bidirectional), int(batch_first),
         int(packed), int(grads), seed], dtype=torch.float64))
    dirs = 2 if bidirectional else 1
    h_out = proj_size if proj_size else hidden
    params32 = module_params(mode, input_size, hidden, num_layers, bias, bidirectional, proj_size)
    for dtn, dt in DTYPES:
        pre = "%s/%s/" % (name, dtn)
        if packed:
            batch = len(lengths)
            batch_sizes = torch.tensor([sum(1 for n in lengths if n > t)
                                        for t in range(max(lengths))], dtype=torch.int64)
            x = mk((int(batch_sizes.sum()), input_size), dt, 1)
            g.add(pre + "batch_sizes", batch_sizes)
        else:
            x = mk((batch, seq, input_size) if batch_first else (seq, batch, input_size), dt, 1)
        hx = [mk((num_layers * dirs, batch, h_out), dt, 2)]
        if mode == "lstm":
            hx.append(mk((num_layers * dirs, batch, hidden), dt, 3))
        params = [p.detach().to(dt).clone() for p in params32]
        g.add(pre + "in", x)
        for i, h in enumerate(hx):
            g.add(pre + "hx%d" % i, h)
        for i, p in enumerate(params):
            g.add(pre + "p%d" % i, p)
        leaves = [("in", x)] + [("hx%d" % i, h) for i, h in enumerate(hx)] + \
            [("p%d" % i, p) for i, p in enumerate(params)]
        for _, t in leaves:
            t.requires_grad_(grads)
        f = getattr(torch, mode)
        state = hx if mode == "lstm" else hx[0]
        torch.manual_seed(seed)
        if packed:
            outs = f(x, batch_sizes, state, params, bias, num_layers, dropout, train,
                     bidirectional)
        else:
            outs = f(x, state, params, bias, num_layers, dropout, train, bidirectional,
                     batch_first)
        for i, o in enumerate(outs):
            g.add(pre + "out%d" % i, o)
        if grads:
            record_grads(pre, outs, leaves)


def cell_case(name, mode, input_size, hidden, batch, bias=1, grads=False):
    """bias: 0 none, 1 b_ih and b_hh, 2 b_ih only."""
    m = MODES.index(mode)
    g.add(name + "/spec", torch.tensor([m, bias, int(grads)], dtype=torch.float64))
    gates = {"lstm": 4, "gru": 3}.get(mode, 1) * hidden
    torch.manual_seed(0)
    w32 = [torch.rand(gates, input_size) - 0.5, torch.rand(gates, hidden) - 0.5,
           torch.rand(gates) - 0.5, torch.rand(gates) - 0.5]
    for dtn, dt in DTYPES:
        pre = "%s/%s/" % (name, dtn)
        x = mk((batch, input_size), dt, 1)
        hx = [mk((batch, hidden), dt, 2)]
        if mode == "lstm":
            hx.append(mk((batch, hidden), dt, 3))
        w_ih, w_hh, b_ih, b_hh = [w.detach().to(dt).clone() for w in w32]
        g.add(pre + "in", x)
        for i, h in enumerate(hx):
            g.add(pre + "hx%d" % i, h)
        named = [("w_ih", w_ih), ("w_hh", w_hh)]
        if bias >= 1:
            named.append(("b_ih", b_ih))
        if bias == 1:
            named.append(("b_hh", b_hh))
        for n, t in named:
            g.add(pre + n, t)
        leaves = [("in", x)] + [("hx%d" % i, h) for i, h in enumerate(hx)] + named
        for _, t in leaves:
            t.requires_grad_(grads)
        f = getattr(torch, mode + "_cell")
        state = hx if mode == "lstm" else hx[0]
        outs = f(x, state, w_ih, w_hh, b_ih if bias >= 1 else None, b_hh if bias == 1 else None)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for i, o in enumerate(outs):
            g.add(pre + "out%d" % i, o)
        if grads:
            record_grads(pre, outs, leaves)


# --- cells ------------------------------------------------------------------------------
cell_case("rnn_tanh_cell", "rnn_tanh", 4, 5, 3, grads=True)
cell_case("rnn_tanh_cell_nobias", "rnn_tanh", 3, 4, 2, bias=0)
cell_case("rnn_relu_cell", "rnn_relu", 4, 5, 3, grads=True)
cell_case("rnn_relu_cell_b_ih_only", "rnn_relu", 3, 4, 2, bias=2)
cell_case("lstm_cell", "lstm", 4, 5, 3, grads=True)
cell_case("lstm_cell_nobias", "lstm", 3, 4, 2, bias=0, grads=True)
cell_case("lstm_cell_b_ih_only", "lstm", 3, 4, 2, bias=2)
cell_case("gru_cell", "gru", 4, 5, 3, grads=True)
cell_case("gru_cell_nobias", "gru", 3, 4, 1, bias=0)

# --- layers -----------------------------------------------------------------------------
layer_case("rnn_tanh_1layer", "rnn_tanh", 4, 5, 3, 2, grads=True)
layer_case("rnn_relu_2layer_bidirectional_nobias", "rnn_relu", 3, 4, 3, 2, num_layers=2,
           bias=False, bidirectional=True, grads=True)
layer_case("rnn_tanh_batch_first", "rnn_tanh", 3, 4, 4, 2, batch_first=True)
layer_case("gru_2layer_batch_first", "gru", 4, 5, 3, 2, num_layers=2, batch_first=True,
           grads=True)
layer_case("gru_bidirectional_one_step", "gru", 3, 4, 1, 3, bidirectional=True)
layer_case("gru_nobias", "gru", 3, 4, 3, 2, bias=False)
layer_case("lstm_2layer_bidirectional", "lstm", 4, 5, 3, 2, num_layers=2, bidirectional=True,
           grads=True)
layer_case("lstm_batch_first_nobias", "lstm", 3, 4, 3, 2, bias=False, batch_first=True)
layer_case("lstm_proj_2layer_batch_first", "lstm", 4, 6, 3, 2, num_layers=2, batch_first=True,
           proj_size=3, grads=True)
layer_case("lstm_proj_nobias_bidirectional", "lstm", 3, 5, 2, 3, bias=False, bidirectional=True,
           proj_size=2)
# Dropout between layers only when train; its masks come from the default
# generator, layer by layer after both directions' outputs are concatenated.
layer_case("lstm_dropout_train", "lstm", 3, 4, 3, 2, num_layers=3, bidirectional=True,
           dropout=0.5, train=True, seed=1)
layer_case("gru_dropout_train", "gru", 3, 4, 3, 2, num_layers=2, dropout=0.3, train=True,
           seed=2, grads=True)
layer_case("rnn_tanh_dropout_eval", "rnn_tanh", 3, 4, 3, 2, num_layers=2, dropout=0.5)
# Packed data: sequences of several lengths, longest first.
layer_case("rnn_tanh_packed", "rnn_tanh", 3, 4, 0, 0, lengths=[4, 3, 1], grads=True)
layer_case("rnn_relu_packed_nobias", "rnn_relu", 3, 4, 0, 0, bias=False, lengths=[3, 3, 2])
layer_case("gru_packed_2layer_bidirectional", "gru", 3, 4, 0, 0, num_layers=2,
           bidirectional=True, lengths=[4, 2, 2, 1], grads=True)
layer_case("lstm_packed", "lstm", 3, 4, 0, 0, lengths=[3, 2], grads=True)
layer_case("lstm_packed_proj_bidirectional", "lstm", 4, 5, 0, 0, bidirectional=True,
           proj_size=2, lengths=[4, 3, 1], grads=True)

# --- errors (nn/rnn_functional_test.cc makes the same calls) ------------------------------
z = torch.zeros


def p_of(mode, input_size, hidden, num_layers=1, bias=True, bidirectional=False, proj_size=0):
    return module_params(mode, input_size, hidden, num_layers, bias, bidirectional, proj_size)


x34 = z(3, 4)
errors.err("lstm_cell.one_state", lambda: torch.lstm_cell(x34, [z(3, 5)], z(20, 4), z(20, 5)))
errors.err("lstm_cell.three_states",
           lambda: torch.lstm_cell(x34, [z(3, 5)] * 3, z(20, 4), z(20, 5)))
errors.err("lstm_cell.input_1d", lambda: torch.lstm_cell(z(4), [z(5), z(5)], z(20, 4), z(20, 5)))
errors.err("lstm_cell.input_size",
           lambda: torch.lstm_cell(z(3, 3), [z(3, 5), z(3, 5)], z(20, 4), z(20, 5)))
errors.err("lstm_cell.h_batch",
           lambda: torch.lstm_cell(x34, [z(2, 5), z(3, 5)], z(20, 4), z(20, 5)))
errors.err("lstm_cell.c_hidden_size",
           lambda: torch.lstm_cell(x34, [z(3, 5), z(3, 4)], z(20, 4), z(20, 5)))
errors.err("gru_cell.input_1d", lambda: torch.gru_cell(z(4), z(5), z(15, 4), z(15, 5)))
errors.err("gru_cell.hidden_size", lambda: torch.gru_cell(x34, z(3, 4), z(15, 4), z(15, 5)))
errors.err("rnn_tanh_cell.input_size", lambda: torch.rnn_tanh_cell(z(3, 3), z(3, 5), z(5, 4),
                                                                   z(5, 5)))
errors.err("rnn_relu_cell.hidden_batch", lambda: torch.rnn_relu_cell(x34, z(2, 5), z(5, 4),
                                                                     z(5, 5)))
errors.err("rnn_relu_cell.input_1d", lambda: torch.rnn_relu_cell(z(4), z(5), z(5, 4), z(5, 5)))

x324 = z(3, 2, 4)
P_LSTM2 = p_of("lstm", 4, 5, num_layers=2)
errors.err("lstm.one_state",
           lambda: torch.lstm(x324, [z(2, 2, 5)], P_LSTM2, True, 2, 0.0, False, False, False))
errors.err("lstm.params_count",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 5)], P_LSTM2[:6], True, 2, 0.0, False,
                              False, False))
# c0 wider than h0: 1.13 expects projections, 5 parameters a layer.
errors.err("lstm.params_count_projection",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 6)], P_LSTM2, True, 2, 0.0, False,
                              False, False))
errors.err("lstm.has_biases_false",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 5)], P_LSTM2, False, 2, 0.0, False,
                              False, False))
errors.err("lstm.num_layers",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 5)], P_LSTM2, True, 1, 0.0, False,
                              False, False))
errors.err("lstm.hx_2d",
           lambda: torch.lstm(x324, [z(2, 5), z(2, 5)], P_LSTM2, True, 2, 0.0, False, False,
                              False))
errors.err("lstm.hidden_batch",
           lambda: torch.lstm(x324, [z(2, 1, 5), z(2, 1, 5)], P_LSTM2, True, 2, 0.0, False,
                              False, False))
errors.err("lstm.empty_sequence",
           lambda: torch.lstm(z(0, 2, 4), [z(2, 2, 5), z(2, 2, 5)], P_LSTM2, True, 2, 0.0, False,
                              False, False))
errors.err("lstm.dropout_range",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 5)], P_LSTM2, True, 2, 1.5, True,
                              False, False))
errors.err("lstm.batch_first_hidden",
           lambda: torch.lstm(x324, [z(2, 2, 5), z(2, 2, 5)], P_LSTM2, True, 2, 0.0, False,
                              False, True))
errors.err("lstm.packed_one_state",
           lambda: torch.lstm(z(4, 4), torch.tensor([2, 1, 1]), [z(2, 2, 5)], P_LSTM2, True, 2,
                              0.0, False, False))
P_GRU = p_of("gru", 4, 5)
errors.err("gru.params_count",
           lambda: torch.gru(x324, z(1, 2, 5), P_GRU[:3], True, 1, 0.0, False, False, False))
errors.err("gru.more_weights",
           lambda: torch.gru(x324, z(1, 2, 5), P_GRU + P_GRU, True, 1, 0.0, False, False, False))
errors.err("gru.more_states",
           lambda: torch.gru(x324, z(2, 2, 5), P_GRU, True, 1, 0.0, False, False, False))
errors.err("gru.bidirectional_odd_states",
           lambda: torch.gru(x324, z(3, 2, 5), P_GRU + P_GRU, True, 1, 0.0, False, True, False))
errors.err("gru.bidirectional_odd_params",
           lambda: torch.gru(x324, z(2, 2, 5), P_GRU, True, 1, 0.0, False, True, False))
errors.err("gru.input_size",
           lambda: torch.gru(z(3, 2, 3), z(1, 2, 5), P_GRU, True, 1, 0.0, False, False, False))
errors.err("gru.packed_hidden_batch",
           lambda: torch.gru(z(4, 4), torch.tensor([2, 1, 1]), z(1, 1, 5), P_GRU, True, 1, 0.0,
                             False, False))
errors.err("gru.packed_batch_sizes_float",
           lambda: torch.gru(z(4, 4), torch.tensor([2.0, 1.0, 1.0]), z(1, 2, 5), P_GRU, True, 1,
                             0.0, False, False))
P_RNN = p_of("rnn_tanh", 4, 5)
errors.err("rnn_tanh.input_size",
           lambda: torch.rnn_tanh(z(3, 2, 3), z(1, 2, 5), P_RNN, True, 1, 0.0, False, False,
                                  False))
errors.err("rnn_relu.hidden_batch",
           lambda: torch.rnn_relu(x324, z(1, 1, 5), P_RNN, True, 1, 0.0, False, False, False))
errors.err("rnn_relu.hidden_size",
           lambda: torch.rnn_relu(x324, z(1, 2, 4), P_RNN, True, 1, 0.0, False, False, False))

g.write()
errors.write()
