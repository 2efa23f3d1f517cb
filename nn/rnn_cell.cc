#include "nn/rnn_cell.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nn/functional/linear.h"
#include "nn/init.h"
#include "nn/options.h"
#include "nn/rnn_step.h"
#include "tensor/creation.h"
#include "tensor/empty.h"

namespace ember {

const char* nonlinearity_name(RNNNonlinearity n) { return n == kTanh ? "tanh" : "relu"; }

namespace nn {

RNNCellImplBase::RNNCellImplBase(const detail::RNNCellOptionsBase& options_base)
    : options_base(options_base) {
  const int64_t gates = options_base.num_chunks() * options_base.hidden_size();
  weight_ih = register_parameter("weight_ih", empty({gates, options_base.input_size()}));
  weight_hh = register_parameter("weight_hh", empty({gates, options_base.hidden_size()}));
  if (options_base.bias()) {
    bias_ih = register_parameter("bias_ih", empty({gates}));
    bias_hh = register_parameter("bias_hh", empty({gates}));
  } else {
    register_parameter("bias_ih", Tensor(), false);
    register_parameter("bias_hh", Tensor(), false);
  }
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const int64_t hidden = options_base.hidden_size();
  const double stdv = hidden > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden)) : 0;
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::string RNNCellImplBase::extra_repr() const {
  std::string s = absl::StrCat(options_base.input_size(), ", ", options_base.hidden_size());
  if (!options_base.bias()) absl::StrAppend(&s, ", bias=False");
  absl::StrAppend(&s, nonlinearity_repr());
  return s;
}

void RNNCellImplBase::check_input_dim(const Tensor& input, const char* cell) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, cell,
              ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
}

void RNNCellImplBase::check_forward_input(const Tensor& input) const {
  EMBER_CHECK(input.size(1) == options_base.input_size(), "input has inconsistent input_size: got ",
              input.size(1), " expected ", options_base.input_size());
}

void RNNCellImplBase::check_forward_hidden(const Tensor& input, const Tensor& hx, int index) const {
  EMBER_CHECK(input.size(0) == hx.size(0), "Input batch size ", input.size(0),
              " doesn't match hidden", index, " batch size ", hx.size(0));
  EMBER_CHECK(hx.size(1) == options_base.hidden_size(), "hidden", index,
              " has inconsistent hidden_size: got ", hx.size(1), ", expected ",
              options_base.hidden_size());
}

Tensor RNNCellImplBase::batched_state(const Tensor& hx, const Tensor& input, bool batched) const {
  if (!hx.defined()) return zeros({input.size(0), options_base.hidden_size()}, input.options());
  return batched ? hx : hx.unsqueeze(0);
}

Tensor RNNCellImplBase::input_gates(const Tensor& input) const {
  return functional::linear(input, weight_ih, bias_ih);
}

Tensor RNNCellImplBase::forward_hidden(
    const Tensor& input, Tensor hx, const char* cell,
    const std::function<Tensor(const Tensor&, const Tensor&)>& step) const {
  check_input_dim(input, cell);
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  hx = batched_state(hx, x, batched);
  check_forward_input(x);
  check_forward_hidden(x, hx, 0);
  const Tensor h = step(input_gates(x), hx);
  return batched ? h : h.squeeze(0);
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(),
                                                 options.bias(), 1)),
      options(options) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden(input, std::move(hx), "RNNCell", [&](const Tensor& gi, const Tensor& h) {
    return options.nonlinearity() == kTanh ? detail::rnn_tanh_step(gi, h, weight_hh, bias_hh)
                                           : detail::rnn_relu_step(gi, h, weight_hh, bias_hh);
  });
}

std::string RNNCellImpl::nonlinearity_repr() const {
  if (options.nonlinearity() == kTanh) return "";
  return absl::StrCat(", nonlinearity=", nonlinearity_name(options.nonlinearity()));
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(),
                                                 options.bias(), 4)),
      options(options) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  check_input_dim(input, "LSTMCell");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  Tensor h, c;
  if (hx_opt) std::tie(h, c) = *hx_opt;
  h = batched_state(h, x, batched);
  c = batched_state(c, x, batched);
  check_forward_input(x);
  // ATen's lstm_cell labels both states "hidden0" (PyTorch 1.13).
  check_forward_hidden(x, h, 0);
  check_forward_hidden(x, c, 0);
  auto [h_next, c_next] = detail::lstm_step(input_gates(x), h, c, weight_hh, bias_hh, Tensor());
  if (!batched) return {h_next.squeeze(0), c_next.squeeze(0)};
  return {h_next, c_next};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(),
                                                 options.bias(), 3)),
      options(options) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden(input, std::move(hx), "GRUCell", [&](const Tensor& gi, const Tensor& h) {
    return detail::gru_step(gi, h, weight_hh, bias_hh);
  });
}

}  // namespace nn
}  // namespace ember
