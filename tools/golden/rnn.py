"""Golden values for //nn's recurrent layers (nn/rnn_test.cc, nn/rnn_cell_test.cc):
PyTorch's initial parameters, forward outputs, final states and gradients
of RNN / LSTM / GRU and their cells, their errors, printed forms, state_dict
keys and the dropout warning. Run with /usr/bin/python3 (Debian's torch 1.13).

Each case builds its module under torch.manual_seed(0) and stores its
parameters (the C++ test loads them, as a PyTorch state_dict would be
loaded), the inputs, the outputs and the gradients of

    loss = sum(output * mk(seed=5)) + sum(h_n * mk(seed=6)) [+ sum(c_n * mk(seed=7))]

with respect to the input, the given initial states and every parameter.
"""

import warnings

import torch
import torch.nn as nn

from golden_util import ErrorWriter, GoldenWriter, StringWriter, mk
from rnn_case import record_case

torch.set_num_threads(1)
g = GoldenWriter("rnn", package="nn")
errors = ErrorWriter("rnn", package="nn")
strings = StringWriter("rnn", package="nn")



def run_case(name, make, x, hx=None, train=False, forward_seed=None):
    """Layers: make() -> (output, h_n) or (output, (h_n, c_n)).
    Cells: -> h or (h, c)."""
    return record_case(g, name, make, x, hx, train, forward_seed)


# --- layers ---------------------------------------------------------------------------
run_case("rnn_tanh_2layer", lambda: nn.RNN(4, 5, num_layers=2), mk((3, 2, 4)))
run_case("rnn_relu_hx_batch_first",
         lambda: nn.RNN(3, 4, nonlinearity="relu", batch_first=True), mk((2, 3, 3), seed=1),
         hx=mk((1, 2, 4), seed=2))
run_case("rnn_bidirectional_nobias",
         lambda: nn.RNN(3, 4, num_layers=2, bias=False, bidirectional=True), mk((4, 2, 3), seed=3))
run_case("rnn_unbatched_hx", lambda: nn.RNN(3, 4, num_layers=2), mk((3, 3), seed=4),
         hx=mk((2, 4), seed=1))
run_case("lstm_2layer_bidirectional_hx",
         lambda: nn.LSTM(4, 5, num_layers=2, bidirectional=True), mk((3, 2, 4)),
         hx=(mk((4, 2, 5), seed=1), mk((4, 2, 5), seed=2)))
run_case("lstm_batch_first", lambda: nn.LSTM(3, 4, batch_first=True), mk((2, 4, 3), seed=1))
run_case("lstm_proj_bidirectional",
         lambda: nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3), mk((3, 2, 4), seed=2),
         hx=(mk((4, 2, 3), seed=3), mk((4, 2, 6), seed=4)))
run_case("lstm_proj_nobias", lambda: nn.LSTM(3, 5, bias=False, proj_size=2), mk((2, 3, 3), seed=5))
run_case("lstm_unbatched_hx", lambda: nn.LSTM(4, 5), mk((3, 4), seed=6),
         hx=(mk((1, 5), seed=1), mk((1, 5), seed=3)))
run_case("lstm_unbatched", lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
         mk((3, 3), seed=7))
run_case("gru_2layer_bidirectional_batch_first_hx",
         lambda: nn.GRU(4, 5, num_layers=2, bidirectional=True, batch_first=True),
         mk((2, 3, 4), seed=1), hx=mk((4, 2, 5), seed=2))
run_case("gru_nobias", lambda: nn.GRU(3, 4, bias=False), mk((3, 2, 3), seed=3))
run_case("gru_unbatched", lambda: nn.GRU(3, 4), mk((4, 3), seed=4))
# Dropout between layers in training mode: the masks come from the default
# generator, drawn layer by layer after the forward direction's and the
# reverse direction's outputs are concatenated.
run_case("lstm_dropout_train", lambda: nn.LSTM(3, 4, num_layers=3, dropout=0.5, bidirectional=True),
         mk((3, 2, 3), seed=1), train=True, forward_seed=1)
run_case("gru_dropout_train", lambda: nn.GRU(3, 4, num_layers=2, dropout=0.3), mk((3, 2, 3), seed=2),
         train=True, forward_seed=2)

# --- cells ----------------------------------------------------------------------------
run_case("rnncell_hx", lambda: nn.RNNCell(4, 5), mk((3, 4)), hx=mk((3, 5), seed=1))
run_case("rnncell_relu_unbatched", lambda: nn.RNNCell(3, 4, nonlinearity="relu"), mk((3,), seed=2))
run_case("rnncell_nobias", lambda: nn.RNNCell(3, 4, bias=False), mk((2, 3), seed=3))
run_case("lstmcell_hx", lambda: nn.LSTMCell(4, 5), mk((3, 4), seed=1),
         hx=(mk((3, 5), seed=2), mk((3, 5), seed=3)))
run_case("lstmcell_unbatched", lambda: nn.LSTMCell(3, 4), mk((3,), seed=4))
run_case("lstmcell_unbatched_hx_nobias", lambda: nn.LSTMCell(3, 4, bias=False), mk((3,), seed=5),
         hx=(mk((4,), seed=6), mk((4,), seed=7)))
run_case("grucell_hx", lambda: nn.GRUCell(4, 5), mk((3, 4), seed=2), hx=mk((3, 5), seed=4))
run_case("grucell_unbatched_nobias", lambda: nn.GRUCell(3, 4, bias=False), mk((3,), seed=6))

