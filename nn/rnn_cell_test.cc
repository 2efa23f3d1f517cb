// RNNCell, LSTMCell and GRUCell against PyTorch 1.13 (tools/golden/rnn.py):
// initial parameters, one step's results and every gradient, PyTorch's
// errors, printed forms and state_dict keys; gradcheck in float64.

#include "nn/rnn_cell.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_join.h"
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/rnn.h"
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

// RNNCell or GRUCell: PyTorch's parameters loaded, one step compared.
template <typename M>
void expect_hidden_case(const std::string& name, M cell, bool with_hx) {
  load_case_parameters(*cell, name);
  CaseInputs in = case_inputs(name, with_hx ? 1 : 0);
  const Tensor h = with_hx ? cell(in.input, in.hx[0]) : cell(in.input);
  expect_case(name, *cell, in, {h});
}

void expect_lstm_case(const std::string& name, LSTMCell cell, bool with_hx) {
  load_case_parameters(*cell, name);
  CaseInputs in = case_inputs(name, with_hx ? 2 : 0);
  std::optional<std::tuple<Tensor, Tensor>> hx;
  if (with_hx) hx = std::make_tuple(in.hx[0], in.hx[1]);
  auto [h, c] = cell(in.input, hx);
  expect_case(name, *cell, in, {h, c});
}

TEST(RNNCellInitTest, ParametersAreTheDrawsOfPyTorch) {
  manual_seed(0);
  expect_initial_parameters("rnncell_hx", *RNNCell(4, 5));
  manual_seed(0);
  expect_initial_parameters("lstmcell_hx", *LSTMCell(4, 5));
  manual_seed(0);
  expect_initial_parameters("grucell_unbatched_nobias", *GRUCell(GRUCellOptions(3, 4).bias(false)));
}

TEST(RNNCellTest, TanhWithState) { expect_hidden_case("rnncell_hx", RNNCell(4, 5), true); }

TEST(RNNCellTest, ReluUnbatched) {
  expect_hidden_case("rnncell_relu_unbatched", RNNCell(RNNCellOptions(3, 4).nonlinearity(kReLU)),
                     false);
}

TEST(RNNCellTest, WithoutBias) {
  expect_hidden_case("rnncell_nobias", RNNCell(RNNCellOptions(3, 4).bias(false)), false);
}

TEST(LSTMCellTest, WithState) { expect_lstm_case("lstmcell_hx", LSTMCell(4, 5), true); }

TEST(LSTMCellTest, Unbatched) { expect_lstm_case("lstmcell_unbatched", LSTMCell(3, 4), false); }

TEST(LSTMCellTest, UnbatchedWithStateWithoutBias) {
  expect_lstm_case("lstmcell_unbatched_hx_nobias", LSTMCell(LSTMCellOptions(3, 4).bias(false)),
                   true);
}

TEST(GRUCellTest, WithState) { expect_hidden_case("grucell_hx", GRUCell(4, 5), true); }

TEST(GRUCellTest, UnbatchedWithoutBias) {
  expect_hidden_case("grucell_unbatched_nobias", GRUCell(GRUCellOptions(3, 4).bias(false)), false);
}

// A cell stepped over a sequence is the one-layer module with the same
// weights (the module's names carry the suffix _l0).
TEST(RNNCellTest, SteppingMatchesTheLayer) {
  GRUCell cell(3, 4);
  GRU gru(3, 4);
  NamedTensors renamed;
  for (const auto& [name, p] : cell->named_parameters()) renamed.emplace_back(name + "_l0", p);
  gru->load_state_dict(renamed);
  const Tensor x = make_input({3, 2, 3});
  Tensor h = make_input({2, 4}, kFloat, 1);
  std::vector<Tensor> outputs;
  for (int64_t t = 0; t < 3; ++t) outputs.push_back(h = cell(x[t], h));
  auto [output, h_n] = gru(x, make_input({1, 2, 4}, kFloat, 1));
  EXPECT_TRUE(output.allclose(stack(outputs, 0), 1e-6, 1e-6));
  EXPECT_TRUE(h_n[0].allclose(h, 1e-6, 1e-6));
}

// --- gradcheck in float64 ---------------------------------------------------

