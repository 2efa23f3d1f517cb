// libtorch's functional recurrences (nn/rnn_functional.h) against PyTorch
// 1.13 (tools/golden/rnn_functional.py): every recorded case's outputs in
// float32 and float64, gradients w.r.t. input, states and parameters, and
// the errors; gradcheck in float64; the layers and the functions agree.
#include "nn/rnn_functional.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "autograd/gradcheck.h"
#include "nn/rnn.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::GoldenEntry;

const GoldenEntry kGolden[] = {
#include "nn/testdata/rnn_functional_golden.inc"
};
const testing::GoldenError kErrors[] = {
#include "nn/testdata/rnn_functional_errors_golden.inc"
};

const GoldenEntry& golden(const std::string& name) { return testing::find_golden(kGolden, name); }
Tensor golden_tensor(const std::string& name) { return testing::golden_tensor(golden(name)); }
bool has_golden(const std::string& name) {
  for (const GoldenEntry& e : kGolden) {
    if (name == e.name) return true;
  }
  return false;
}
void expect_error(const std::string& name, const std::function<void()>& f) {
  testing::expect_golden_error(kErrors, name, f);
}

// The recorded cases of one kind: layer specs hold 10 numbers, cell specs 3.
std::vector<std::string> cases(int64_t spec_size) {
  std::vector<std::string> names;
  for (const GoldenEntry& e : kGolden) {
    const std::string name = e.name;
    const std::string suffix = "/spec";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        static_cast<int64_t>(e.values.size()) == spec_size) {
      names.push_back(name.substr(0, name.size() - suffix.size()));
    }
  }
  return names;
}

// PyTorch computes with other kernels (SIMD tanh, its GEMM): near, not exact.
double forward_tol(ScalarType dtype) { return dtype == kFloat ? 2e-5 : 1e-12; }
double grad_tol(ScalarType dtype) { return dtype == kFloat ? 5e-5 : 1e-11; }

// The generator's loss: sum_i sum(outs[i] * make_input(shape, dtype, 5 + i)).
void backward_loss(const std::vector<Tensor>& outs) {
  Tensor loss;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor term =
        (outs[i] * testing::make_input(outs[i].sizes(), outs[i].dtype(), 5 + i)).sum();
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
}

struct Leaves {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  Tensor add(const std::string& prefix, const std::string& name, bool grads) {
    Tensor t = golden_tensor(prefix + name);
    if (grads) t.requires_grad_(true);
    names.push_back(name);
    tensors.push_back(t);
    return t;
  }
};

void expect_case(const std::string& prefix, ScalarType dtype, const std::vector<Tensor>& outs,
                 const Leaves& leaves, bool grads) {
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_TRUE(testing::near_golden(outs[i], golden(prefix + "out" + std::to_string(i)), dtype,
                                     forward_tol(dtype)))
        << prefix << "out" << i;
  }
  if (!grads) return;
  backward_loss(outs);
  for (size_t i = 0; i < leaves.tensors.size(); ++i) {
    EXPECT_TRUE(testing::near_golden(leaves.tensors[i].grad(),
                                     golden(prefix + "grad_" + leaves.names[i]), dtype,
                                     grad_tol(dtype)))
        << prefix << "grad_" << leaves.names[i];
  }
}

const std::pair<const char*, ScalarType> kDtypes[] = {{"f32", kFloat}, {"f64", kDouble}};