# --- printed forms and state_dict keys ------------------------------------------------
REPRS = {
    "rnn": nn.RNN(10, 20),
    "rnn_relu": nn.RNN(10, 20, nonlinearity="relu"),
    "lstm": nn.LSTM(10, 20, num_layers=2),
    "lstm_all": nn.LSTM(10, 20, num_layers=3, bias=False, batch_first=True, dropout=0.25,
                        bidirectional=True, proj_size=5),
    "gru": nn.GRU(3, 4, dropout=0.5, num_layers=2),
    "rnncell": nn.RNNCell(3, 4),
    "rnncell_relu": nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
    "lstmcell": nn.LSTMCell(3, 4, bias=False),
    "grucell": nn.GRUCell(3, 4),
}
for name, m in REPRS.items():
    strings.add("repr." + name, repr(m))
STATE_DICTS = {
    "lstm_proj_bidirectional": nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3),
    "lstm_proj_nobias": nn.LSTM(3, 5, bias=False, proj_size=2),
    "gru_bidirectional": nn.GRU(3, 4, bidirectional=True),
    "rnn_nobias": nn.RNN(3, 4, num_layers=2, bias=False),
    "lstmcell": nn.LSTMCell(3, 4),
    "grucell_nobias": nn.GRUCell(3, 4, bias=False),
}
for name, m in STATE_DICTS.items():
    strings.add("state_dict." + name, "\n".join(m.state_dict().keys()))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.LSTM(3, 4, dropout=0.5)
strings.add("warning.dropout", str(caught[0].message))

# --- errors ---------------------------------------------------------------------------
rnn = nn.RNN(4, 5)
errors.err("rnn.input_size", lambda: rnn(mk((2, 3, 3))))
errors.err("rnn.input_size_unbatched", lambda: rnn(mk((2, 3))))
errors.err("rnn.input_1d", lambda: rnn(mk((4,))))
errors.err("rnn.input_4d", lambda: rnn(mk((2, 3, 1, 4))))
errors.err("rnn.hidden_size", lambda: nn.RNN(3, 5)(mk((2, 3, 3)), torch.zeros(2, 3, 5)))
errors.err("rnn.hidden_size_batch_first",
           lambda: nn.RNN(3, 5, batch_first=True, bidirectional=True)(mk((2, 3, 3)),
                                                                       torch.zeros(2, 3, 5)))
errors.err("rnn.hx_2d_batched", lambda: rnn(mk((2, 3, 4)), torch.zeros(3, 5)))
errors.err("rnn.hx_3d_unbatched", lambda: rnn(mk((2, 4)), torch.zeros(1, 1, 5)))
errors.err("rnn.empty_sequence", lambda: rnn(torch.zeros(0, 2, 4)))
errors.err("gru.hidden_size", lambda: nn.GRU(3, 5, num_layers=2)(mk((2, 3, 3)), torch.zeros(2, 2, 5)))
lstm = nn.LSTM(3, 5, num_layers=2)
errors.err("lstm.input_size", lambda: lstm(mk((2, 3, 4))))
errors.err("lstm.hidden0_size", lambda: lstm(mk((2, 3, 3)), (torch.zeros(2, 3, 4),
                                                             torch.zeros(2, 3, 5))))
errors.err("lstm.hidden1_size", lambda: lstm(mk((2, 3, 3)), (torch.zeros(2, 3, 5),
                                                             torch.zeros(1, 3, 5))))
errors.err("lstm.proj_hidden0_size",
           lambda: nn.LSTM(3, 5, proj_size=2)(mk((2, 3, 3)), (torch.zeros(1, 3, 5),
                                                              torch.zeros(1, 3, 5))))
errors.err("lstm.hx_batched", lambda: lstm(mk((2, 3, 3)), (torch.zeros(2, 3, 5),
                                                           torch.zeros(3, 5))))
errors.err("lstm.hx_unbatched", lambda: lstm(mk((2, 3)), (torch.zeros(2, 5),
                                                          torch.zeros(2, 1, 5))))
errors.err("lstm.input_1d", lambda: lstm(mk((3,))))
errors.err("options.dropout_range", lambda: nn.GRU(3, 4, dropout=1.5))
errors.err("options.dropout_negative", lambda: nn.RNN(3, 4, dropout=-0.1))
errors.err("options.proj_negative", lambda: nn.LSTM(3, 4, proj_size=-1))
errors.err("options.proj_too_big", lambda: nn.LSTM(3, 4, proj_size=4))
errors.err("rnncell.input_3d", lambda: nn.RNNCell(3, 4)(mk((1, 2, 3))))
errors.err("lstmcell.input_3d", lambda: nn.LSTMCell(3, 4)(mk((1, 2, 3))))
errors.err("grucell.input_3d", lambda: nn.GRUCell(3, 4)(mk((1, 2, 3))))
errors.err("rnncell.input_size", lambda: nn.RNNCell(4, 5)(mk((2, 3))))
errors.err("rnncell.hidden_batch", lambda: nn.RNNCell(3, 5)(mk((2, 3)), torch.zeros(3, 5)))
errors.err("rnncell.hidden_size", lambda: nn.RNNCell(3, 5)(mk((2, 3)), torch.zeros(2, 4)))
errors.err("lstmcell.input_size", lambda: nn.LSTMCell(4, 5)(mk((2, 3))))
errors.err("lstmcell.hidden0_size", lambda: nn.LSTMCell(3, 5)(mk((2, 3)), (torch.zeros(2, 4),
                                                                           torch.zeros(2, 5))))
errors.err("lstmcell.hidden1_batch", lambda: nn.LSTMCell(3, 5)(mk((2, 3)), (torch.zeros(2, 5),
                                                                            torch.zeros(1, 5))))
errors.err("grucell.input_size", lambda: nn.GRUCell(4, 5)(mk((3,))))
errors.err("grucell.hidden_size", lambda: nn.GRUCell(3, 5)(mk((3,)), torch.zeros(4)))

g.write()
errors.write()
strings.write()
