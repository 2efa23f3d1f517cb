// RNN, LSTM and GRU against PyTorch 1.13 (tools/golden/rnn.py): initial
// parameters, outputs, final states and every gradient, PyTorch's errors,
// printed forms and state_dict keys; gradcheck in float64.

#include "nn/rnn.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_join.h"
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/rnn_test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

using ::ember::testing::make_input;
using rnn_testing::case_inputs;
using rnn_testing::CaseInputs;
using rnn_testing::expect_case;
using rnn_testing::expect_golden_error;
using rnn_testing::expect_initial_parameters;
using rnn_testing::golden;
using rnn_testing::golden_string;
using rnn_testing::load_case_parameters;
using rnn_testing::with_parameters;

// An RNN or GRU case: PyTorch's parameters loaded, then forward (with the
// recorded h_0 when PyTorch was given one) and backward compared.
template <typename M>
void expect_hidden_case(const std::string& name, M module, bool with_hx) {
  load_case_parameters(*module, name);
  module->eval();
  CaseInputs in = case_inputs(name, with_hx ? 1 : 0);
  auto [output, h_n] = with_hx ? module(in.input, in.hx[0]) : module(in.input);
  expect_case(name, *module, in, {output, h_n});
}

void expect_lstm_case(const std::string& name, LSTM lstm, bool with_hx) {
  load_case_parameters(*lstm, name);
  lstm->eval();
  CaseInputs in = case_inputs(name, with_hx ? 2 : 0);
  std::optional<std::tuple<Tensor, Tensor>> hx;
  if (with_hx) hx = std::make_tuple(in.hx[0], in.hx[1]);
  auto [output, state] = lstm(in.input, hx);
  auto [h_n, c_n] = state;
  expect_case(name, *lstm, in, {output, h_n, c_n});
}

TEST(RNNInitTest, ParametersAreTheDrawsOfPyTorch) {
  manual_seed(0);
  expect_initial_parameters("rnn_tanh_2layer", *RNN(RNNOptions(4, 5).num_layers(2)));
  manual_seed(0);
  expect_initial_parameters("rnn_bidirectional_nobias",
                            *RNN(RNNOptions(3, 4).num_layers(2).bias(false).bidirectional(true)));
  manual_seed(0);
  expect_initial_parameters(
      "lstm_proj_bidirectional",
      *LSTM(LSTMOptions(4, 6).num_layers(2).bidirectional(true).proj_size(3)));
  manual_seed(0);
  expect_initial_parameters(
      "gru_2layer_bidirectional_batch_first_hx",
      *GRU(GRUOptions(4, 5).num_layers(2).bidirectional(true).batch_first(true)));
}

TEST(RNNTest, TanhTwoLayers) {
  expect_hidden_case("rnn_tanh_2layer", RNN(RNNOptions(4, 5).num_layers(2)), false);
}

TEST(RNNTest, ReluWithInitialStateBatchFirst) {
  expect_hidden_case("rnn_relu_hx_batch_first",
                     RNN(RNNOptions(3, 4).nonlinearity(kReLU).batch_first(true)), true);
}

TEST(RNNTest, BidirectionalWithoutBias) {
  expect_hidden_case("rnn_bidirectional_nobias",
                     RNN(RNNOptions(3, 4).num_layers(2).bias(false).bidirectional(true)), false);
}

TEST(RNNTest, UnbatchedInputWithInitialState) {
  expect_hidden_case("rnn_unbatched_hx", RNN(RNNOptions(3, 4).num_layers(2)), true);
}

TEST(LSTMTest, TwoLayersBidirectionalWithInitialState) {
  expect_lstm_case("lstm_2layer_bidirectional_hx",
                   LSTM(LSTMOptions(4, 5).num_layers(2).bidirectional(true)), true);
}

TEST(LSTMTest, BatchFirst) {
  expect_lstm_case("lstm_batch_first", LSTM(LSTMOptions(3, 4).batch_first(true)), false);
}

TEST(LSTMTest, ProjectionBidirectional) {
  expect_lstm_case("lstm_proj_bidirectional",
                   LSTM(LSTMOptions(4, 6).num_layers(2).bidirectional(true).proj_size(3)), true);
}