TEST(RNNFunctionalGoldenTest, Cells) {
  const std::vector<std::string> names = cases(3);
  EXPECT_EQ(names.size(), 9u);
  for (const std::string& name : names) {
    const std::vector<double> spec = golden(name + "/spec").values;
    const int mode = static_cast<int>(spec[0]);
    const bool grads = spec[2] != 0;
    for (const auto& [dtn, dtype] : kDtypes) {
      SCOPED_TRACE(name + "/" + dtn);
      const std::string prefix = name + "/" + dtn + "/";
      Leaves leaves;
      const Tensor x = leaves.add(prefix, "in", grads);
      std::vector<Tensor> hx = {leaves.add(prefix, "hx0", grads)};
      if (mode == 2) hx.push_back(leaves.add(prefix, "hx1", grads));
      const Tensor w_ih = leaves.add(prefix, "w_ih", grads);
      const Tensor w_hh = leaves.add(prefix, "w_hh", grads);
      std::optional<Tensor> b_ih, b_hh;
      if (has_golden(prefix + "b_ih")) b_ih = leaves.add(prefix, "b_ih", grads);
      if (has_golden(prefix + "b_hh")) b_hh = leaves.add(prefix, "b_hh", grads);
      std::vector<Tensor> outs;
      switch (mode) {
        case 0:
          outs = {rnn_tanh_cell(x, hx[0], w_ih, w_hh, b_ih, b_hh)};
          break;
        case 1:
          outs = {rnn_relu_cell(x, hx[0], w_ih, w_hh, b_ih, b_hh)};
          break;
        case 2: {
          auto [h, c] = lstm_cell(x, hx, w_ih, w_hh, b_ih, b_hh);
          outs = {h, c};
          break;
        }
        default:
          outs = {gru_cell(x, hx[0], w_ih, w_hh, b_ih, b_hh)};
      }
      expect_case(prefix, dtype, outs, leaves, grads);
    }
  }
}

// One recorded layer case through the function its spec names.
std::vector<Tensor> run_layers(const std::vector<double>& spec, const Tensor& x,
                               const Tensor& batch_sizes, const std::vector<Tensor>& hx,
                               const std::vector<Tensor>& params) {
  const int mode = static_cast<int>(spec[0]);
  const bool bias = spec[1] != 0;
  const int64_t layers = static_cast<int64_t>(spec[2]);
  const double dropout = spec[3];
  const bool train = spec[4] != 0, bidir = spec[5] != 0, batch_first = spec[6] != 0;
  const bool packed = spec[7] != 0;
  if (mode == 2) {
    auto [out, h, c] = packed
                           ? lstm(x, batch_sizes, hx, params, bias, layers, dropout, train, bidir)
                           : lstm(x, hx, params, bias, layers, dropout, train, bidir, batch_first);
    return {out, h, c};
  }
  using Packed = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, const Tensor&,
                                                TensorList, bool, int64_t, double, bool, bool);
  using Padded = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, TensorList, bool,
                                                int64_t, double, bool, bool, bool);
  const Packed packed_fns[] = {&rnn_tanh, &rnn_relu, nullptr, &gru};
  const Padded padded_fns[] = {&rnn_tanh, &rnn_relu, nullptr, &gru};
  auto [out, h] =
      packed ? packed_fns[mode](x, batch_sizes, hx[0], params, bias, layers, dropout, train, bidir)
             : padded_fns[mode](x, hx[0], params, bias, layers, dropout, train, bidir, batch_first);
  return {out, h};
}

TEST(RNNFunctionalGoldenTest, Layers) {
  const std::vector<std::string> names = cases(10);
  EXPECT_EQ(names.size(), 18u);
  for (const std::string& name : names) {
    const std::vector<double> spec = golden(name + "/spec").values;
    const bool lstm_mode = spec[0] == 2;
    const bool packed = spec[7] != 0, grads = spec[8] != 0;
    for (const auto& [dtn, dtype] : kDtypes) {
      SCOPED_TRACE(name + "/" + dtn);
      const std::string prefix = name + "/" + dtn + "/";
      Leaves leaves;
      const Tensor x = leaves.add(prefix, "in", grads);
      std::vector<Tensor> hx = {leaves.add(prefix, "hx0", grads)};
      if (lstm_mode) hx.push_back(leaves.add(prefix, "hx1", grads));
      std::vector<Tensor> params;
      for (int i = 0; has_golden(prefix + "p" + std::to_string(i)); ++i) {
        params.push_back(leaves.add(prefix, "p" + std::to_string(i), grads));
      }
      const Tensor batch_sizes = packed ? golden_tensor(prefix + "batch_sizes") : Tensor();
      manual_seed(static_cast<uint64_t>(spec[9]));
      expect_case(prefix, dtype, run_layers(spec, x, batch_sizes, hx, params), leaves, grads);
    }
  }
}

