#include "nn/rnn_step.h"

#include <vector>

#include "nn/functional/linear.h"

namespace ember {
namespace nn {
namespace detail {

Tensor hidden_gates(const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return functional::linear(h, w_hh, b_hh);
}

Tensor rnn_tanh_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return (hidden_gates(h, w_hh, b_hh) + gi).tanh();
}

Tensor rnn_relu_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  return (hidden_gates(h, w_hh, b_hh) + gi).relu();
}

std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr) {
  const std::vector<Tensor> gates = (hidden_gates(h, w_hh, b_hh) + gi).chunk(4, 1);
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
  const std::vector<Tensor> ig = gi.chunk(3, 1);
  const std::vector<Tensor> hg = hidden_gates(h, w_hh, b_hh).chunk(3, 1);
  const Tensor reset_gate = (hg[0] + ig[0]).sigmoid();
  const Tensor update_gate = (hg[1] + ig[1]).sigmoid();
  const Tensor new_gate = (ig[2] + hg[2] * reset_gate).tanh();
  return (h - new_gate) * update_gate + new_gate;
}

}  // namespace detail
}  // namespace nn
}  // namespace ember
