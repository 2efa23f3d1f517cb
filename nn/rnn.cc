#include "nn/rnn.h"

#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nn/init.h"
#include "nn/options.h"
#include "nn/rnn_step.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {

using detail::RNNMode;

namespace {

int64_t gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::kLSTM:
      return 4;
    case RNNMode::kGRU:
      return 3;
    default:
      return 1;
  }
}

// The options RNN, LSTM and GRU spell alike.
template <typename Options>
detail::RNNOptionsBase base_options(RNNMode mode, const Options& o) {
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

detail::RNNOptionsBase base_options(const RNNOptions& o) {
  return base_options(o.nonlinearity() == kTanh ? RNNMode::kRNN_TANH : RNNMode::kRNN_RELU, o);
}

detail::RNNOptionsBase base_options(const LSTMOptions& o) {
  return base_options(RNNMode::kLSTM, o).proj_size(o.proj_size());
}

detail::RNNOptionsBase base_options(const GRUOptions& o) { return base_options(RNNMode::kGRU, o); }

}  // namespace

RNNImplBase::RNNImplBase(const detail::RNNOptionsBase& options_base) : options_base(options_base) {
  const auto& o = options_base;
  EMBER_CHECK_VALUE(o.dropout() >= 0 && o.dropout() <= 1,
                    "dropout should be a number in range [0, 1] representing the probability "
                    "of an element being zeroed");
  if (o.dropout() > 0 && o.num_layers() == 1) {
    // PyTorch's warnings.warn (libtorch's TORCH_WARN); ember has no warning
    // machinery, so it goes to stderr once per construction.
    std::cerr << "UserWarning: dropout option adds dropout after all but last recurrent layer, "
                 "so non-zero dropout expects num_layers greater than 1, but got dropout="
              << detail::py_float(o.dropout()) << " and num_layers=" << o.num_layers() << "\n";
  }
  EMBER_CHECK_VALUE(o.proj_size() >= 0,
                    "proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK_VALUE(o.proj_size() < o.hidden_size(),
                    "proj_size has to be smaller than hidden_size");

  const int64_t gate_size = gate_count(o.mode()) * o.hidden_size();
  const int64_t out_size = real_hidden_size();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    for (int64_t direction = 0; direction < num_directions(); ++direction) {
      const int64_t layer_input_size = layer == 0 ? o.input_size() : out_size * num_directions();
      const std::string suffix = absl::StrCat("_l", layer, direction == 1 ? "_reverse" : "");
      LayerWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, empty({gate_size, layer_input_size}));
      w.w_hh = register_parameter("weight_hh" + suffix, empty({gate_size, out_size}));
      if (o.bias()) {
        w.b_ih = register_parameter("bias_ih" + suffix, empty({gate_size}));
        w.b_hh = register_parameter("bias_hh" + suffix, empty({gate_size}));
      }
      if (o.proj_size() > 0) {
        w.w_hr = register_parameter("weight_hr" + suffix, empty({o.proj_size(), o.hidden_size()}));
      }
      weights_.push_back(w);
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() {
  const int64_t hidden = options_base.hidden_size();
  const double stdv = hidden > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden)) : 0;
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::vector<std::vector<Tensor>> RNNImplBase::all_weights() const {
  std::vector<std::vector<Tensor>> all;
  for (const LayerWeights& w : weights_) {
    std::vector<Tensor> layer = {w.w_ih, w.w_hh};
    if (w.b_ih.defined()) {
      layer.push_back(w.b_ih);
      layer.push_back(w.b_hh);
    }
    if (w.w_hr.defined()) layer.push_back(w.w_hr);
    all.push_back(std::move(layer));
  }
  return all;
}

std::vector<Tensor> RNNImplBase::flat_weights() const {
  std::vector<Tensor> flat;
  for (const std::vector<Tensor>& layer : all_weights()) {
    flat.insert(flat.end(), layer.begin(), layer.end());
  }
  return flat;
}

