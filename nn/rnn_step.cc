#include "nn/rnn_step.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_join.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "tensor/iterator.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace detail {

Tensor hidden_gates(const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return functional::linear(h, w_hh, b_hh);
}

namespace {

// hh + gi. ATen adds the input gates into the hidden gates in place
// (hh.add_(gi)), so a state whose batch broadcasts against the input's
// (one row for many) is an error there, not a broadcast: the same here.
Tensor add_gates(const Tensor& hh, const Tensor& gi) {
  const DimVector shape = infer_size(hh.sizes(), gi.sizes());
  EMBER_CHECK(IntArrayRef(shape) == hh.sizes(), "output with shape [",
              absl::StrJoin(hh.sizes(), ", "), "] doesn't match the broadcast shape [",
              absl::StrJoin(shape, ", "), "]");
  return hh + gi;
}

}  // namespace

Tensor rnn_tanh_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return add_gates(hidden_gates(h, w_hh, b_hh), gi).tanh();
}

Tensor rnn_relu_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return add_gates(hidden_gates(h, w_hh, b_hh), gi).relu();
}

std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr) {
  const std::vector<Tensor> gates = add_gates(hidden_gates(h, w_hh, b_hh), gi).unsafe_chunk(4, 1);
  const Tensor in_gate = gates[0].sigmoid();
  const Tensor forget_gate = gates[1].sigmoid();
  const Tensor cell_gate = gates[2].tanh();
  const Tensor out_gate = gates[3].sigmoid();
  Tensor c_next = forget_gate * c + in_gate * cell_gate;
  Tensor h_next = out_gate * c_next.tanh();
  if (w_hr.defined()) h_next = h_next.matmul(w_hr.t());
  return {h_next, c_next};
}

Tensor gru_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  const std::vector<Tensor> ig = gi.unsafe_chunk(3, 1);
  const std::vector<Tensor> hg = hidden_gates(h, w_hh, b_hh).unsafe_chunk(3, 1);
  const Tensor reset_gate = add_gates(hg[0], ig[0]).sigmoid();
  const Tensor update_gate = add_gates(hg[1], ig[1]).sigmoid();
  const Tensor new_gate = (ig[2] + hg[2] * reset_gate).tanh();
  return (h - new_gate) * update_gate + new_gate;
}

