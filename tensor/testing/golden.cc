#include "tensor/testing/golden.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/str_join.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/loops.h"

namespace ember {
namespace testing {
namespace {

// Sizes, dtype and values; a value matches when it equals `want`, both are
// NaN, or (rel > 0) |got - want| <= rel * max(floor, |want|).
::testing::AssertionResult compare(const Tensor& t, const std::string& name, ScalarType dtype,
                                   const std::vector<int64_t>& sizes,
                                   const std::vector<double>& values, double rel, double floor) {
  if (t.dtype() != dtype) {
    return ::testing::AssertionFailure()
           << name << ": dtype " << t.dtype() << ", expected " << dtype;
  }
  if (std::vector<int64_t>(t.sizes().begin(), t.sizes().end()) != sizes) {
    return ::testing::AssertionFailure() << name << ": sizes [" << absl::StrJoin(t.sizes(), ", ")
                                         << "], expected [" << absl::StrJoin(sizes, ", ") << "]";
  }
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) {
    const double want = values[i];
    const bool same = (std::isnan(want) && std::isnan(p[i])) || p[i] == want ||
                      (rel > 0 && std::fabs(p[i] - want) <= rel * std::max(floor, std::fabs(want)));
    if (!same) {
      return ::testing::AssertionFailure()
             << name << ": element " << i << " is " << p[i] << ", PyTorch gives " << want;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

const GoldenEntry& find_golden(const GoldenEntry* table, size_t n, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    if (name == table[i].name) return table[i];
  }
  ADD_FAILURE() << "no golden entry " << name;
  static const GoldenEntry kMissing{"missing", {}, kFloat, {}};
  return kMissing;
}

Tensor from_values(IntArrayRef sizes, const std::vector<double>& values, ScalarType dtype) {
  Tensor d = empty(sizes, kDouble);
  EMBER_CHECK(static_cast<size_t>(d.numel()) == values.size(), "from_values: ", values.size(),
              " values for sizes [", absl::StrJoin(sizes, ", "), "]");
  std::copy(values.begin(), values.end(), d.data_ptr<double>());
  return d.to(dtype);
}

::testing::AssertionResult matches_golden(const Tensor& t, const GoldenEntry& g, double rel_tol) {
  return compare(t, g.name, g.dtype, g.sizes, g.values, rel_tol, /*floor=*/0);
}

::testing::AssertionResult near_golden(const Tensor& t, const GoldenEntry& g, ScalarType dtype,
                                       double rel) {
  return compare(t, g.name, dtype, g.sizes, g.values, rel, /*floor=*/1);
}

void expect_golden_error(const GoldenError* table, size_t n, const std::string& name,
                         const std::function<void()>& f) {
  SCOPED_TRACE(name);
  const GoldenError* g = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (name == table[i].name) g = &table[i];
  }
  ASSERT_NE(g, nullptr) << "no golden error " << name;
  try {
    f();
    ADD_FAILURE() << name << ": no error, expected: " << g->message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), g->message) << name;
    const std::string type = g->type;
    EXPECT_EQ(dynamic_cast<const IndexError*>(&e) != nullptr, type == "IndexError")
        << name << ": Python raises " << type;
    EXPECT_EQ(dynamic_cast<const TypeError*>(&e) != nullptr, type == "TypeError")
        << name << ": Python raises " << type;
    EXPECT_EQ(dynamic_cast<const ValueError*>(&e) != nullptr, type == "ValueError")
        << name << ": Python raises " << type;
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

Tensor make_input(IntArrayRef shape, ScalarType dtype, int64_t seed) {
  Tensor d = empty(shape, kDouble);
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) {
    int64_t v = ((i + seed) * 7) % 11;
    if (dtype == kBool) {
      v %= 2;
    } else if (dtype != kByte) {
      v -= 3;
    }
    p[i] = is_floating_point(dtype) ? v * 0.25 : static_cast<double>(v);
  }
  return d.to(dtype);
}

Tensor strided_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return Tensor(
      std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides, offset));
}

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<double> out(c.numel());
  EMBER_DISPATCH_ALL_TYPES(c.dtype(), "values_of", [&] {
    const scalar_t* p = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < c.numel(); ++i) out[i] = cast_value<double>(p[i]);
  });
  return out;
}

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage() == b.impl()->storage();
}