TEST(RNNCellGradcheckTest, RNNCellTanhAndRelu) {
  for (RNNNonlinearity act : {kTanh, kReLU}) {
    manual_seed(0);
    RNNCell cell(RNNCellOptions(3, 4).nonlinearity(act));
    cell->to(kDouble);
    const Tensor x = randn({2, 3}, kDouble).requires_grad_();
    const Tensor h = randn({2, 4}, kDouble).requires_grad_();
    EXPECT_EQ(autograd::gradcheck([&](const autograd::variable_list& in)
                                      -> autograd::variable_list { return {cell(in[0], in[1])}; },
                                  with_parameters({x, h}, *cell)),
              "")
        << nonlinearity_name(act);
  }
}

TEST(RNNCellGradcheckTest, LSTMCell) {
  manual_seed(0);
  LSTMCell cell(3, 4);
  cell->to(kDouble);
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const Tensor h = randn({2, 4}, kDouble).requires_grad_();
  const Tensor c = randn({2, 4}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  auto [h1, c1] = cell(in[0], std::make_tuple(in[1], in[2]));
                  return {h1, c1};
                },
                with_parameters({x, h, c}, *cell)),
            "");
}

TEST(RNNCellGradcheckTest, GRUCell) {
  manual_seed(0);
  GRUCell cell(3, 4);
  cell->to(kDouble);
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const Tensor h = randn({2, 4}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck([&](const autograd::variable_list& in)
                                    -> autograd::variable_list { return {cell(in[0], in[1])}; },
                                with_parameters({x, h}, *cell)),
            "");
}

// --- errors -----------------------------------------------------------------

TEST(RNNCellErrorTest, InputRank) {
  expect_golden_error("rnncell.input_3d", [] { RNNCell(3, 4)(make_input({1, 2, 3})); });
  expect_golden_error("lstmcell.input_3d", [] { LSTMCell(3, 4)(make_input({1, 2, 3})); });
  expect_golden_error("grucell.input_3d", [] { GRUCell(3, 4)(make_input({1, 2, 3})); });
}

TEST(RNNCellErrorTest, InputSizeMismatch) {
  expect_golden_error("rnncell.input_size", [] { RNNCell(4, 5)(make_input({2, 3})); });
  expect_golden_error("lstmcell.input_size", [] { LSTMCell(4, 5)(make_input({2, 3})); });
  expect_golden_error("grucell.input_size", [] { GRUCell(4, 5)(make_input({3})); });
}

TEST(RNNCellErrorTest, StateMismatch) {
  const Tensor x = make_input({2, 3});
  expect_golden_error("rnncell.hidden_batch", [&] { RNNCell(3, 5)(x, zeros({3, 5})); });
  expect_golden_error("rnncell.hidden_size", [&] { RNNCell(3, 5)(x, zeros({2, 4})); });
  expect_golden_error("lstmcell.hidden0_size", [&] {
    LSTMCell(3, 5)(x, std::make_tuple(zeros({2, 4}), zeros({2, 5})));
  });
  // PyTorch 1.13 names the cell state "hidden0" too.
  expect_golden_error("lstmcell.hidden1_batch", [&] {
    LSTMCell(3, 5)(x, std::make_tuple(zeros({2, 5}), zeros({1, 5})));
  });
  expect_golden_error("grucell.hidden_size", [] { GRUCell(3, 5)(make_input({3}), zeros({4})); });
}

// --- printing and keys --------------------------------------------------------

TEST(RNNCellReprTest, PrintsAsPyTorch) {
  EXPECT_EQ(RNNCell(3, 4)->repr(), golden_string("repr.rnncell"));
  EXPECT_EQ(RNNCell(RNNCellOptions(3, 4).bias(false).nonlinearity(kReLU))->repr(),
            golden_string("repr.rnncell_relu"));
  EXPECT_EQ(LSTMCell(LSTMCellOptions(3, 4).bias(false))->repr(), golden_string("repr.lstmcell"));
  EXPECT_EQ(GRUCell(3, 4)->repr(), golden_string("repr.grucell"));
}

std::string keys(const Module& m) {
  std::vector<std::string> names;
  for (const auto& [name, t] : m.state_dict()) names.push_back(name);
  return absl::StrJoin(names, "\n");
}

TEST(RNNCellStateDictTest, KeysAreInPyTorchsOrder) {
  EXPECT_EQ(keys(*LSTMCell(3, 4)), golden_string("state_dict.lstmcell"));
  EXPECT_EQ(keys(*GRUCell(GRUCellOptions(3, 4).bias(false))),
            golden_string("state_dict.grucell_nobias"));
}

}  // namespace
}  // namespace nn
}  // namespace ember