namespace {

// One recurrence step of `mode` for the rows in h (and c).
void step(RNNMode mode, const Tensor& gi, Tensor& h, Tensor& c, const RNNLayerWeights& w) {
  switch (mode) {
    case RNNMode::kRNN_TANH:
      h = rnn_tanh_step(gi, h, w.w_hh, w.b_hh);
      break;
    case RNNMode::kRNN_RELU:
      h = rnn_relu_step(gi, h, w.w_hh, w.b_hh);
      break;
    case RNNMode::kLSTM:
      std::tie(h, c) = lstm_step(gi, h, c, w.w_hh, w.b_hh, w.w_hr);
      break;
    case RNNMode::kGRU:
      h = gru_step(gi, h, w.w_hh, w.b_hh);
      break;
  }
}

// The first `rows` rows of a state (undefined stays undefined).
Tensor head(const Tensor& state, int64_t rows) {
  return !state.defined() || state.size(0) == rows ? state : state.narrow(0, 0, rows);
}

// state with rows [state.size(0), rows) of initial appended.
Tensor grow(const Tensor& state, const Tensor& initial, int64_t rows) {
  if (!state.defined() || state.size(0) == rows) return state;
  return cat({state, initial.narrow(0, state.size(0), rows - state.size(0))}, 0);
}

struct Direction {
  Tensor output, h_n, c_n;
};

// One direction of one layer. Note [Packed steps]: packed data runs time
// step t as batch_sizes[t] rows after step t - 1's, the longest sequences
// first. A forward direction narrows its state to the rows still running
// before each step and keeps the rows that ended for h_n; a reverse
// direction starts at the last step and appends each sequence's initial
// state where it begins, as PyTorch's packed RNNs do. A time-major input
// runs every row at every step.
Direction run_direction(RNNMode mode, const Tensor& input, const std::vector<int64_t>& batch_sizes,
                        bool packed, const Tensor& h_init, const Tensor& c_init,
                        const RNNLayerWeights& w, bool reverse) {
  const int64_t steps = static_cast<int64_t>(batch_sizes.size());
  // Note [Precomputed input gates]: one matmul for every time step.
  const Tensor gi = functional::linear(input, w.w_ih, w.b_ih);
  std::vector<int64_t> offsets(steps, 0);
  for (int64_t t = 1; t < steps; ++t) offsets[t] = offsets[t - 1] + batch_sizes[t - 1];
  // ATen narrows a packed reverse direction's states to the sequences
  // running at the last step; every other direction starts from the states
  // as given (a wrong batch fails on the first step's gates).
  const bool narrow_first = packed && reverse;
  Tensor h = narrow_first ? head(h_init, batch_sizes[steps - 1]) : h_init;
  Tensor c = narrow_first ? head(c_init, batch_sizes[steps - 1]) : c_init;
  int64_t last = batch_sizes[reverse ? steps - 1 : 0];
  std::vector<Tensor> outputs(steps), ended_h, ended_c;
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    const int64_t rows = batch_sizes[t];
    if (packed && reverse) {
      h = grow(h, h_init, rows);
      c = grow(c, c_init, rows);
    } else if (packed && rows < last) {
      ended_h.push_back(h.narrow(0, rows, last - rows));
      if (c.defined()) ended_c.push_back(c.narrow(0, rows, last - rows));
      h = h.narrow(0, 0, rows);
      if (c.defined()) c = c.narrow(0, 0, rows);
    }
    last = rows;
    step(mode, packed ? gi.narrow(0, offsets[t], rows) : gi.select(0, t), h, c, w);
    outputs[t] = h;
  }
  // A packed forward direction's final states: the rows that ended last
  // come first (batch order), concatenated as 1.13 does even when no row
  // ended early.
  auto finals = [&](Tensor state, std::vector<Tensor> ended) {
    if (!packed || reverse) return state;
    ended.push_back(std::move(state));
    std::reverse(ended.begin(), ended.end());
    return cat(ended, 0);
  };
  Direction d;
  d.output = packed ? cat(outputs, 0) : stack(outputs, 0);
  d.h_n = finals(h, ended_h);
  if (c.defined()) d.c_n = finals(c, ended_c);
  return d;
}

}  // namespace

RNNResult stacked_rnn(RNNMode mode, const Tensor& input,
                      const std::optional<std::vector<int64_t>>& batch_sizes, const Tensor& h0,
                      const Tensor& c0, const std::vector<RNNLayerWeights>& weights,
                      int64_t num_layers, bool bidirectional, double dropout, bool train) {
  const bool packed = batch_sizes.has_value();
  // A time-major input is the packing with batch sizes N, ..., N.
  const std::vector<int64_t> sizes =
      packed ? *batch_sizes : std::vector<int64_t>(input.size(0), input.size(1));
  EMBER_CHECK(!sizes.empty(), "Expected sequence length to be larger than 0 in RNN");
  const int64_t dirs = bidirectional ? 2 : 1;
  const bool lstm = mode == RNNMode::kLSTM;
  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = input;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < dirs; ++direction) {
      const int64_t index = layer * dirs + direction;
      Direction d = run_direction(mode, layer_input, sizes, packed, h0.select(0, index),
                                  lstm ? c0.select(0, index) : Tensor(), weights[index],
                                  /*reverse=*/direction == 1);
      outputs.push_back(d.output);
      h_n.push_back(d.h_n);
      if (lstm) c_n.push_back(d.c_n);
    }
    layer_input = dirs == 1 ? outputs[0] : cat(outputs, outputs[0].dim() - 1);
    if (dropout != 0 && train && layer < num_layers - 1) {
      // ATen's dropout(input, p, train=true), with its RuntimeError.
      EMBER_CHECK(dropout >= 0 && dropout <= 1,
                  "dropout probability has to be between 0 and 1, but got ", dropout);
      layer_input = functional::dropout(layer_input,
                                        functional::DropoutFuncOptions().p(dropout).training(true));
    }
  }
  RNNResult result;
  result.output = layer_input;
  result.h_n = stack(h_n, 0);
  if (lstm) result.c_n = stack(c_n, 0);
  return result;
}

}  // namespace detail
}  // namespace nn
}  // namespace ember
