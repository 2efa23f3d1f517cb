#include "nn/rnn_functional.h"

#include <string>
#include <vector>

#include "nn/functional/linear.h"
#include "nn/rnn_step.h"
#include "tensor/dtype.h"

namespace ember {
namespace {

using nn::detail::RNNLayerWeights;
using nn::detail::RNNMode;

Tensor value_or_undefined(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

// ATen's check_rnn_cell_forward_input and check_rnn_cell_forward_hidden
// (every state labelled "hidden0", as 1.13's lstm_cell does). A 1-D input
// fails on input.size(1) with the IndexError 1.13 raises.
void check_cell(const Tensor& input, const Tensor& w_ih, const Tensor& w_hh, TensorList states) {
  const int64_t input_size = w_ih.size(1);
  EMBER_CHECK(input.size(1) == input_size, "input has inconsistent input_size: got ", input.size(1),
              " expected ", input_size);
  const int64_t hidden_size = w_hh.size(1);
  for (const Tensor& hx : states) {
    EMBER_CHECK(input.size(0) == hx.size(0), "Input batch size ", input.size(0),
                " doesn't match hidden0 batch size ", hx.size(0));
    EMBER_CHECK(hx.size(1) == hidden_size, "hidden0 has inconsistent hidden_size: got ", hx.size(1),
                ", expected ", hidden_size);
  }
}

// The cells without an LSTM's second state.
Tensor one_state_cell(RNNMode mode, const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                      const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                      const std::optional<Tensor>& b_hh) {
  check_cell(input, w_ih, w_hh, {hx});
  const Tensor gi = nn::functional::linear(input, w_ih, value_or_undefined(b_ih));
  const Tensor bias_hh = value_or_undefined(b_hh);
  switch (mode) {
    case RNNMode::kRNN_TANH:
      return nn::detail::rnn_tanh_step(gi, hx, w_hh, bias_hh);
    case RNNMode::kRNN_RELU:
      return nn::detail::rnn_relu_step(gi, hx, w_hh, bias_hh);
    default:
      return nn::detail::gru_step(gi, hx, w_hh, bias_hh);
  }
}

// ATen's gather_params: the flat list as per-layer weights.
std::vector<RNNLayerWeights> gather_params(TensorList params, bool has_biases,
                                           bool has_projections) {
  const size_t stride = (has_biases ? 4 : 2) + (has_projections ? 1 : 0);
  EMBER_CHECK(params.size() % stride == 0, "got an incorrect number of RNN parameters");
  std::vector<RNNLayerWeights> weights;
  for (size_t i = 0; i < params.size(); i += stride) {
    RNNLayerWeights w;
    w.w_ih = params[i];
    w.w_hh = params[i + 1];
    if (has_biases) {
      w.b_ih = params[i + 2];
      w.b_hh = params[i + 3];
    }
    if (has_projections) w.w_hr = params[i + stride - 1];
    weights.push_back(std::move(w));
  }
  return weights;
}

// ATen's check_attributes: every state and parameter on the input's device.
void check_devices(const Tensor& input, TensorList params, TensorList hiddens) {
  auto check = [&](const char* name, const Tensor& t) {
    if (!t.defined()) return;
    EMBER_CHECK(input.device() == t.device(), "Input and ", name,
                " tensors are not at the same device, found input tensor at ", input.device().str(),
                " and ", name, " tensor at ", t.device().str());
  };
  for (const Tensor& h : hiddens) check("hidden", h);
  for (const Tensor& p : params) check("parameter", p);
}

// ATen's _rnn_impl and apply_layer_stack: as many states (hx.size(0)) and
// weights as layers, pairs of them when bidirectional.
void check_layers(int64_t states, size_t weights, int64_t num_layers, bool bidirectional) {
  int64_t w = static_cast<int64_t>(weights);
  if (bidirectional) {
    EMBER_CHECK(states % 2 == 0 && w % 2 == 0,
                "Odd number of params or hiddens given to a bidirectional RNN");
    states /= 2;
    w /= 2;
  }
  EMBER_CHECK(num_layers == states, "Expected more hidden states in stacked_rnn");
  EMBER_CHECK(num_layers == w, "Expected more weights in stacked_rnn");
}

// A packed sequence's batch sizes (ATen reads batch_sizes.size(0) int64s).
std::vector<int64_t> read_batch_sizes(const Tensor& batch_sizes) {
  EMBER_CHECK(batch_sizes.dtype() == kLong, "expected scalar type Long but found ",
              scalar_type_name(batch_sizes.dtype()));
  const int64_t steps = batch_sizes.size(0);
  const Tensor sizes = batch_sizes.to(Device(kCPU)).contiguous();
  const int64_t* p = sizes.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + steps);
}

// rnn_tanh, rnn_relu and gru, time-major or packed.
std::tuple<Tensor, Tensor> one_state_rnn(RNNMode mode, const Tensor& input,
                                         const std::optional<std::vector<int64_t>>& batch_sizes,
                                         const Tensor& hx, TensorList params, bool has_biases,
                                         int64_t num_layers, double dropout, bool train,
                                         bool bidirectional) {
  check_devices(input, params, {hx});
  const std::vector<RNNLayerWeights> weights = gather_params(params, has_biases, false);
  check_layers(hx.size(0), weights.size(), num_layers, bidirectional);
  nn::detail::RNNResult r = nn::detail::stacked_rnn(mode, input, batch_sizes, hx, Tensor(), weights,
                                                    num_layers, bidirectional, dropout, train);
  return {r.output, r.h_n};
}

std::tuple<Tensor, Tensor, Tensor> lstm_impl(const Tensor& input,
                                             const std::optional<std::vector<int64_t>>& batch_sizes,
                                             TensorList hx, TensorList params, bool has_biases,
                                             int64_t num_layers, double dropout, bool train,
                                             bool bidirectional) {
  EMBER_CHECK(hx.size() == 2, "lstm expects two hidden states");
  // ATen infers the projection from the states: h0 has proj_size features.
  const bool has_projections = hx[0].size(2) != hx[1].size(2);
  check_devices(input, params, hx);
  const std::vector<RNNLayerWeights> weights = gather_params(params, has_biases, has_projections);
  // 1.13 pairs hx[0]'s layers with hx[1]'s without checking (and reads
  // past hx[1] when it has fewer): an error here.
  EMBER_CHECK(hx[1].size(0) >= hx[0].size(0), "lstm: hx[1] has fewer layers (", hx[1].size(0),
              ") than hx[0] (", hx[0].size(0), ")");
  check_layers(hx[0].size(0), weights.size(), num_layers, bidirectional);
  nn::detail::RNNResult r =
      nn::detail::stacked_rnn(RNNMode::kLSTM, input, batch_sizes, hx[0], hx[1], weights, num_layers,
                              bidirectional, dropout, train);
  return {r.output, r.h_n, r.c_n};
}

}  // namespace

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                     const std::optional<Tensor>& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell expects two hidden states");
  check_cell(input, w_ih, w_hh, hx);
  const Tensor gi = nn::functional::linear(input, w_ih, value_or_undefined(b_ih));
  return nn::detail::lstm_step(gi, hx[0], hx[1], w_hh, value_or_undefined(b_hh), Tensor());
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return one_state_cell(RNNMode::kGRU, input, hx, w_ih, w_hh, b_ih, b_hh);
}

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return one_state_cell(RNNMode::kRNN_TANH, input, hx, w_ih, w_hh, b_ih, b_hh);
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return one_state_cell(RNNMode::kRNN_RELU, input, hx, w_ih, w_hh, b_ih, b_hh);
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params,
                                        bool has_biases, int64_t num_layers, double dropout,
                                        bool train, bool bidirectional, bool batch_first) {
  auto [output, h_n, c_n] =
      lstm_impl(batch_first ? input.transpose(0, 1) : input, std::nullopt, hx, params, has_biases,
                num_layers, dropout, train, bidirectional);
  if (batch_first) output = output.transpose(0, 1);
  return {output, h_n, c_n};
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes,
                                        TensorList hx, TensorList params, bool has_biases,
                                        int64_t num_layers, double dropout, bool train,
                                        bool bidirectional) {
  EMBER_CHECK(hx.size() == 2, "lstm expects two hidden states");
  return lstm_impl(data, read_batch_sizes(batch_sizes), hx, params, has_biases, num_layers, dropout,
                   train, bidirectional);
}

