#ifndef EMBER_NN_RNN_STEP_H_
#define EMBER_NN_RNN_STEP_H_

// One time step of each recurrence, shared by the cells (nn/rnn_cell.h) and
// the layers (nn/rnn.h). Note [Precomputed input gates]: a step takes
// gi = x W_ih^T + b_ih already computed, so that a layer projects all its
// time steps in one matmul and only h W_hh^T + b_hh is left per step, as
// PyTorch 1.13's CPU RNN does; a cell computes gi itself first. The math and
// its order are ATen's (RNN.cpp), written with differentiable ops:
//   RNN   h' = act(hh + gi)
//   LSTM  i, f, g, o = chunk(hh + gi, 4); c' = f * c + i * g;
//         h' = o * tanh(c'), then h' W_hr^T with a projection
//   GRU   r = sigmoid(hr + ir); z = sigmoid(hz + iz);
//         n = tanh(in + r * hn); h' = (h - n) * z + n
// where hh = h W_hh^T + b_hh (b_hh undefined without bias).

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace detail {

// Which recurrence runs (PyTorch's mode string).
enum class RNNMode { kRNN_TANH, kRNN_RELU, kLSTM, kGRU };

// The weights of one layer and direction; undefined when absent (no bias,
// no projection).
struct RNNLayerWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

struct RNNResult {
  Tensor output;
  Tensor h_n;
  Tensor c_n;  // LSTM only
};

// h W_hh^T + b_hh.
Tensor hidden_gates(const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);

Tensor rnn_tanh_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
Tensor rnn_relu_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
// (h', c'); w_hr undefined without a projection.
std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr);
Tensor gru_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);

// The stacked recurrence the layers (nn/rnn.h) and the functional entry
// points (nn/rnn_functional.h) share: num_layers layers of one or two
// directions, weights[layer * directions + direction], from the states h0
// (and c0 for an LSTM), each (num_layers * directions, N, .), with dropout
// between layers when train and dropout != 0. Without batch_sizes, input is
// time-major (T, N, F); with them, packed data (sum(batch_sizes), F) (Note
// [Packed steps] in rnn_step.cc). The output has the input's layout with
// num_directions * H_out features; h_n (c_n) are in the packed (sorted)
// batch order. The nodes recorded are 1.13's: a time-major direction stacks
// its steps, packed data concatenates them, two directions are concatenated
// on the last dimension. The caller checks that weights, states and layers
// agree.
RNNResult stacked_rnn(RNNMode mode, const Tensor& input,
                      const std::optional<std::vector<int64_t>>& batch_sizes, const Tensor& h0,
                      const Tensor& c0, const std::vector<RNNLayerWeights>& weights,
                      int64_t num_layers, bool bidirectional, double dropout, bool train);

}  // namespace detail
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_RNN_STEP_H_
