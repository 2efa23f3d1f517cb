// The loop x[indices] and index_put_ hand a device's kernel
// (AdvancedIndexLoop, Note [Advanced indexing on devices] in
// tensor/index_kernels.h), checked without a GPU: with the host-backed fake
// CUDA backend and a host interpreter registered as the "CUDA" kernel, the
// ops on the fake device must return exactly what they return on the CPU.
// The interpreter follows tensor/cuda/advanced_index.cc's algorithm (a walk
// for index and put; keys, a stable sort and in-order sums of runs for
// accumulate); //tensor/cuda:indexing_test runs the real kernels on a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/index_kernels.h"
#include "tensor/indexing.h"
#include "tensor/testing/fake_cuda.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::indexing;  // NOLINT

// Offsets of loop position i (row-major over dims [begin, end)) along each
// stride vector; false when an index value is out of range (thrown by the
// caller's choice).
int64_t walk(const DimVector& sizes, const DimVector& strides, int64_t begin, int64_t end,
             int64_t i) {
  int64_t off = 0;
  for (int64_t d = end; d-- > begin;) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

// self's offset from the index values at B position j (row-major over B).
int64_t indexed_offset(const detail::AdvancedIndexLoop& l, int64_t j) {
  int64_t off = 0;
  for (size_t k = 0; k < l.indices.size(); ++k) {
    const int64_t* p = l.indices[k].data_ptr<int64_t>();
    const int64_t raw = p[walk(l.sizes, l.index_strides[k], l.b_begin, l.b_end, j)];
    const int64_t size = l.indexed_sizes[k];
    const int64_t v = raw < 0 ? raw + size : raw;
    if (v < 0 || v >= size) {
      throw IndexError(absl::StrCat("index ", raw, " is out of bounds for dimension ",
                                    l.indexed_dims[k], " with size ", size));
    }
    off += v * l.indexed_strides[k];
  }
  return off;
}

void interpret(const detail::AdvancedIndexLoop& l, const Tensor& self, const Tensor& other) {
  const int64_t nd = static_cast<int64_t>(l.sizes.size());
  ASSERT_EQ(static_cast<int64_t>(l.self_strides.size()), nd);
  ASSERT_EQ(static_cast<int64_t>(l.other_strides.size()), nd);
  ASSERT_TRUE(0 <= l.b_begin && l.b_begin <= l.b_end && l.b_end <= nd);
  ASSERT_EQ(l.index_strides.size(), l.indices.size());
  for (size_t k = 0; k < l.indices.size(); ++k) {
    ASSERT_EQ(l.indices[k].device(), self.device());
    ASSERT_EQ(l.indices[k].dtype(), kLong);
    for (int64_t d = 0; d < nd; ++d) {
      if (d < l.b_begin || d >= l.b_end) {
        ASSERT_EQ(l.index_strides[k][d], 0);
      }
    }
  }
  for (int64_t d = l.b_begin; d < l.b_end; ++d) ASSERT_EQ(l.self_strides[d], 0);
  int64_t n_b = 1, n_rest = 1;
  for (int64_t d = 0; d < nd; ++d) (d >= l.b_begin && d < l.b_end ? n_b : n_rest) *= l.sizes[d];
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "interpret", [&] {
    scalar_t* s = static_cast<scalar_t*>(self.data_ptr());
    scalar_t* o = static_cast<scalar_t*>(other.data_ptr());
    // Position (r, j): r over the non-B dims (row-major), j over B.
    auto offsets = [&](int64_t r, int64_t j, const DimVector& strides) {
      int64_t off = walk(l.sizes, strides, l.b_begin, l.b_end, j);
      const int64_t n_after = [&] {
        int64_t n = 1;
        for (int64_t d = l.b_end; d < nd; ++d) n *= l.sizes[d];
        return n;
      }();
      off += walk(l.sizes, strides, l.b_end, nd, r % n_after);
      off += walk(l.sizes, strides, 0, l.b_begin, r / n_after);
      return off;
    };
    if (l.mode != detail::AdvancedIndexMode::kAccumulate) {
      for (int64_t r = 0; r < n_rest; ++r) {
        for (int64_t j = 0; j < n_b; ++j) {
          const int64_t so = offsets(r, j, l.self_strides) + indexed_offset(l, j);
          const int64_t oo = offsets(r, j, l.other_strides);
          if (l.mode == detail::AdvancedIndexMode::kIndex) {
            o[oo] = s[so];
          } else {
            s[so] = o[oo];
          }
        }
      }
      return;
    }
    // Keys, stable sort, runs summed in the order of their positions.
    std::vector<int64_t> keys(n_b), perm(n_b);
    for (int64_t j = 0; j < n_b; ++j) keys[j] = indexed_offset(l, j);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    for (int64_t r = 0; r < n_rest; ++r) {
      for (int64_t t = 0; t < n_b;) {
        const int64_t key = keys[perm[t]];
        scalar_t* dst = s + offsets(r, 0, l.self_strides) + key;
        scalar_t acc = *dst;
        for (; t < n_b && keys[perm[t]] == key; ++t) {
          const scalar_t v = o[offsets(r, perm[t], l.other_strides)];
          if constexpr (std::is_same<scalar_t, bool>::value) {
            acc = acc || v;
          } else {
            acc = static_cast<scalar_t>(acc + v);
          }
        }
        *dst = acc;
      }
    }
  });
}

