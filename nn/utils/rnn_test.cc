// nn::utils::rnn and the recurrent layers on packed input against PyTorch
// 1.13 (tools/golden/rnn_packing.py): packing, padding and their gradients,
// RNN / LSTM / GRU forward_with_packed_input (outputs, final states and every
// gradient), PyTorch's errors, and gradcheck through pack -> GRU -> pad.

#include "nn/utils/rnn.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "nn/rnn.h"
#include "nn/rnn_test_golden.h"
#include "nn/test_golden.h"
#include "tensor/all.h"

namespace ember {
namespace nn {
namespace {

namespace R = utils::rnn;
using ::ember::testing::GoldenEntry;
using ::ember::testing::GoldenError;
using ::ember::testing::make_input;
using ::ember::testing::near_golden;

const GoldenEntry kGolden[] = {
#include "nn/testdata/rnn_packing_golden.inc"
};
const GoldenError kErrors[] = {
#include "nn/testdata/rnn_packing_errors_golden.inc"
};
// The generator prints nothing; GoldenTables wants a strings table.
const testing::GoldenString kNoStrings[] = {{"", ""}};
constexpr testing::GoldenTables kTables(kGolden, kErrors, kNoStrings);

Tensor golden_leaf(const std::string& name) {
  return ::ember::testing::golden_tensor(kTables.golden(name)).requires_grad_(true);
}

// rnn.py's loss over `results`, backpropagated; each result against
// PyTorch's "<name>.out<i>" (integer results exactly).
void expect_outputs_and_backward(const std::string& name, const std::vector<Tensor>& results) {
  Tensor loss = zeros({});
  for (size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(i);
    const Tensor& r = results[i];
    const bool exact = !is_floating_point(r.dtype());
    EXPECT_TRUE(near_golden(r, kTables.golden(name + ".out" + std::to_string(i)), r.dtype(),
                            exact ? 0 : 1e-6));
    if (!exact) loss = loss + (r * make_input(r.sizes(), kFloat, 5 + i)).sum();
  }
  loss.backward();
}

TEST(RnnUtilsTest, PackPaddedSequenceSortedMatchesPyTorch) {
  Tensor x = golden_leaf("pack_sorted.input");
  R::PackedSequence p = R::pack_padded_sequence(x, tensor({4, 2, 1}, kLong));
  EXPECT_FALSE(p.sorted_indices().defined());
  EXPECT_FALSE(p.unsorted_indices().defined());
  expect_outputs_and_backward("pack_sorted", {p.data(), p.batch_sizes()});
  EXPECT_TRUE(near_golden(x.grad(), kTables.golden("pack_sorted.grad.input"), kFloat));
}

TEST(RnnUtilsTest, UnsortedBatchFirstRoundTripMatchesPyTorch) {
  Tensor x = golden_leaf("pack_unsorted.input");
  R::PackedSequence p = R::pack_padded_sequence(x, tensor({2, 5, 1, 3}, kLong),
                                                /*batch_first=*/true, /*enforce_sorted=*/false);
  auto [padded, lengths] = R::pad_packed_sequence(p, /*batch_first=*/true, -1.0, 6);
  expect_outputs_and_backward("pack_unsorted", {p.data(), p.batch_sizes(), p.sorted_indices(),
                                                p.unsorted_indices(), padded, lengths});
  EXPECT_TRUE(near_golden(x.grad(), kTables.golden("pack_unsorted.grad.input"), kFloat));
}

TEST(RnnUtilsTest, ToCastsDataAndKeepsTheIndices) {
  R::PackedSequence p = R::pack_padded_sequence(zeros({3, 2, 1}), tensor({2, 3}, kLong), false,
                                                /*enforce_sorted=*/false);
  R::PackedSequence d = p.to(kDouble);
  EXPECT_EQ(d.data().dtype(), kDouble);
  EXPECT_TRUE(d.batch_sizes().equal(p.batch_sizes()));
  EXPECT_TRUE(d.sorted_indices().equal(tensor({1, 0}, kLong)));
  EXPECT_TRUE(d.unsorted_indices().equal(tensor({1, 0}, kLong)));
  EXPECT_FALSE(p.to(Device(kCPU)).is_cuda());
}

TEST(RnnUtilsTest, PadSequenceAndPackSequenceMatchPyTorch) {
  std::vector<Tensor> seqs;
  for (int i = 0; i < 3; ++i) seqs.push_back(golden_leaf("pad_sequence.seq" + std::to_string(i)));
  R::PackedSequence p = R::pack_sequence(seqs, /*enforce_sorted=*/false);
  expect_outputs_and_backward(
      "pad_sequence",
      {R::pad_sequence(seqs), R::pad_sequence(seqs, true, 0.5), p.data(), p.batch_sizes()});
  for (int i = 0; i < 3; ++i) {
    const std::string s = std::to_string(i);
    EXPECT_TRUE(near_golden(seqs[i].grad(), kTables.golden("pad_sequence.grad.seq" + s), kFloat))
        << i;
  }
}

// A packed layer case: the padded input packed with its lengths (sorted
// when `sorted`), run through `m`, checked as rnn.py's cases are.
template <typename M, typename Run>
void expect_packed_case(const std::string& name, M& m, int num_states, bool batch_first,
                        bool sorted, const Run& run) {
  rnn_testing::load_case_parameters(*m, name, kTables);
  rnn_testing::CaseInputs in = rnn_testing::case_inputs(name, num_states, kTables);
  Tensor lengths = ::ember::testing::golden_tensor(kTables.golden(name + ".lengths"));
  R::PackedSequence packed = R::pack_padded_sequence(in.input, lengths, batch_first, sorted);
  rnn_testing::expect_case(name, *m, in, run(packed, in.hx), kTables);
}

TEST(PackedRnnTest, LstmBidirectionalUnsortedWithStatesMatchesPyTorch) {
  LSTM lstm(LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  expect_packed_case(
      "lstm_packed", lstm, 2, false, false,
      [&](const R::PackedSequence& p, const std::vector<Tensor>& hx) {
        auto [out, state] = lstm->forward_with_packed_input(p, std::make_tuple(hx[0], hx[1]));
        // The output keeps the input's batch sizes and order.
        EXPECT_TRUE(out.batch_sizes().equal(p.batch_sizes()));
        EXPECT_TRUE(out.unsorted_indices().equal(p.unsorted_indices()));
        return std::vector<Tensor>{out.data(), std::get<0>(state), std::get<1>(state)};
      });
}

TEST(PackedRnnTest, LstmProjectionMatchesPyTorch) {
  LSTM lstm(LSTMOptions(3, 5).proj_size(2).batch_first(true));
  expect_packed_case(
      "lstm_proj_packed", lstm, 0, true, true,
      [&](const R::PackedSequence& p, const std::vector<Tensor>&) {
        auto [out, state] = lstm->forward_with_packed_input(p);
        return std::vector<Tensor>{out.data(), std::get<0>(state), std::get<1>(state)};
      });
}

TEST(PackedRnnTest, GruAndRnnMatchPyTorch) {
  GRU gru(GRUOptions(2, 3).bidirectional(true).batch_first(true));
  expect_packed_case("gru_packed", gru, 1, true, false,
                     [&](const R::PackedSequence& p, const std::vector<Tensor>& hx) {
                       auto [out, h_n] = gru->forward_with_packed_input(p, hx[0]);
                       return std::vector<Tensor>{out.data(), h_n};
                     });
  RNN rnn(RNNOptions(2, 3).num_layers(2).nonlinearity(kReLU));
  expect_packed_case("rnn_packed", rnn, 0, false, true,
                     [&](const R::PackedSequence& p, const std::vector<Tensor>&) {
                       auto [out, h_n] = rnn->forward_with_packed_input(p);
                       return std::vector<Tensor>{out.data(), h_n};
                     });
}

TEST(PackedRnnTest, AllLengthsEqualIsThePaddedForward) {
  manual_seed(0);
  GRU gru(GRUOptions(3, 4).num_layers(2).bidirectional(true));
  Tensor x = randn({5, 2, 3});
  auto [out, h_n] = gru(x);
  auto [packed_out, packed_h_n] =
      gru->forward_with_packed_input(R::pack_padded_sequence(x, tensor({5, 5}, kLong)));
  EXPECT_TRUE(std::get<0>(R::pad_packed_sequence(packed_out)).allclose(out, 1e-6, 1e-6));
  EXPECT_TRUE(packed_h_n.allclose(h_n, 1e-6, 1e-6));
}

TEST(PackedRnnTest, Gradcheck) {
  manual_seed(0);
  GRU gru(GRUOptions(2, 3).bidirectional(true));
  gru->to(kDouble);
  const Tensor lengths = tensor({2, 3, 1}, kLong);
  using V = autograd::variable_list;
  EXPECT_EQ(autograd::gradcheck(
                [&](const V& v) {
                  R::PackedSequence p = R::pack_padded_sequence(v[0], lengths, false, false);
                  auto [out, h_n] = gru->forward_with_packed_input(p, v[1]);
                  return V{std::get<0>(R::pad_packed_sequence(out, false, 0.0, 4)), h_n};
                },
                rnn_testing::with_parameters({randn({3, 3, 2}, kDouble).requires_grad_(true),
                                              randn({2, 3, 3}, kDouble).requires_grad_(true)},
                                             *gru)),
            "");
}

TEST(RnnUtilsTest, ErrorsMatchPyTorch) {
  const Tensor x = zeros({4, 3, 2});
  auto err = [](const std::string& name, const std::function<void()>& f) {
    kTables.expect_golden_error(name, f);
  };
  auto pack = [&](const Tensor& input, std::vector<int64_t> lengths) {
    return [=] { R::pack_padded_sequence(input, tensor(lengths, kLong)); };
  };
  err("unsorted", pack(x, {2, 4, 1}));
  err("zero_length", pack(x, {4, 2, 0}));
  err("lengths_count", pack(x, {4, 2}));
  err("empty", pack(zeros({0, 3, 2}), {1, 1, 1}));
  err("lengths_2d", [&] { R::pack_padded_sequence(x, tensor({4, 2, 1}, kLong).reshape({1, 3})); });
  err("total_length", [&] {
    R::pad_packed_sequence(R::pack_padded_sequence(x, tensor({3, 2, 1}, kLong)), false, 0, 2);
  });
  err("pad_sequence_empty", [] { R::pad_sequence({}); });
  err("pack_sequence_empty", [] { R::pack_sequence({}); });
  err("pad_sequence_sizes", [] { R::pad_sequence({zeros({2, 3}), zeros({2, 4})}); });
  err("pack_sequence_unsorted", [] { R::pack_sequence({zeros({2}), zeros({3})}); });
  err("packed_hidden_size", [&] {
    GRU(2, 4)->forward_with_packed_input(R::pack_padded_sequence(x, tensor({3, 2, 1}, kLong)),
                                         zeros({1, 2, 4}));
  });
  err("packed_input_size", [&] {
    RNN(3, 4)->forward_with_packed_input(R::pack_padded_sequence(x, tensor({3, 2, 1}, kLong)));
  });
  // PyTorch reads past the input here.
  ::ember::testing::expect_error(pack(x, {5, 2, 1}),
                                 "pack_padded_sequence: a length of 5 exceeds the padded "
                                 "sequence length 4");
}

}  // namespace
}  // namespace nn
}  // namespace ember