// The functions and the layers run one recurrence: same parameters, same
// results.
TEST(RNNFunctionalTest, AgreesWithTheLayers) {
  manual_seed(0);
  nn::LSTM m(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2));
  m->eval();
  const Tensor x = randn({4, 2, 3});
  const Tensor h0 = randn({4, 2, 2}), c0 = randn({4, 2, 5});
  auto [out, state] = m(x, std::make_tuple(h0, c0));
  auto [f_out, f_h, f_c] = lstm(x, {h0, c0}, m->flat_weights(), true, 2, 0.0, false, true, false);
  testing::expect_values(f_out, out);
  testing::expect_values(f_h, std::get<0>(state));
  testing::expect_values(f_c, std::get<1>(state));

  nn::GRU gru_m(nn::GRUOptions(3, 4).batch_first(true));
  const Tensor xb = randn({2, 5, 3}), hg = randn({1, 2, 4});
  auto [g_out, g_h] = gru_m(xb, hg);
  auto [fg_out, fg_h] = gru(xb, hg, gru_m->flat_weights(), true, 1, 0.0, false, false, true);
  testing::expect_values(fg_out, g_out);
  testing::expect_values(fg_h, g_h);
}

// --- gradcheck in float64 ---------------------------------------------------

// A flat parameter list for `mode` (w_ih, w_hh, b_ih, b_hh[, w_hr] per
// layer and direction), random float64 leaves.
std::vector<Tensor> random_params(int64_t gates, int64_t input_size, int64_t hidden, int64_t layers,
                                  int64_t dirs, int64_t proj = 0) {
  std::vector<Tensor> params;
  const int64_t out = proj > 0 ? proj : hidden;
  for (int64_t l = 0; l < layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = l == 0 ? input_size : out * dirs;
      params.push_back(randn({gates * hidden, in}, kDouble).requires_grad_());
      params.push_back(randn({gates * hidden, out}, kDouble).requires_grad_());
      params.push_back(randn({gates * hidden}, kDouble).requires_grad_());
      params.push_back(randn({gates * hidden}, kDouble).requires_grad_());
      if (proj > 0) params.push_back(randn({proj, hidden}, kDouble).requires_grad_());
    }
  }
  return params;
}

autograd::variable_list concat(autograd::variable_list a, const std::vector<Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(RNNFunctionalGradcheckTest, PackedBidirectionalLSTMWithProjection) {
  manual_seed(0);
  const std::vector<Tensor> params = random_params(4, 2, 3, 1, 2, /*proj=*/2);
  const Tensor data = randn({6, 2}, kDouble).requires_grad_();
  const Tensor batch_sizes = tensor(std::vector<int64_t>{3, 2, 1}, kLong);
  const Tensor h0 = randn({2, 3, 2}, kDouble).requires_grad_();
  const Tensor c0 = randn({2, 3, 3}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  const std::vector<Tensor> p(in.begin() + 3, in.end());
                  auto [out, h, c] =
                      lstm(in[0], batch_sizes, {in[1], in[2]}, p, true, 1, 0.0, false, true);
                  return {out, h, c};
                },
                concat({data, h0, c0}, params)),
            "");
}

TEST(RNNFunctionalGradcheckTest, TwoLayerGRUBatchFirst) {
  manual_seed(0);
  const std::vector<Tensor> params = random_params(3, 2, 3, 2, 1);
  const Tensor x = randn({2, 3, 2}, kDouble).requires_grad_();
  const Tensor h0 = randn({2, 2, 3}, kDouble).requires_grad_();
  EXPECT_EQ(autograd::gradcheck(
                [&](const autograd::variable_list& in) -> autograd::variable_list {
                  const std::vector<Tensor> p(in.begin() + 2, in.end());
                  auto [out, h] = gru(in[0], in[1], p, true, 2, 0.0, false, false, true);
                  return {out, h};
                },
                concat({x, h0}, params)),
            "");
}

