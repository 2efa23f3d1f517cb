#ifndef EMBER_NN_FUNCTIONAL_TESTING_NN_GOLDEN_H_
#define EMBER_NN_FUNCTIONAL_TESTING_NN_GOLDEN_H_

// The nn ops' golden cases (tools/golden/nn_ops.py): check_case runs `fn`
// on the case's stored inputs in float32 and float64 and compares the
// output and the gradients of sum(out * mk(out.shape, seed 7)) with
// PyTorch's.

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/testing/golden.h"

namespace ember {
namespace testing {

using CaseFn = std::function<Tensor(const std::vector<Tensor>&)>;

// `grads`: the inputs that require grad (those the generator differentiated).
void check_case(const std::string& name, int num_inputs, std::vector<int> grads, const CaseFn& fn,
                int num_outputs = 1);

// The stored input `i` of case `name` in dtype "f32" / "f64".
Tensor case_input(const std::string& name, const char* dtype, int i);
const GoldenEntry& nn_golden(const std::string& name);

void expect_nn_error(const std::string& name, const std::function<void()>& f);

// The same for the cases of tools/golden/nn_ops_more.py
// (nn/functional/testdata/nn_ops_more_golden.inc). f64_grad_rel: the
// float64 gradients' tolerance, where PyTorch rounds a constant to float.
void check_more_case(const std::string& name, int num_inputs, std::vector<int> grads,
                     const CaseFn& fn, double f64_grad_rel = 1e-9);
Tensor more_case_input(const std::string& name, const char* dtype, int i);
const GoldenEntry& nn_more_golden(const std::string& name);
void expect_nn_more_error(const std::string& name, const std::function<void()>& f);

// The same for the cases of tools/golden/nn_ops_extra.py
// (nn/functional/testdata/nn_ops_extra_golden.inc): issue 19's 3-d
// convolutions, 1-d / 3-d / adaptive pooling, interpolate, fold.
void check_extra_case(const std::string& name, int num_inputs, std::vector<int> grads,
                      const CaseFn& fn, double f64_grad_rel = 1e-9);
Tensor extra_case_input(const std::string& name, const char* dtype, int i);
const GoldenEntry& nn_extra_golden(const std::string& name);
void expect_nn_extra_error(const std::string& name, const std::function<void()>& f);

// The same for the cases of tools/golden/nn_ops_misc.py
// (nn/functional/testdata/nn_ops_misc_golden.inc).
void check_misc_case(const std::string& name, int num_inputs, std::vector<int> grads,
                     const CaseFn& fn, double f64_grad_rel = 1e-9);
Tensor misc_case_input(const std::string& name, const char* dtype, int i);
const GoldenEntry& nn_misc_golden(const std::string& name);
void expect_nn_misc_error(const std::string& name, const std::function<void()>& f);

// The same for a generator that writes its own table, which the test
// holds (const GoldenEntry kGolden[] = { #include ".../<family>_golden.inc" }).
void check_case_in(const GoldenEntry* table, size_t n, const std::string& name, int num_inputs,
                   std::vector<int> grads, const CaseFn& fn, double f64_grad_rel = 1e-9);
template <size_t N>
void check_case_in(const GoldenEntry (&table)[N], const std::string& name, int num_inputs,
                   std::vector<int> grads, const CaseFn& fn, double f64_grad_rel = 1e-9) {
  check_case_in(table, N, name, num_inputs, std::move(grads), fn, f64_grad_rel);
}

// For kernels that split their work by thread count: op(x, w) run with 1
// and then 3 intra-op threads, on fresh leaf copies of x and w, gives the
// same output and gradients of sum(y * y) for x and w (within 1e-5).
void expect_same_on_one_and_three_threads(
    const Tensor& x, const Tensor& w,
    const std::function<Tensor(const Tensor&, const Tensor&)>& op);

}  // namespace testing
}  // namespace ember

#endif  // EMBER_NN_FUNCTIONAL_TESTING_NN_GOLDEN_H_