TEST(LSTMTest, ProjectionWithoutBias) {
  expect_lstm_case("lstm_proj_nobias", LSTM(LSTMOptions(3, 5).bias(false).proj_size(2)), false);
}

TEST(LSTMTest, UnbatchedInputWithInitialState) {
  expect_lstm_case("lstm_unbatched_hx", LSTM(LSTMOptions(4, 5)), true);
}

TEST(LSTMTest, UnbatchedInputBidirectionalBatchFirst) {
  expect_lstm_case("lstm_unbatched",
                   LSTM(LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true)),
                   false);
}

TEST(GRUTest, TwoLayersBidirectionalBatchFirstWithInitialState) {
  expect_hidden_case("gru_2layer_bidirectional_batch_first_hx",
                     GRU(GRUOptions(4, 5).num_layers(2).bidirectional(true).batch_first(true)),
                     true);
}

TEST(GRUTest, WithoutBias) {
  expect_hidden_case("gru_nobias", GRU(GRUOptions(3, 4).bias(false)), false);
}

TEST(GRUTest, UnbatchedInput) { expect_hidden_case("gru_unbatched", GRU(GRUOptions(3, 4)), false); }

// Training mode: the masks between layers are PyTorch's draws after the
// same seed, so outputs and gradients match.
TEST(RNNDropoutTest, LSTMDrawsPyTorchsMasksBetweenLayers) {
  const std::string name = "lstm_dropout_train";
  LSTM lstm(LSTMOptions(3, 4).num_layers(3).dropout(0.5).bidirectional(true));
  load_case_parameters(*lstm, name);
  CaseInputs in = case_inputs(name, 0);
  manual_seed(1);
  auto [output, state] = lstm(in.input);
  expect_case(name, *lstm, in, {output, std::get<0>(state), std::get<1>(state)});
}

TEST(RNNDropoutTest, GRUDrawsPyTorchsMasksBetweenLayers) {
  const std::string name = "gru_dropout_train";
  GRU gru(GRUOptions(3, 4).num_layers(2).dropout(0.3));
  load_case_parameters(*gru, name);
  CaseInputs in = case_inputs(name, 0);
  manual_seed(2);
  auto [output, h_n] = gru(in.input);
  expect_case(name, *gru, in, {output, h_n});
}

TEST(RNNDropoutTest, EvalModeAppliesNone) {
  manual_seed(0);
  GRU with(GRUOptions(3, 4).num_layers(3).dropout(0.9));
  manual_seed(0);
  GRU without(GRUOptions(3, 4).num_layers(3));
  with->eval();
  const Tensor x = make_input({4, 2, 3});
  EXPECT_TRUE(std::get<0>(with(x)).equal(std::get<0>(without(x))));
  EXPECT_TRUE(std::get<1>(with(x)).equal(std::get<1>(without(x))));
}

TEST(RNNDropoutTest, WarnsWhenThereIsOneLayer) {
  ::testing::internal::CaptureStderr();
  LSTM lstm(LSTMOptions(3, 4).dropout(0.5));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "UserWarning: " + golden_string("warning.dropout") + "\n");
  ::testing::internal::CaptureStderr();
  LSTM quiet(LSTMOptions(3, 4).num_layers(2).dropout(0.5));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// --- gradcheck in float64 ---------------------------------------------------

TEST(RNNGradcheckTest, BidirectionalTwoLayerLSTMWithProjection) {
  manual_seed(0);
  LSTM lstm(LSTMOptions(2, 3).num_layers(2).bidirectional(true).proj_size(2));
  lstm->to(kDouble);
  const Tensor x = randn({3, 2, 2}, kDouble).requires_grad_();
  const Tensor h0 = randn({4, 2, 2}, kDouble).requires_grad_();
  const Tensor c0 = randn({4, 2, 3}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  auto [out, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
                  return {out, std::get<0>(state), std::get<1>(state)};
                },
                with_parameters({x, h0, c0}, *lstm)),
            "");
}

TEST(RNNGradcheckTest, BidirectionalTwoLayerGRUBatchFirst) {
  manual_seed(0);
  GRU gru(GRUOptions(2, 3).num_layers(2).bidirectional(true).batch_first(true));
  gru->to(kDouble);
  const Tensor x = randn({2, 3, 2}, kDouble).requires_grad_();
  const Tensor h0 = randn({4, 2, 3}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  auto [out, h_n] = gru(in[0], in[1]);
                  return {out, h_n};
                },
                with_parameters({x, h0}, *gru)),
            "");
}

