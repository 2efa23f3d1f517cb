#ifndef EMBER_NN_RNN_FUNCTIONAL_H_
#define EMBER_NN_RNN_FUNCTIONAL_H_

// libtorch's functional recurrences (ATen's lstm, gru, rnn_tanh, rnn_relu
// and their cells; PyTorch 1.13's signatures and semantics), over weights
// the caller owns:
//
//   auto [h1, c1] = ember::lstm_cell(x, {h0, c0}, w_ih, w_hh, b_ih, b_hh);
//   auto [out, h_n, c_n] = ember::lstm(x, {h0, c0}, lstm_module->flat_weights(),
//                                      /*has_biases=*/true, /*num_layers=*/2,
//                                      /*dropout=*/0.0, /*train=*/false,
//                                      /*bidirectional=*/false, /*batch_first=*/false);
//
// Cells take a batched 2-D input (N, input_size) and states (N, hidden_size)
// (a 1-D input is an IndexError, as in ATen; nn::RNNCell and friends accept
// unbatched input); the biases are optional.
//
// The layers take a 3-D input (T, N, F) ((N, T, F) with batch_first), or
// packed data (sum(batch_sizes), F) with batch_sizes a CPU int64 tensor
// (the packed overloads; no batch_first). hx (an LSTM's {h0, c0}) is
// (num_layers * num_directions, N, H_out); params is the flat list in
// PyTorch's order, per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]
// (nn::RNNImplBase::flat_weights()). An LSTM projects (w_hr) when h0 and c0
// differ in their last size, as ATen infers it. dropout applies between
// layers only when train. Results: (output, h_n) and an LSTM's c_n, with
// ATen's errors for a wrong hx count, params count or layer count. The
// recurrence is the layers' (nn::detail::stacked_rnn, nn/rnn_step.h); every
// step is a device op, so CUDA tensors stay on the device.

#include <cstdint>
#include <optional>
#include <tuple>

#include "tensor/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const std::optional<Tensor>& b_ih = {},
                                     const std::optional<Tensor>& b_hh = {});
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih = {}, const std::optional<Tensor>& b_hh = {});
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = {},
                     const std::optional<Tensor>& b_hh = {});
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = {},
                     const std::optional<Tensor>& b_hh = {});

// (output, h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params,
                                        bool has_biases, int64_t num_layers, double dropout,
                                        bool train, bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes,
                                        TensorList hx, TensorList params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional);

// (output, h_n).
std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, TensorList params,
                               bool has_biases, int64_t num_layers, double dropout, bool train,
                               bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> gru(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               TensorList params, bool has_biases, int64_t num_layers,
                               double dropout, bool train, bool bidirectional);
std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional);
std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> rnn_relu(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional);

}  // namespace ember

#endif  // EMBER_NN_RNN_FUNCTIONAL_H_
