// parameters_to_vector and vector_to_parameters against PyTorch 1.13
// (tools/golden/nn_modules_misc.py): a Linear(3, 2)'s parameters under
// manual_seed(0) flattened in order; the round trip; errors.
#include "optim/convert_parameters.h"

#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/test_golden_misc.h"
#include "tensor/all.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace nn {
namespace utils {
namespace {

namespace g = ::ember::nn::testing::misc;
using ::ember::testing::matches_golden;

std::vector<Tensor> linear_params() {
  return {g::golden_tensor("p2v.weight").requires_grad_(),
          g::golden_tensor("p2v.bias").requires_grad_()};
}

TEST(ConvertParametersTest, ParametersToVectorMatchesPyTorch) {
  const std::vector<Tensor> params = linear_params();
  const Tensor vec = parameters_to_vector(params);
  EXPECT_TRUE(matches_golden(vec, g::tables().golden("p2v.vector")));
  // Differentiable, as PyTorch's (cat of views).
  (vec * arange(8, kFloat)).sum().backward();
  EXPECT_TRUE(params[1].grad().equal(tensor({6.0f, 7.0f})));
}

TEST(ConvertParametersTest, VectorToParametersCopiesInOrder) {
  std::vector<Tensor> params = linear_params();
  const Tensor weight = params[0];
  // A longer vector's tail is ignored, as in PyTorch.
  vector_to_parameters(arange(10, kFloat), params);
  EXPECT_TRUE(params[0].equal(arange(6, kFloat).view({2, 3})));
  EXPECT_TRUE(params[1].equal(tensor({6.0f, 7.0f})));
  // The parameters keep their identity and stay leaves that require grad.
  EXPECT_TRUE(params[0].is_same(weight));
  EXPECT_TRUE(params[0].is_leaf());
  EXPECT_TRUE(params[0].requires_grad());
  // Round trip.
  const Tensor v = randn({8});
  vector_to_parameters(v, params);
  EXPECT_TRUE(parameters_to_vector(params).detach().equal(v));
}

TEST(ConvertParametersTest, Errors) {
  g::tables().expect_golden_error("v2p.short",
                                  [] { vector_to_parameters(zeros({7}), linear_params()); });
  EXPECT_THROW(vector_to_parameters(Tensor(), linear_params()), TypeError);
}

}  // namespace
}  // namespace utils
}  // namespace nn
}  // namespace ember