TEST(RNNGradcheckTest, TwoLayerReluAndTanhRNN) {
  for (RNNNonlinearity act : {kTanh, kReLU}) {
    manual_seed(0);
    RNN rnn(RNNOptions(2, 3).num_layers(2).nonlinearity(act).bidirectional(true));
    rnn->to(kDouble);
    const Tensor x = randn({3, 2, 2}, kDouble).requires_grad_();
    EXPECT_EQ(autograd::gradcheck(
                  [&](const autograd::variable_list& in) -> autograd::variable_list {
                    auto [out, h_n] = rnn(in[0]);
                    return {out, h_n};
                  },
                  with_parameters({x}, *rnn)),
              "")
        << nonlinearity_name(act);
  }
}

// --- errors -----------------------------------------------------------------

TEST(RNNErrorTest, InputSizeMismatch) {
  RNN rnn(4, 5);
  expect_golden_error("rnn.input_size", [&] { rnn(make_input({2, 3, 3})); });
  expect_golden_error("rnn.input_size_unbatched", [&] { rnn(make_input({2, 3})); });
  LSTM lstm(LSTMOptions(3, 5).num_layers(2));
  expect_golden_error("lstm.input_size", [&] { lstm(make_input({2, 3, 4})); });
}

TEST(RNNErrorTest, InputRank) {
  RNN rnn(4, 5);
  expect_golden_error("rnn.input_1d", [&] { rnn(make_input({4})); });
  expect_golden_error("rnn.input_4d", [&] { rnn(make_input({2, 3, 1, 4})); });
  LSTM lstm(LSTMOptions(3, 5).num_layers(2));
  expect_golden_error("lstm.input_1d", [&] { lstm(make_input({3})); });
}

TEST(RNNErrorTest, HiddenSizeMismatch) {
  RNN rnn(3, 5);
  expect_golden_error("rnn.hidden_size", [&] { rnn(make_input({2, 3, 3}), zeros({2, 3, 5})); });
  RNN batch_first(RNNOptions(3, 5).batch_first(true).bidirectional(true));
  expect_golden_error("rnn.hidden_size_batch_first", [&] {
    batch_first(make_input({2, 3, 3}), zeros({2, 3, 5}));
  });
  GRU gru(GRUOptions(3, 5).num_layers(2));
  expect_golden_error("gru.hidden_size", [&] { gru(make_input({2, 3, 3}), zeros({2, 2, 5})); });
}

TEST(RNNErrorTest, LSTMStateSizeMismatch) {
  LSTM lstm(LSTMOptions(3, 5).num_layers(2));
  const Tensor x = make_input({2, 3, 3});
  expect_golden_error("lstm.hidden0_size", [&] {
    lstm(x, std::make_tuple(zeros({2, 3, 4}), zeros({2, 3, 5})));
  });
  expect_golden_error("lstm.hidden1_size", [&] {
    lstm(x, std::make_tuple(zeros({2, 3, 5}), zeros({1, 3, 5})));
  });
  LSTM proj(LSTMOptions(3, 5).proj_size(2));
  expect_golden_error("lstm.proj_hidden0_size", [&] {
    proj(x, std::make_tuple(zeros({1, 3, 5}), zeros({1, 3, 5})));
  });
}

TEST(RNNErrorTest, StateRankMustMatchInputs) {
  RNN rnn(4, 5);
  expect_golden_error("rnn.hx_2d_batched", [&] { rnn(make_input({2, 3, 4}), zeros({3, 5})); });
  expect_golden_error("rnn.hx_3d_unbatched", [&] { rnn(make_input({2, 4}), zeros({1, 1, 5})); });
  LSTM lstm(LSTMOptions(3, 5).num_layers(2));
  expect_golden_error("lstm.hx_batched", [&] {
    lstm(make_input({2, 3, 3}), std::make_tuple(zeros({2, 3, 5}), zeros({3, 5})));
  });
  expect_golden_error("lstm.hx_unbatched", [&] {
    lstm(make_input({2, 3}), std::make_tuple(zeros({2, 5}), zeros({2, 1, 5})));
  });
}