TEST(RNNFunctionalGradcheckTest, Cells) {
  manual_seed(0);
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const Tensor h = randn({2, 4}, kDouble).requires_grad_();
  const Tensor c = randn({2, 4}, kDouble).requires_grad_();
  for (int64_t gates : {1, 3, 4}) {
    const Tensor w_ih = randn({gates * 4, 3}, kDouble).requires_grad_();
    const Tensor w_hh = randn({gates * 4, 4}, kDouble).requires_grad_();
    const Tensor b_ih = randn({gates * 4}, kDouble).requires_grad_();
    const Tensor b_hh = randn({gates * 4}, kDouble).requires_grad_();
    EXPECT_EQ(autograd::gradcheck(
                  [&](const autograd::variable_list& in) -> autograd::variable_list {
                    if (gates == 4) {
                      auto [h1, c1] = lstm_cell(in[0], {in[1], in[2]}, in[3], in[4], in[5], in[6]);
                      return {h1, c1};
                    }
                    if (gates == 3) return {gru_cell(in[0], in[1], in[3], in[4], in[5], in[6])};
                    return {rnn_tanh_cell(in[0], in[1], in[3], in[4], in[5], in[6]),
                            rnn_relu_cell(in[0], in[1], in[3], in[4], in[5], in[6])};
                  },
                  {x, h, c, w_ih, w_hh, b_ih, b_hh}),
              "")
        << gates;
  }
}

// --- CUDA: every step is a device op (needs a GPU; skips without one) ------

std::vector<Tensor> to_device(const std::vector<Tensor>& ts, const Device& dev) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.detach().to(dev).requires_grad_());
  return out;
}

TEST(RNNFunctionalCudaTest, StaysOnTheDeviceAndMatchesTheHost) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  const Device dev(kCUDA, 0);
  manual_seed(0);
  const std::vector<Tensor> params = random_params(4, 3, 4, 2, 2, /*proj=*/2);
  const std::vector<Tensor> host = {randn({5, 3}, kDouble), randn({4, 3, 2}, kDouble),
                                    randn({4, 3, 4}, kDouble)};
  const Tensor batch_sizes = tensor(std::vector<int64_t>{3, 1, 1}, kLong);
  auto run = [&](const std::vector<Tensor>& in, const std::vector<Tensor>& p) {
    auto [out, h, c] = lstm(in[0], batch_sizes, {in[1], in[2]}, p, true, 2, 0.0, false, true);
    (out.sum() + h.sum() + c.sum()).backward();
    return std::vector<Tensor>{out, h, c};
  };
  const std::vector<Tensor> host_in = to_device(host, Device(kCPU));
  const std::vector<Tensor> host_p = to_device(params, Device(kCPU));
  const std::vector<Tensor> want = run(host_in, host_p);
  const std::vector<Tensor> dev_in = to_device(host, dev);
  const std::vector<Tensor> dev_p = to_device(params, dev);
  // A host fallback would have warned (Note [CPU fallback]).
  ::testing::internal::CaptureStderr();
  const std::vector<Tensor> got = run(dev_in, dev_p);
  cuda::synchronize();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].is_cuda()) << i;
    testing::expect_values(got[i].detach().to(Device(kCPU)), want[i].detach(), 1e-10);
  }
  for (size_t i = 0; i < dev_p.size(); ++i) {
    ASSERT_TRUE(dev_p[i].grad().is_cuda()) << i;
    testing::expect_values(dev_p[i].grad().to(Device(kCPU)), host_p[i].grad(), 1e-10);
  }
  const Tensor x = randn({2, 3}, TensorOptions(kFloat).device(dev));
  const Tensor h = randn({2, 4}, TensorOptions(kFloat).device(dev));
  const Tensor w_ih = randn({12, 3}, TensorOptions(kFloat).device(dev));
  const Tensor w_hh = randn({12, 4}, TensorOptions(kFloat).device(dev));
  EXPECT_TRUE(gru_cell(x, h, w_ih, w_hh).is_cuda());
  // Parameters left on the host: 1.13's check_attributes message.
  testing::expect_error(
      [&] {
        gru(randn({2, 1, 3}, TensorOptions(kFloat).device(dev)), h.unsqueeze(0).narrow(1, 0, 1),
            {w_ih.to(Device(kCPU)), w_hh}, false, 1, 0.0, false, false, false);
      },
      "Input and parameter tensors are not at the same device, found input tensor at cuda:0 and "
      "parameter tensor at cpu");
}