namespace {

// The time-major entry point of rnn_tanh, rnn_relu and gru. ATen
// transposes their output back in place (TransposeBackward1).
std::tuple<Tensor, Tensor> one_state_layers(RNNMode mode, const Tensor& input, const Tensor& hx,
                                            TensorList params, bool has_biases, int64_t num_layers,
                                            double dropout, bool train, bool bidirectional,
                                            bool batch_first) {
  auto [output, h_n] =
      one_state_rnn(mode, batch_first ? input.transpose(0, 1) : input, std::nullopt, hx, params,
                    has_biases, num_layers, dropout, train, bidirectional);
  if (batch_first) output.transpose_(0, 1);
  return {output, h_n};
}

std::tuple<Tensor, Tensor> one_state_packed(RNNMode mode, const Tensor& data,
                                            const Tensor& batch_sizes, const Tensor& hx,
                                            TensorList params, bool has_biases, int64_t num_layers,
                                            double dropout, bool train, bool bidirectional) {
  return one_state_rnn(mode, data, read_batch_sizes(batch_sizes), hx, params, has_biases,
                       num_layers, dropout, train, bidirectional);
}

}  // namespace

std::tuple<Tensor, Tensor> gru(const Tensor& input, const Tensor& hx, TensorList params,
                               bool has_biases, int64_t num_layers, double dropout, bool train,
                               bool bidirectional, bool batch_first) {
  return one_state_layers(RNNMode::kGRU, input, hx, params, has_biases, num_layers, dropout, train,
                          bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> gru(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               TensorList params, bool has_biases, int64_t num_layers,
                               double dropout, bool train, bool bidirectional) {
  return one_state_packed(RNNMode::kGRU, data, batch_sizes, hx, params, has_biases, num_layers,
                          dropout, train, bidirectional);
}

std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return one_state_layers(RNNMode::kRNN_TANH, input, hx, params, has_biases, num_layers, dropout,
                          train, bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> rnn_tanh(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional) {
  return one_state_packed(RNNMode::kRNN_TANH, data, batch_sizes, hx, params, has_biases, num_layers,
                          dropout, train, bidirectional);
}

std::tuple<Tensor, Tensor> rnn_relu(const Tensor& input, const Tensor& hx, TensorList params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                    bool bidirectional, bool batch_first) {
  return one_state_layers(RNNMode::kRNN_RELU, input, hx, params, has_biases, num_layers, dropout,
                          train, bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> rnn_relu(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    TensorList params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional) {
  return one_state_packed(RNNMode::kRNN_RELU, data, batch_sizes, hx, params, has_biases, num_layers,
                          dropout, train, bidirectional);
}

}  // namespace ember
