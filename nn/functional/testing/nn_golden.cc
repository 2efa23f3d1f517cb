#include "nn/functional/testing/nn_golden.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tensor/all.h"

namespace ember {
namespace testing {
namespace {

const GoldenEntry kGolden[] = {
#include "tensor/testdata/nn_ops_golden.inc"
};
const GoldenError kErrors[] = {
#include "tensor/testdata/nn_ops_errors_golden.inc"
};
const GoldenEntry kMoreGolden[] = {
#include "nn/functional/testdata/nn_ops_more_golden.inc"
};
const GoldenError kMoreErrors[] = {
#include "nn/functional/testdata/nn_ops_more_errors_golden.inc"
};
const GoldenEntry kExtraGolden[] = {
#include "nn/functional/testdata/nn_ops_extra_golden.inc"
};
const GoldenError kExtraErrors[] = {
#include "nn/functional/testdata/nn_ops_extra_errors_golden.inc"
};
const GoldenEntry kMiscGolden[] = {
#include "nn/functional/testdata/nn_ops_misc_golden.inc"
};
const GoldenError kMiscErrors[] = {
#include "nn/functional/testdata/nn_ops_misc_errors_golden.inc"
};

using Lookup = std::function<const GoldenEntry&(const std::string&)>;
void run_case(const Lookup& golden, const std::string& name, int num_inputs,
              const std::vector<int>& grads, const CaseFn& fn, double f64_grad_rel = 1e-9);

}  // namespace

const GoldenEntry& nn_golden(const std::string& name) { return find_golden(kGolden, name); }

Tensor case_input(const std::string& name, const char* dtype, int i) {
  return golden_tensor(nn_golden(absl::StrCat(name, "/", dtype, "/in", i)));
}

void check_case(const std::string& name, int num_inputs, std::vector<int> grads, const CaseFn& fn,
                int num_outputs) {
  (void)num_outputs;
  run_case(nn_golden, name, num_inputs, grads, fn);
}

const GoldenEntry& nn_more_golden(const std::string& name) {
  return find_golden(kMoreGolden, name);
}

Tensor more_case_input(const std::string& name, const char* dtype, int i) {
  return golden_tensor(nn_more_golden(absl::StrCat(name, "/", dtype, "/in", i)));
}

void check_more_case(const std::string& name, int num_inputs, std::vector<int> grads,
                     const CaseFn& fn, double f64_grad_rel) {
  run_case(nn_more_golden, name, num_inputs, grads, fn, f64_grad_rel);
}

void expect_nn_more_error(const std::string& name, const std::function<void()>& f) {
  expect_golden_error(kMoreErrors, name, f);
}

const GoldenEntry& nn_extra_golden(const std::string& name) {
  return find_golden(kExtraGolden, name);
}

Tensor extra_case_input(const std::string& name, const char* dtype, int i) {
  return golden_tensor(nn_extra_golden(absl::StrCat(name, "/", dtype, "/in", i)));
}

void check_extra_case(const std::string& name, int num_inputs, std::vector<int> grads,
                      const CaseFn& fn, double f64_grad_rel) {
  run_case(nn_extra_golden, name, num_inputs, grads, fn, f64_grad_rel);
}

void expect_nn_extra_error(const std::string& name, const std::function<void()>& f) {
  expect_golden_error(kExtraErrors, name, f);
}

const GoldenEntry& nn_misc_golden(const std::string& name) {
  return find_golden(kMiscGolden, name);
}

Tensor misc_case_input(const std::string& name, const char* dtype, int i) {
  return golden_tensor(nn_misc_golden(absl::StrCat(name, "/", dtype, "/in", i)));
}

void check_misc_case(const std::string& name, int num_inputs, std::vector<int> grads,
                     const CaseFn& fn, double f64_grad_rel) {
  run_case(nn_misc_golden, name, num_inputs, grads, fn, f64_grad_rel);
}

void expect_nn_misc_error(const std::string& name, const std::function<void()>& f) {
  expect_golden_error(kMiscErrors, name, f);
}

void check_case_in(const GoldenEntry* table, size_t n, const std::string& name, int num_inputs,
                   std::vector<int> grads, const CaseFn& fn, double f64_grad_rel) {
  run_case([table,
            n](const std::string& key) -> const GoldenEntry& { return find_golden(table, n, key); },
           name, num_inputs, grads, fn, f64_grad_rel);
}

namespace {

void run_case(const Lookup& golden, const std::string& name, int num_inputs,
              const std::vector<int>& grads, const CaseFn& fn, double f64_grad_rel) {
  for (const char* dt : {"f32", "f64"}) {
    SCOPED_TRACE(absl::StrCat(name, "/", dt));
    const ScalarType dtype = std::string(dt) == "f32" ? kFloat : kDouble;
    // float32 results differ from PyTorch's in summation order only.
    const double rel = dtype == kFloat ? 2e-5 : 1e-10;
    std::vector<Tensor> xs;
    for (int i = 0; i < num_inputs; ++i) {
      Tensor x = golden_tensor(golden(absl::StrCat(name, "/", dt, "/in", i)));
      for (int g : grads) {
        if (g == i) x.requires_grad_(true);
      }
      xs.push_back(x);
    }
    Tensor out = fn(xs);
    const std::string base = absl::StrCat(name, "/", dt, "/");
    EXPECT_TRUE(near_golden(out, golden(base + "out"), dtype, rel));
    if (grads.empty()) continue;
    Tensor weight = make_input(out.sizes(), dtype, 7);
    (out * weight).sum().backward();
    for (int g : grads) {
      SCOPED_TRACE(absl::StrCat("grad", g));
      ASSERT_TRUE(xs[g].grad().defined());
      const double grad_rel = dtype == kFloat ? rel * 10 : f64_grad_rel;
      EXPECT_TRUE(
          near_golden(xs[g].grad(), golden(absl::StrCat(base, "grad", g)), dtype, grad_rel));
    }
  }
}

}  // namespace

void expect_nn_error(const std::string& name, const std::function<void()>& f) {
  expect_golden_error(kErrors, name, f);
}

void expect_same_on_one_and_three_threads(
    const Tensor& x, const Tensor& w,
    const std::function<Tensor(const Tensor&, const Tensor&)>& op) {
  auto run = [&](int threads) {
    set_num_threads(threads);
    Tensor xr = x.clone().requires_grad_(true), wr = w.clone().requires_grad_(true);
    Tensor y = op(xr, wr);
    (y * y).sum().backward();
    return std::vector<Tensor>{y, xr.grad(), wr.grad()};
  };
  const int before = get_num_threads();
  std::vector<Tensor> one = run(1), three = run(3);
  set_num_threads(before);
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(one[i].allclose(three[i], 1e-5, 1e-5)) << i;
  }
}

}  // namespace testing
}  // namespace ember