// --- errors -------------------------------------------------------------------

Tensor z(std::vector<int64_t> sizes) { return zeros(sizes); }

// PyTorch's flat parameters for the error cases (values do not matter).
std::vector<Tensor> params_of(int64_t gates, int64_t input_size, int64_t hidden,
                              int64_t layers = 1) {
  std::vector<Tensor> p;
  for (int64_t l = 0; l < layers; ++l) {
    p.push_back(z({gates * hidden, l == 0 ? input_size : hidden}));
    p.push_back(z({gates * hidden, hidden}));
    p.push_back(z({gates * hidden}));
    p.push_back(z({gates * hidden}));
  }
  return p;
}

std::vector<Tensor> head(const std::vector<Tensor>& v, size_t n) {
  return std::vector<Tensor>(v.begin(), v.begin() + n);
}

TEST(RNNFunctionalErrorTest, Cells) {
  const Tensor x = z({3, 4});
  expect_error("lstm_cell.one_state", [&] { lstm_cell(x, {z({3, 5})}, z({20, 4}), z({20, 5})); });
  expect_error("lstm_cell.three_states", [&] {
    lstm_cell(x, {z({3, 5}), z({3, 5}), z({3, 5})}, z({20, 4}), z({20, 5}));
  });
  expect_error("lstm_cell.input_1d", [&] {
    lstm_cell(z({4}), {z({5}), z({5})}, z({20, 4}), z({20, 5}));
  });
  expect_error("lstm_cell.input_size", [&] {
    lstm_cell(z({3, 3}), {z({3, 5}), z({3, 5})}, z({20, 4}), z({20, 5}));
  });
  expect_error("lstm_cell.h_batch", [&] {
    lstm_cell(x, {z({2, 5}), z({3, 5})}, z({20, 4}), z({20, 5}));
  });
  expect_error("lstm_cell.c_hidden_size", [&] {
    lstm_cell(x, {z({3, 5}), z({3, 4})}, z({20, 4}), z({20, 5}));
  });
  expect_error("gru_cell.input_1d", [&] { gru_cell(z({4}), z({5}), z({15, 4}), z({15, 5})); });
  expect_error("gru_cell.hidden_size", [&] { gru_cell(x, z({3, 4}), z({15, 4}), z({15, 5})); });
  expect_error("rnn_tanh_cell.input_size", [&] {
    rnn_tanh_cell(z({3, 3}), z({3, 5}), z({5, 4}), z({5, 5}));
  });
  expect_error("rnn_relu_cell.hidden_batch", [&] {
    rnn_relu_cell(x, z({2, 5}), z({5, 4}), z({5, 5}));
  });
  expect_error("rnn_relu_cell.input_1d", [&] {
    rnn_relu_cell(z({4}), z({5}), z({5, 4}), z({5, 5}));
  });
}