TEST(RNNErrorTest, EmptySequence) {
  RNN rnn(4, 5);
  expect_golden_error("rnn.empty_sequence", [&] { rnn(zeros({0, 2, 4})); });
}

TEST(RNNErrorTest, BadOptions) {
  expect_golden_error("options.dropout_range", [] { GRU m(GRUOptions(3, 4).dropout(1.5)); });
  expect_golden_error("options.dropout_negative", [] { RNN m(RNNOptions(3, 4).dropout(-0.1)); });
  expect_golden_error("options.proj_negative", [] { LSTM m(LSTMOptions(3, 4).proj_size(-1)); });
  expect_golden_error("options.proj_too_big", [] { LSTM m(LSTMOptions(3, 4).proj_size(4)); });
}

// --- printing, keys and weights -----------------------------------------------

TEST(RNNReprTest, PrintsAsPyTorch) {
  EXPECT_EQ(RNN(10, 20)->repr(), golden_string("repr.rnn"));
  EXPECT_EQ(RNN(RNNOptions(10, 20).nonlinearity(kReLU))->repr(), golden_string("repr.rnn_relu"));
  EXPECT_EQ(LSTM(LSTMOptions(10, 20).num_layers(2))->repr(), golden_string("repr.lstm"));
  EXPECT_EQ(LSTM(LSTMOptions(10, 20)
                     .num_layers(3)
                     .bias(false)
                     .batch_first(true)
                     .dropout(0.25)
                     .bidirectional(true)
                     .proj_size(5))
                ->repr(),
            golden_string("repr.lstm_all"));
  EXPECT_EQ(GRU(GRUOptions(3, 4).dropout(0.5).num_layers(2))->repr(), golden_string("repr.gru"));
}

std::string keys(const Module& m) {
  std::vector<std::string> names;
  for (const auto& [name, t] : m.state_dict()) names.push_back(name);
  return absl::StrJoin(names, "\n");
}

TEST(RNNStateDictTest, KeysAreInPyTorchsOrder) {
  EXPECT_EQ(keys(*LSTM(LSTMOptions(4, 6).num_layers(2).bidirectional(true).proj_size(3))),
            golden_string("state_dict.lstm_proj_bidirectional"));
  EXPECT_EQ(keys(*LSTM(LSTMOptions(3, 5).bias(false).proj_size(2))),
            golden_string("state_dict.lstm_proj_nobias"));
  EXPECT_EQ(keys(*GRU(GRUOptions(3, 4).bidirectional(true))),
            golden_string("state_dict.gru_bidirectional"));
  EXPECT_EQ(keys(*RNN(RNNOptions(3, 4).num_layers(2).bias(false))),
            golden_string("state_dict.rnn_nobias"));
}

TEST(RNNStateDictTest, WeightListsFollowTheParameters) {
  LSTM lstm(LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2));
  const std::vector<Tensor> params = lstm->parameters();
  const std::vector<Tensor> flat = lstm->flat_weights();
  ASSERT_EQ(flat.size(), params.size());
  for (size_t i = 0; i < flat.size(); ++i) EXPECT_TRUE(flat[i].is_same(params[i])) << i;
  const auto all = lstm->all_weights();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_TRUE(all[1][0].is_same(lstm->named_parameters()[5].second));  // weight_ih_l0_reverse
  EXPECT_EQ(all[3].size(), 5u);
  EXPECT_EQ(all[3][4].sizes(), IntArrayRef({2, 5}));  // weight_hr_l1_reverse
}

// Loading new values in place (load_state_dict, to(kDouble)) reaches forward.
TEST(RNNStateDictTest, LoadedValuesAreUsed) {
  GRU gru(3, 4);
  NamedTensors zero;
  for (const auto& [name, p] : gru->named_parameters()) zero.emplace_back(name, zeros_like(p));
  gru->load_state_dict(zero);
  auto [out, h_n] = gru(make_input({2, 1, 3}));
  // Every gate is sigmoid(0) = 0.5 and n = 0: h' = 0.5 * h.
  EXPECT_TRUE(out.equal(zeros({2, 1, 4})));
  gru->to(kDouble);
  EXPECT_EQ(std::get<0>(gru(make_input({2, 1, 3}, kDouble))).dtype(), kDouble);
}

}  // namespace
}  // namespace nn
}  // namespace ember