class AdvancedIndexLoopTest : public ::testing::Test {
 protected:
  AdvancedIndexLoopTest() : saved_(detail::advanced_index_kernel.get(kCUDA)) {
    detail::advanced_index_kernel.set(
        kCUDA, [](const detail::AdvancedIndexLoop& l, const Tensor& self, const Tensor& other) {
          interpret(l, self, other);
        });
  }
  ~AdvancedIndexLoopTest() override { detail::advanced_index_kernel.set(kCUDA, saved_); }
  testing::FakeCudaBackend backend_;
  detail::AdvancedIndexFn saved_;
};

using On = std::function<Tensor(const Tensor&)>;
const On kHost = [](const Tensor& t) { return t; };
const On kDevice = [](const Tensor& t) { return t.to(Device(kCUDA, 0)); };

Tensor longs(std::vector<int64_t> v) { return tensor(v); }

// Distinct integer-valued doubles.
Tensor grid(IntArrayRef sizes) {
  return arange(compute_numel(sizes), TensorOptions(kDouble)).view(sizes) * 3 - 7;
}

// f(self, on) for self on the CPU and on the fake device (index tensors
// there or left on the CPU): the same result.
void expect_same(const std::string& name, const Tensor& self,
                 const std::function<Tensor(const Tensor&, const On&)>& f) {
  SCOPED_TRACE(name);
  const Tensor want = f(self, kHost);
  for (const On& on : {kDevice, kHost}) {
    Tensor got;
    ASSERT_EQ(error_of([&] { got = f(self.to(Device(kCUDA, 0)), on); }), "(no error)");
    ASSERT_EQ(got.device(), Device(kCUDA, 0));
    const Tensor host = got.to(Device(kCPU));
    ASSERT_EQ(host.sizes(), want.sizes());
    EXPECT_TRUE(host.equal(want)) << "device:\n" << host << "\nCPU:\n" << want;
  }
}

TEST_F(AdvancedIndexLoopTest, IndexLayouts) {
  const Tensor x = grid({5, 6, 7});
  const Tensor col = longs({3, 1, 0}).view({3, 1});
  const Tensor row = longs({2, -1, 4, 0}).view({1, 4});
  const Tensor i2 = longs({0, 6, -7, 3}).view({2, 2});
  const Tensor mask = arange(5 * 6 * 7).view({5, 6, 7}).remainder(3).eq(1);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const On&)>>> cases =
      {
          {"one",
           [&](const Tensor& s, const On& on) {
             return s.index({on(longs({4, 0, -1, 2}))});
           }},
          {"dim1",
           [&](const Tensor& s, const On& on) {
             return s.index({Slice(), on(longs({-6, 5}))});
           }},
          {"last",
           [&](const Tensor& s, const On& on) {
             return s.index({"...", on(i2)});
           }},
          {"adjacent_after_slice",
           [&](const Tensor& s, const On& on) {
             return s.index({Slice(1, None, 2), on(longs({0, 5, 1})), on(longs({6, 0, -2}))});
           }},
          {"separated",
           [&](const Tensor& s, const On& on) {
             return s.index({on(col), Slice(), on(row)});
           }},
          {"broadcast",
           [&](const Tensor& s, const On& on) {
             return s.index({on(col), on(row)});
           }},
          {"all_three",
           [&](const Tensor& s, const On& on) {
             return s.index({on(col), on(row), on(longs({6, -7, 0, 1}))});
           }},
          {"expanded",
           [&](const Tensor& s, const On& on) {
             return s.index({Slice(), on(longs({2, 5}).expand({3, 2}))});
           }},
          {"transposed_index",
           [&](const Tensor& s, const On& on) {
             return s.index({Slice(None, 3), Slice(), on(i2.t())});
           }},
          {"mask", [&](const Tensor& s, const On& on) { return s.index({on(mask)}); }},
          {"mask_dim1",
           [&](const Tensor& s, const On& on) {
             return s.index({Slice(), on(tensor({false, true, true, false, false, true}))});
           }},
          {"bool",
           [&](const Tensor& s, const On&) {
             return s.index({true, None, 1});
           }},
          {"empty", [&](const Tensor& s, const On& on) { return s.index({on(longs({}))}); }},
      };
  for (const auto& [name, f] : cases) {
    expect_same(name, x, f);
    expect_same(name + " permuted self", x, [&](const Tensor& s, const On& on) {
      return f(s.permute({2, 0, 1}).contiguous().permute({1, 2, 0}), on);
    });
    expect_same(name + " sliced self", grid({5, 12, 7}),
                [&](const Tensor& s, const On& on) { return f(s.slice(1, 0, 12, 2), on); });
  }
}