std::string RNNImplBase::extra_repr() const {
  const auto& o = options_base;
  std::string s = absl::StrCat(o.input_size(), ", ", o.hidden_size());
  if (o.proj_size() != 0) absl::StrAppend(&s, ", proj_size=", o.proj_size());
  if (o.num_layers() != 1) absl::StrAppend(&s, ", num_layers=", o.num_layers());
  if (!o.bias()) absl::StrAppend(&s, ", bias=False");
  if (o.batch_first()) absl::StrAppend(&s, ", batch_first=True");
  if (o.dropout() != 0) absl::StrAppend(&s, ", dropout=", detail::py_float(o.dropout()));
  if (o.bidirectional()) absl::StrAppend(&s, ", bidirectional=True");
  return s;
}

int64_t RNNImplBase::real_hidden_size() const {
  return options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
}

void RNNImplBase::check_input(const Tensor& input, int64_t expected_dim) const {
  EMBER_CHECK(input.dim() == expected_dim, "input must have ", expected_dim, " dimensions, got ",
              input.dim());
  EMBER_CHECK(input.size(-1) == options_base.input_size(),
              "input.size(-1) must be equal to input_size. Expected ", options_base.input_size(),
              ", got ", input.size(-1));
}

std::vector<int64_t> RNNImplBase::expected_state_size(const Tensor& input, int64_t size) const {
  const int64_t mini_batch = input.size(options_base.batch_first() ? 0 : 1);
  return {options_base.num_layers() * num_directions(), mini_batch, size};
}

void RNNImplBase::check_hidden_size(const Tensor& hx, const std::vector<int64_t>& expected,
                                    const char* what) {
  const IntArrayRef got = hx.sizes();
  EMBER_CHECK(std::vector<int64_t>(got.begin(), got.end()) == expected, "Expected ", what, " size ",
              detail::py_tuple(expected), ", got [", absl::StrJoin(got, ", "), "]");
}

namespace {

// PyTorch's permute_hidden: states into the packed batch order and back.
Tensor permute_hidden(const Tensor& hx, const Tensor& permutation) {
  return permutation.defined() ? hx.index_select(1, permutation) : hx;
}

}  // namespace

RNNImplBase::Final RNNImplBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0,
                                    const std::optional<std::vector<int64_t>>& batch_sizes) {
  const auto& o = options_base;
  return detail::stacked_rnn(o.mode(), input, batch_sizes, h0, c0, weights_, o.num_layers(),
                             o.bidirectional(), o.dropout(), is_training());
}

RNNImplBase::Packed RNNImplBase::run_packed_input(const utils::rnn::PackedSequence& input,
                                                  Tensor h0, Tensor c0) {
  const Tensor sizes = input.batch_sizes().to(Device(kCPU), kLong).contiguous();
  const std::vector<int64_t> batch_sizes(sizes.data_ptr<int64_t>(),
                                         sizes.data_ptr<int64_t>() + sizes.numel());
  EMBER_CHECK(!batch_sizes.empty(), "Expected sequence length to be larger than 0 in RNN");
  const int64_t batch = batch_sizes[0];
  const int64_t states = options_base.num_layers() * num_directions();
  const bool lstm = options_base.mode() == RNNMode::kLSTM;
  if (h0.defined()) {
    h0 = permute_hidden(h0, input.sorted_indices());
    if (lstm) c0 = permute_hidden(c0, input.sorted_indices());
  } else {
    h0 = zeros({states, batch, real_hidden_size()}, input.data().options());
    if (lstm) c0 = zeros({states, batch, options_base.hidden_size()}, input.data().options());
  }
  check_input(input.data(), /*expected_dim=*/2);
  const std::vector<int64_t> expected = {states, batch, real_hidden_size()};
  check_hidden_size(h0, expected, lstm ? "hidden[0]" : "hidden");
  if (lstm) {
    check_hidden_size(c0, {states, batch, options_base.hidden_size()}, "hidden[1]");
  }
  Final r = run(input.data(), h0, c0, batch_sizes);
  Packed out{utils::rnn::PackedSequence(r.output, input.batch_sizes(), input.sorted_indices(),
                                        input.unsorted_indices()),
             permute_hidden(r.h_n, input.unsorted_indices()),
             lstm ? permute_hidden(r.c_n, input.unsorted_indices()) : Tensor()};
  return out;
}

