#ifndef EMBER_NN_RNN_CELL_H_
#define EMBER_NN_RNN_CELL_H_

// RNNCell, LSTMCell and GRUCell: one time step of torch.nn's recurrences,
// in libtorch's spelling.
//
//   nn::LSTMCell cell(nn::LSTMCellOptions(10, 20));
//   auto [h, c] = cell(x);                         // zero state
//   std::tie(h, c) = cell(x, std::make_tuple(h, c));
//   nn::RNNCell relu(nn::RNNCellOptions(10, 20).nonlinearity(ember::kReLU));
//
// input (N, input_size) or unbatched (input_size); the state (N, hidden_size)
// or (hidden_size) to match, zeros when not given. Parameters weight_ih
// (chunks * hidden_size, input_size), weight_hh (chunks * hidden_size,
// hidden_size), bias_ih and bias_hh (chunks * hidden_size), gates in
// PyTorch's order (LSTM i, f, g, o; GRU r, z, n), all drawn from
// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in that order, so that
// manual_seed gives PyTorch's values and PyTorch's state_dict loads as is.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "nn/functional/options.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {

// An Elman RNN's nonlinearity: libtorch's torch::kTanh / torch::kReLU.
// (libtorch gives each its own type and takes a variant; one enum is enough
// for the two that RNN accepts.)
enum class RNNNonlinearity { kTanh, kReLU };
inline constexpr RNNNonlinearity kTanh = RNNNonlinearity::kTanh;
inline constexpr RNNNonlinearity kReLU = RNNNonlinearity::kReLU;
// "tanh" / "relu", as PyTorch spells it.
const char* nonlinearity_name(RNNNonlinearity n);

namespace nn {
namespace detail {

// What the cells share (libtorch's detail::RNNCellOptionsBase).
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);
};

}  // namespace detail

struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(RNNNonlinearity, nonlinearity) = kTanh;
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

// The parameters, their initialization and the checks the three cells share.
class RNNCellImplBase : public Module {
 public:
  explicit RNNCellImplBase(const detail::RNNCellOptionsBase& options_base);

  // Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  std::string extra_repr() const override;

  detail::RNNCellOptionsBase options_base;
  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;  // undefined with bias(false)
  Tensor bias_hh;  // undefined with bias(false)

 protected:
  // PyTorch's assertion that the input is 1-D or 2-D ("RNNCell: Expected
  // input to be 1-D or 2-D but received 3-D tensor").
  static void check_input_dim(const Tensor& input, const char* cell);
  // ATen's checks of a batched input and of state `index` (0: h, 1: c) of it.
  void check_forward_input(const Tensor& input) const;
  void check_forward_hidden(const Tensor& input, const Tensor& hx, int index) const;
  // The state as a batched (N, hidden_size) tensor: hx given (unsqueezed
  // when the input was unbatched) or zeros like the input.
  Tensor batched_state(const Tensor& hx, const Tensor& input, bool batched) const;
  // x W_ih^T + b_ih.
  Tensor input_gates(const Tensor& input) const;
  // RNNCell's and GRUCell's forward: the checks and unbatched handling
  // around step(input_gates(x), h) on the batched input x and state h.
  Tensor forward_hidden(const Tensor& input, Tensor hx, const char* cell,
                        const std::function<Tensor(const Tensor&, const Tensor&)>& step) const;
  // Python appends ", nonlinearity=..." for RNNCell only.
  virtual std::string nonlinearity_repr() const { return ""; }
};

class RNNCellImpl : public RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);

  // h' of shape (N, hidden_size), or (hidden_size) for an unbatched input.
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;

 protected:
  std::string nonlinearity_repr() const override;
};
EMBER_MODULE(RNNCell);

class LSTMCellImpl : public RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);

  // (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

class GRUCellImpl : public RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);

  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_RNN_CELL_H_
