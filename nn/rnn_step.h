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

#include <tuple>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace detail {

// h W_hh^T + b_hh.
Tensor hidden_gates(const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);

Tensor rnn_tanh_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
Tensor rnn_relu_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);
// (h', c'); w_hr undefined without a projection.
std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr);
Tensor gru_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh);

}  // namespace detail
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_RNN_STEP_H_