TEST_F(AdvancedIndexLoopTest, IndexPutAndAccumulate) {
  const Tensor none;
  struct PutCase {
    std::string name;
    std::vector<Tensor> indices;
    std::vector<int64_t> value_sizes;
  };
  const std::vector<PutCase> cases = {
      {"rows", {longs({4, 0, -2, 4, 0})}, {5, 6, 7}},
      {"rows_broadcast_value", {longs({1, 1, 1, -4})}, {7}},
      {"scalar_value", {longs({2, 2, 0})}, {}},
      {"dim1", {none, longs({5, -1, 0, 5})}, {5, 4, 1}},
      {"adjacent", {longs({0, 3, 0, 0}), longs({5, 1, 5, -1})}, {4, 7}},
      {"adjacent_dims_1_2", {none, longs({0, 3, 0}), longs({5, 1, 5})}, {5, 3}},
      {"separated", {longs({0, 3, 0}), none, longs({6, 2, -1})}, {3, 6}},
      {"broadcast_indices", {longs({3, 3}).view({2, 1}), longs({0, 2, 0}).view({1, 3})}, {2, 3, 7}},
      {"mask", {arange(30).view({5, 6}).remainder(4).eq(0)}, {7}},
      {"empty", {longs({})}, {}},
  };
  for (const PutCase& c : cases) {
    for (bool accumulate : {false, true}) {
      // Without accumulate, repeated indices keep one value: compare only
      // where the values of one place are equal (an expanded value).
      const Tensor v = accumulate ? grid(c.value_sizes) * 0.5 : full(c.value_sizes, 4.5, kDouble);
      expect_same(absl::StrCat(c.name, accumulate ? " accumulate" : ""), grid({5, 6, 7}),
                  [&](const Tensor& s, const On& on) {
                    Tensor y = s.transpose(0, 1).contiguous().transpose(0, 1);
                    std::vector<Tensor> idx;
                    for (const Tensor& i : c.indices) idx.push_back(i.defined() ? on(i) : i);
                    return index_put_(y, idx, v.to(s.device()), accumulate);
                  });
    }
  }
  // Bool and integer accumulation.
  expect_same("bool accumulate", zeros({4, 3}, kBool), [&](const Tensor& s, const On& on) {
    Tensor y = s.clone();
    return index_put_(y, {on(longs({1, 1, 3}))}, ones({3, 3}, kBool).to(s.device()), true);
  });
  expect_same("int accumulate", zeros({4, 3}, kInt), [&](const Tensor& s, const On& on) {
    Tensor y = s.clone();
    return index_put_(y, {none, on(longs({2, 2, 0}))}, full({4, 3}, 3, kInt).to(s.device()), true);
  });
}

TEST_F(AdvancedIndexLoopTest, ErrorsAreTheCpus) {
  const Tensor x = grid({3, 4});
  const Tensor d = x.to(Device(kCUDA, 0));
  for (const On& on : {kDevice, kHost}) {
    EXPECT_EQ(error_of([&] {
                d.index({on(longs({0, 5}))});
              }),
              error_of([&] {
                x.index({longs({0, 5})});
              }));
    EXPECT_EQ(error_of([&] {
                d.index({Slice(), on(longs({-5}))});
              }),
              error_of([&] {
                x.index({Slice(), longs({-5})});
              }));
    EXPECT_EQ(error_of([&] { d.index({on(tensor({1}, kInt))}); }),
              error_of([&] { x.index({tensor({1}, kInt)}); }));
    EXPECT_EQ(error_of([&] { d.clone().index_put_({on(longs({0}))}, ones({5}).to(d.device())); }),
              error_of([&] { x.clone().index_put_({longs({0})}, ones({5})); }));
  }
  EXPECT_EQ(error_of([&] { x.index({longs({0}).to(d.device())}); }),
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
  EXPECT_EQ(error_of([&] {
              Tensor y = d.clone();
              index_put_(y, {longs({0})}, ones({4}, kDouble), true);
            }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!");
}

}  // namespace
}  // namespace ember