TEST(RNNFunctionalErrorTest, LSTM) {
  const Tensor x = z({3, 2, 4});
  const std::vector<Tensor> p = params_of(4, 4, 5, 2);
  const Tensor h = z({2, 2, 5}), c = z({2, 2, 5});
  expect_error("lstm.one_state", [&] { lstm(x, {h}, p, true, 2, 0.0, false, false, false); });
  expect_error("lstm.params_count", [&] {
    lstm(x, {h, c}, head(p, 6), true, 2, 0.0, false, false, false);
  });
  expect_error("lstm.params_count_projection", [&] {
    lstm(x, {h, z({2, 2, 6})}, p, true, 2, 0.0, false, false, false);
  });
  expect_error("lstm.has_biases_false", [&] {
    lstm(x, {h, c}, p, false, 2, 0.0, false, false, false);
  });
  expect_error("lstm.num_layers", [&] { lstm(x, {h, c}, p, true, 1, 0.0, false, false, false); });
  expect_error("lstm.hx_2d", [&] {
    lstm(x, {z({2, 5}), z({2, 5})}, p, true, 2, 0.0, false, false, false);
  });
  expect_error("lstm.hidden_batch", [&] {
    lstm(x, {z({2, 1, 5}), z({2, 1, 5})}, p, true, 2, 0.0, false, false, false);
  });
  expect_error("lstm.empty_sequence", [&] {
    lstm(z({0, 2, 4}), {h, c}, p, true, 2, 0.0, false, false, false);
  });
  expect_error("lstm.dropout_range", [&] { lstm(x, {h, c}, p, true, 2, 1.5, true, false, false); });
  expect_error("lstm.batch_first_hidden", [&] {
    lstm(x, {h, c}, p, true, 2, 0.0, false, false, true);
  });
  expect_error("lstm.packed_one_state", [&] {
    lstm(z({4, 4}), tensor(std::vector<int64_t>{2, 1, 1}, kLong), {h}, p, true, 2, 0.0, false,
         false);
  });
  // 1.13 reads past hx[1] here; ember says what is wrong.
  testing::expect_error(
      [&] {
        lstm(x, {h, z({1, 2, 5})}, p, true, 2, 0.0, false, false, false);
      },
      "lstm: hx[1] has fewer layers (1) than hx[0] (2)");
}

TEST(RNNFunctionalErrorTest, GRUAndRNN) {
  const Tensor x = z({3, 2, 4});
  const std::vector<Tensor> p = params_of(3, 4, 5);
  std::vector<Tensor> twice = p;
  twice.insert(twice.end(), p.begin(), p.end());
  const Tensor sizes = tensor(std::vector<int64_t>{2, 1, 1}, kLong);
  expect_error("gru.params_count", [&] {
    gru(x, z({1, 2, 5}), head(p, 3), true, 1, 0.0, false, false, false);
  });
  expect_error("gru.more_weights", [&] {
    gru(x, z({1, 2, 5}), twice, true, 1, 0.0, false, false, false);
  });
  expect_error("gru.more_states", [&] {
    gru(x, z({2, 2, 5}), p, true, 1, 0.0, false, false, false);
  });
  expect_error("gru.bidirectional_odd_states", [&] {
    gru(x, z({3, 2, 5}), twice, true, 1, 0.0, false, true, false);
  });
  expect_error("gru.bidirectional_odd_params", [&] {
    gru(x, z({2, 2, 5}), p, true, 1, 0.0, false, true, false);
  });
  expect_error("gru.input_size", [&] {
    gru(z({3, 2, 3}), z({1, 2, 5}), p, true, 1, 0.0, false, false, false);
  });
  expect_error("gru.packed_hidden_batch", [&] {
    gru(z({4, 4}), sizes, z({1, 1, 5}), p, true, 1, 0.0, false, false);
  });
  expect_error("gru.packed_batch_sizes_float", [&] {
    gru(z({4, 4}), tensor({2.0f, 1.0f, 1.0f}), z({1, 2, 5}), p, true, 1, 0.0, false, false);
  });
  const std::vector<Tensor> pr = params_of(1, 4, 5);
  expect_error("rnn_tanh.input_size", [&] {
    rnn_tanh(z({3, 2, 3}), z({1, 2, 5}), pr, true, 1, 0.0, false, false, false);
  });
  expect_error("rnn_relu.hidden_batch", [&] {
    rnn_relu(x, z({1, 1, 5}), pr, true, 1, 0.0, false, false, false);
  });
  expect_error("rnn_relu.hidden_size", [&] {
    rnn_relu(x, z({1, 2, 4}), pr, true, 1, 0.0, false, false, false);
  });
}

}  // namespace
}  // namespace ember