// --- Elementwise math cases ---------------------------------------------------

Tensor make_tensor(const GoldenTensor& g) {
  Tensor base = empty({static_cast<int64_t>(g.storage.size())}, TensorOptions(g.dtype));
  EMBER_DISPATCH_ALL_TYPES(g.dtype, "make_tensor", [&] {
    scalar_t* p = base.data_ptr<scalar_t>();
    for (size_t i = 0; i < g.storage.size(); ++i) p[i] = cast_value<scalar_t>(g.storage[i]);
  });
  return strided_view(base, g.sizes, g.strides, g.offset);
}

double tolerance(ScalarType t) {
  switch (t) {
    case kHalf: return 2e-3;
    case kBFloat16: return 1.6e-2;
    case kFloat: return 4e-6;
    case kDouble: return 1e-13;
    default: return 0;
  }
}

void expect_tensor(const Tensor& actual, const GoldenTensor& want, const std::string& name) {
  ASSERT_TRUE(actual.defined()) << name;
  EXPECT_EQ(actual.dtype(), want.dtype) << name;
  ASSERT_EQ(std::vector<int64_t>(actual.sizes().begin(), actual.sizes().end()), want.sizes)
      << name;
  std::vector<double> got = values_of(actual);
  ASSERT_EQ(got.size(), want.storage.size()) << name;
  const double rtol = tolerance(want.dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    const double w = want.storage[i], g = got[i];
    if (std::isnan(w) || std::isinf(w) || rtol == 0) {
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << name << " [" << i << "]: " << g << " vs nan";
      } else {
        EXPECT_EQ(g, w) << name << " [" << i << "]";
      }
    } else {
      EXPECT_NEAR(g, w, rtol * std::max(1.0, std::abs(w))) << name << " [" << i << "]";
    }
  }
}

namespace {

std::vector<Tensor> inputs_of(const GoldenCase& c) {
  std::vector<Tensor> in;
  for (const GoldenTensor& g : c.inputs) in.push_back(make_tensor(g));
  return in;
}

}  // namespace

void check(const std::string& name, const std::function<Tensor(std::vector<Tensor>&)>& fn) {
  const GoldenCase& c = math_case(name);
  ASSERT_STREQ(c.error, "") << name << " is an error case";
  std::vector<Tensor> in = inputs_of(c);
  expect_tensor(fn(in), c.result, name);
}

void check_bool(const std::string& name, const std::function<bool(std::vector<Tensor>&)>& fn) {
  check(name, [&](std::vector<Tensor>& in) { return scalar_tensor(fn(in), TensorOptions(kBool)); });
}

void check_error(const std::string& name, const std::function<void(std::vector<Tensor>&)>& fn) {
  const GoldenCase& c = math_case(name);
  ASSERT_STRNE(c.error, "") << name << " is not an error case";
  std::vector<Tensor> in = inputs_of(c);
  try {
    fn(in);
    ADD_FAILURE() << name << ": no error, expected: " << c.error;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), c.error) << name;
  }
}

void expect_values(const Tensor& t, const Tensor& want, double tol, bool check_zero_sign) {
  ASSERT_EQ(t.sizes(), want.sizes());
  EXPECT_EQ(t.dtype(), want.dtype());
  const Tensor a = t.to(kDouble).contiguous().flatten();
  const Tensor b = want.to(kDouble).contiguous().flatten();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a[i].item<double>(), y = b[i].item<double>();
    EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y)) ||
                std::abs(x - y) <= tol * (1 + std::abs(y)))
        << "at " << i << ": " << x << ", want " << y;
    if (check_zero_sign && y == 0) {
      EXPECT_EQ(std::signbit(x), std::signbit(y)) << "sign of zero at " << i;
    }
  }
}

}  // namespace testing
}  // namespace ember
