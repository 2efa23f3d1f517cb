#ifndef EMBER_NN_RNN_H_
#define EMBER_NN_RNN_H_

// RNN, LSTM and GRU: multi-layer recurrences over a sequence, with
// torch.nn's semantics (PyTorch 1.13) in libtorch's spelling.
//
//   nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).bidirectional(true));
//   auto [output, state] = lstm(x);           // x: (T, N, 10)
//   auto [h_n, c_n] = state;                  // (num_layers * 2, N, 20) each
//   nn::GRU gru(nn::GRUOptions(10, 20).batch_first(true));
//   auto [out, h_n] = gru(x, h0);             // x: (N, T, 10)
//
// input (T, N, input_size), (N, T, input_size) with batch_first, or an
// unbatched (T, input_size); output (T, N, num_directions * H_out), where
// H_out is hidden_size (proj_size for a projected LSTM), with the reverse
// direction's outputs after the forward's; h_n (num_layers * num_directions,
// N, H_out) ordered layer by layer, forward before reverse; an LSTM's c_n
// likewise with hidden_size. Initial states default to zeros.
//
// Parameters per layer k and direction (suffix "_reverse" for the
// reverse one), registered in PyTorch's order so that a state_dict saved by
// PyTorch loads as is: weight_ih_l{k} (gates * hidden_size, input size of
// the layer), weight_hh_l{k} (gates * hidden_size, H_out), bias_ih_l{k},
// bias_hh_l{k} (with bias), weight_hr_l{k} (proj_size, hidden_size; LSTM
// with proj_size > 0). Gates in PyTorch's order: LSTM i, f, g, o; GRU r, z,
// n. Every parameter is drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
// in that order, as PyTorch does.
//
// With dropout > 0, each layer's output but the last goes through dropout
// in training mode (PyTorch warns on stderr when num_layers is 1, where it
// does nothing). The input projection of every time step is one matmul per
// layer and direction (Note [Precomputed input gates] in nn/rnn_step.h).
// forward_with_packed_input runs a PackedSequence (nn/utils/rnn.h): each
// sequence stops at its own length, and h_n (c_n) holds each one's state
// after its last step, in the input's batch order (Note [Packed steps] in
// rnn_step.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "nn/rnn_cell.h"
#include "nn/rnn_step.h"
#include "nn/utils/rnn.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace detail {

// What RNN, LSTM and GRU share (libtorch's detail::RNNOptionsBase).
struct RNNOptionsBase {
  RNNOptionsBase(RNNMode mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(RNNMode, mode);
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

}  // namespace detail

struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(RNNNonlinearity, nonlinearity) = kTanh;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

// The parameters, checks and layer loop RNN, LSTM and GRU share.
class RNNImplBase : public Module {
 public:
  // ValueError for a dropout outside [0, 1] or a proj_size that is negative
  // or not below hidden_size, with PyTorch's messages.
  explicit RNNImplBase(const detail::RNNOptionsBase& options_base);

  // Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  // The parameters in PyTorch's order (its _flat_weights).
  std::vector<Tensor> flat_weights() const;
  // One list per layer and direction: weight_ih, weight_hh[, bias_ih,
  // bias_hh][, weight_hr] (PyTorch's all_weights).
  std::vector<std::vector<Tensor>> all_weights() const;
  // "10, 20, num_layers=2": the options that differ from the defaults.
  std::string extra_repr() const override;

  detail::RNNOptionsBase options_base;

 protected:
  using Final = detail::RNNResult;
  // detail::stacked_rnn with this module's weights and options: over a
  // time-major 3-D input, or packed data with its batch_sizes.
  Final run(const Tensor& input, const Tensor& h0, const Tensor& c0,
            const std::optional<std::vector<int64_t>>& batch_sizes = std::nullopt);
  struct Packed {
    utils::rnn::PackedSequence output;
    Tensor h_n;
    Tensor c_n;  // LSTM only
  };
  // forward_with_packed_input: PyTorch's checks and state permutations
  // around run; h0 (and c0) undefined: zeros.
  Packed run_packed_input(const utils::rnn::PackedSequence& input, Tensor h0, Tensor c0);
  // RNN's and GRU's forward: PyTorch's unbatched handling and checks, then run().
  std::tuple<Tensor, Tensor> forward_hidden(const Tensor& input, Tensor hx);

  int64_t num_directions() const { return options_base.bidirectional() ? 2 : 1; }
  // proj_size when projecting, else hidden_size.
  int64_t real_hidden_size() const;
  // PyTorch's check_input: a 3-D input (2-D packed data) of input_size
  // features.
  void check_input(const Tensor& input, int64_t expected_dim = 3) const;
  // (num_layers * num_directions, N, size) for a time- or batch-major 3-D input.
  std::vector<int64_t> expected_state_size(const Tensor& input, int64_t size) const;
  static void check_hidden_size(const Tensor& hx, const std::vector<int64_t>& expected,
                                const char* what);

 private:
  using LayerWeights = detail::RNNLayerWeights;
  std::vector<LayerWeights> weights_;  // [layer * num_directions + direction]
};

class RNNImpl : public RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);

  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;
};
EMBER_MODULE(RNN);

class LSTMImpl : public RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);

  // (output, (h_n, c_n)); hx_opt: (h_0, c_0).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

class GRUImpl : public RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);

  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;
};
EMBER_MODULE(GRU);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_RNN_H_