std::tuple<Tensor, Tensor> RNNImplBase::forward_hidden(const Tensor& input_arg, Tensor hx) {
  const bool batched = input_arg.dim() == 3;
  const bool batch_first = options_base.batch_first();
  const int64_t batch_dim = batch_first ? 0 : 1;
  Tensor input = batched ? input_arg : input_arg.unsqueeze(batch_dim);
  if (hx.defined()) {
    if (batched) {
      EMBER_CHECK(hx.dim() == 3, "For batched 3-D input, hx should also be 3-D but got ", hx.dim(),
                  "-D tensor");
    } else {
      EMBER_CHECK(hx.dim() == 2, "For unbatched 2-D input, hx should also be 2-D but got ",
                  hx.dim(), "-D tensor");
      hx = hx.unsqueeze(1);
    }
  } else {
    hx = zeros({options_base.num_layers() * num_directions(), input.size(batch_dim),
                options_base.hidden_size()},
               input.options());
  }
  check_input(input);
  check_hidden_size(hx, expected_state_size(input, real_hidden_size()), "hidden");
  Final result = run(batch_first ? input.transpose(0, 1) : input, hx, Tensor());
  Tensor output = batch_first ? result.output.transpose(0, 1) : result.output;
  if (!batched) return {output.squeeze(batch_dim), result.h_n.squeeze(1)};
  return {output, result.h_n};
}

RNNImpl::RNNImpl(const RNNOptions& options)
    : RNNImplBase(base_options(options)), options(options) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden(input, std::move(hx));
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  Packed r = run_packed_input(packed_input, std::move(hx), Tensor());
  return {r.output, r.h_n};
}

GRUImpl::GRUImpl(const GRUOptions& options)
    : RNNImplBase(base_options(options)), options(options) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden(input, std::move(hx));
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  Packed r = run_packed_input(packed_input, std::move(hx), Tensor());
  return {r.output, r.h_n};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options)
    : RNNImplBase(base_options(options)), options(options) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input_arg, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const bool batched = input_arg.dim() == 3;
  const bool batch_first = options.batch_first();
  const int64_t batch_dim = batch_first ? 0 : 1;
  Tensor input = batched ? input_arg : input_arg.unsqueeze(batch_dim);
  Tensor h0, c0;
  if (hx_opt) {
    std::tie(h0, c0) = *hx_opt;
    if (batched) {
      EMBER_CHECK(h0.dim() == 3 && c0.dim() == 3,
                  "For batched 3-D input, hx and cx should also be 3-D but got (", h0.dim(), "-D, ",
                  c0.dim(), "-D) tensors");
    } else {
      EMBER_CHECK(h0.dim() == 2 && c0.dim() == 2,
                  "For unbatched 2-D input, hx and cx should also be 2-D but got (", h0.dim(),
                  "-D, ", c0.dim(), "-D) tensors");
      h0 = h0.unsqueeze(1);
      c0 = c0.unsqueeze(1);
    }
  } else {
    const int64_t states = options.num_layers() * num_directions();
    h0 = zeros({states, input.size(batch_dim), real_hidden_size()}, input.options());
    c0 = zeros({states, input.size(batch_dim), options.hidden_size()}, input.options());
  }
  check_input(input);
  check_hidden_size(h0, expected_state_size(input, real_hidden_size()), "hidden[0]");
  check_hidden_size(c0, expected_state_size(input, options.hidden_size()), "hidden[1]");
  Final result = run(batch_first ? input.transpose(0, 1) : input, h0, c0);
  Tensor output = batch_first ? result.output.transpose(0, 1) : result.output;
  if (!batched) {
    return {output.squeeze(batch_dim), {result.h_n.squeeze(1), result.c_n.squeeze(1)}};
  }
  return {output, {result.h_n, result.c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>>
LSTMImpl::forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                    std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor h0, c0;
  if (hx_opt) std::tie(h0, c0) = *hx_opt;
  Packed r = run_packed_input(packed_input, h0, c0);
  return {r.output, {r.h_n, r.c_n}};
}

}  // namespace nn
}  // namespace ember
