// Advanced indexing on CUDA (x[indices] and index_put_, tensor/cuda/
// advanced_index.cc; Note [Advanced indexing on devices]) against the CPU
// on the same inputs: every dtype; one, several, adjacent and separated
// index tensors; broadcast index tensors; masks; negative indices; empty
// results; non-contiguous self; index tensors on the CPU or on the device;
// index_put_ with broadcast values, and with accumulate (deterministic: the
// same bits on every run, and the CPU's); index values out of range, which
// raise the CPU's IndexError at the next synchronization. Every test needs
// a GPU and skips without one (//tensor:device_guard_test covers the
// fallback where no kernel is linked).

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/ops_testing.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::testing::error_of;
using namespace ::ember::cuda_testing;  // NOLINT
using namespace ::ember::indexing;      // NOLINT

Tensor longs(std::vector<int64_t> v) { return tensor(v); }

// Where an op's index tensors live: as given (the CPU) or on the device.
using On = std::function<Tensor(const Tensor&)>;
const On kHost = [](const Tensor& t) { return t; };
const On kDevice = [](const Tensor& t) { return t.to(kCuda); };

struct Case {
  const char* name;
  // The op on self (on either device) with index tensors placed by `on`.
  std::function<Tensor(const Tensor& self, const On& on)> run;
};

// x of shape [5, 6, 7] and a 2-D view of it.
std::vector<Case> index_cases() {
  const Tensor i0 = longs({4, 0, -1, 2, 2});            // dim 0 (size 5), negative and repeated
  const Tensor i1 = longs({-6, 5, 1});                  // dim 1 (size 6)
  const Tensor i2 = longs({0, 6, -7, 3}).view({2, 2});  // dim 2 (size 7), 2-D
  const Tensor col = longs({3, 1, 0}).view({3, 1});
  const Tensor row = longs({2, -1, 4, 0}).view({1, 4});
  const Tensor mask = values({5, 6, 7}, kBool);
  return {
      {"one", [=](const Tensor& x, const On& on) { return x.index({on(i0)}); }},
      {"two_d", [=](const Tensor& x, const On& on) { return x.index({on(i2.remainder(5))}); }},
      {"dim1",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(), on(i1)});
       }},
      {"last_dim",
       [=](const Tensor& x, const On& on) {
         return x.index({"...", on(i2)});
       }},
      {"adjacent",
       [=](const Tensor& x, const On& on) {
         return x.index({on(i0.slice(0, 0, 3)), on(i1)});
       }},
      {"adjacent_after_slice",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(1, None, 2), on(i1), on(longs({6, 0, -2}))});
       }},
      {"separated",
       [=](const Tensor& x, const On& on) {
         return x.index({on(i0.slice(0, 1, 4)), Slice(), on(longs({1, -1, 3}))});
       }},
      {"broadcast",
       [=](const Tensor& x, const On& on) {
         return x.index({on(col), on(row)});
       }},
      {"broadcast_separated",
       [=](const Tensor& x, const On& on) {
         return x.index({on(col), Slice(), on(row)});
       }},
      {"all_three",
       [=](const Tensor& x, const On& on) {
         return x.index({on(col), on(row), on(longs({6, -7, 0, 1}))});
       }},
      {"expanded_index",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(), on(longs({2, 5}).expand({3, 2}))});
       }},
      {"transposed_index",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(None, 3), Slice(), on(i2.t())});
       }},
      {"mask", [=](const Tensor& x, const On& on) { return x.index({on(mask)}); }},
      {"mask_2d",
       [=](const Tensor& x, const On& on) {
         return x.index({on(tensor({true, false, true, true, false}).view({5, 1}).expand({5, 6}))});
       }},
      {"mask_dim1",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(), on(tensor({false, true, true, false, false, true}))});
       }},
      {"mask_and_index",
       [=](const Tensor& x, const On& on) {
         return x.index(
             {on(tensor({true, false, true, true, false})), Slice(), on(longs({0, 1, 6}))});
       }},
      {"bool_true",
       [=](const Tensor& x, const On&) {
         return x.index({true, None, 1});
       }},
      {"bool_false", [=](const Tensor& x, const On&) { return x.index({false}); }},
      {"empty_index", [=](const Tensor& x, const On& on) { return x.index({on(longs({}))}); }},
      {"empty_mask",
       [=](const Tensor& x, const On& on) {
         return x.index({on(zeros({5, 6}, kBool))});
       }},
      {"zero_dim_index",
       [=](const Tensor& x, const On& on) {
         return x.index({Slice(), on(tensor(int64_t{-2})), on(i2)});
       }},
  };
}

// x[indices] on the device equals the CPU's, bit for bit, with the index
// tensors on the device or left on the CPU.
TEST(CudaIndexingTest, IndexMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Case> cases = index_cases();
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor x = values({5, 6, 7}, t), big = values({5, 12, 7}, t);
    // self [5, 6, 7] contiguous, permuted, and a strided slice, on `on`.
    auto layout = [&](int k, const On& on) {
      if (k == 0) return on(x);
      if (k == 1) return on(x).permute({2, 0, 1}).contiguous().permute({1, 2, 0});
      return on(big).slice(1, 0, 12, 2);
    };
    for (int k = 0; k < 3; ++k) {
      const Tensor self = layout(k, kHost), dself = layout(k, kDevice);
      ASSERT_EQ(dself.is_contiguous(), k == 0);
      for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Tensor want = c.run(self, kHost);
        expect_same(c.run(dself, kDevice), want);
        expect_same(c.run(dself, kHost), want);
      }
    }
  }
}

// The same, for a large gather of rows (an embedding-like lookup) and a
// 1-D tensor indexed by a long index.
TEST(CudaIndexingTest, LargeIndexMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor table = values({1000, 64}, kFloat);
  const Tensor idx = randint(-1000, 1000, {50, 37}, TensorOptions(kLong));
  expect_same(table.to(kCuda).index({idx.to(kCuda)}), table.index({idx}));
  expect_same(table.to(kCuda).index({Slice(), idx.remainder(64).to(kCuda)}),
              table.index({Slice(), idx.remainder(64)}));
  const Tensor flat = table.flatten();
  const Tensor mask = flat.gt(0);
  expect_same(flat.to(kCuda).index({mask.to(kCuda)}), flat.index({mask}));
}

// index_put_ without repeated indices: every value lands where the CPU's
// does, for every dtype, layout and place of the index tensors.
TEST(CudaIndexingTest, IndexPutMatchesTheCpu) {
  SKIP_WITHOUT_CUDA_DEVICE();
  struct PutCase {
    const char* name;
    std::vector<Tensor> indices;  // undefined: the whole dim
    std::vector<int64_t> value_sizes;
  };
  const Tensor none;
  const std::vector<PutCase> cases = {
      {"rows", {longs({4, 0, -2})}, {3, 6, 7}},
      {"rows_broadcast_value", {longs({4, 0, -2})}, {7}},
      {"scalar_value", {longs({1, 3})}, {}},
      {"dim1", {none, longs({-1, 2})}, {5, 1, 7}},
      {"adjacent", {longs({0, 3, 4}), longs({5, 0, 2})}, {3, 7}},
      {"separated", {longs({0, 3, 4}), none, longs({6, -7, 2})}, {3, 6}},
      {"broadcast_indices", {longs({3, 1}).view({2, 1}), longs({0, 2, 5}).view({1, 3})}, {2, 3, 7}},
      {"mask", {values({5, 6}, kBool)}, {7}},
      {"mask_dim1", {none, tensor({true, false, false, true, true, false})}, {5, 3, 1}},
      {"empty", {longs({})}, {}},
  };
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    for (const PutCase& c : cases) {
      SCOPED_TRACE(c.name);
      const Tensor v = values(c.value_sizes, t, 50);
      const Tensor base = values({5, 6, 7}, t, 3);
      for (bool transposed : {false, true}) {
        // A transposed self writes through its strides.
        auto layout = [&](const Tensor& b) {
          return transposed ? b.transpose(0, 2).contiguous().transpose(0, 2) : b.clone();
        };
        for (const On& on : {kDevice, kHost}) {
          Tensor want = layout(base), got = layout(base.to(kCuda));
          ASSERT_EQ(got.is_contiguous(), !transposed);
          std::vector<Tensor> dindices;
          for (const Tensor& i : c.indices) dindices.push_back(i.defined() ? on(i) : i);
          index_put_(want, c.indices, v);
          index_put_(got, dindices, v.to(kCuda));
          expect_same(got, want);
        }
      }
    }
  }
  // Python's x[idx] = v spelling, a scalar value and a view of self.
  Tensor x = values({4, 5}, kFloat);
  Tensor dx = x.to(kCuda);
  x.index_put_({Slice(1, None), longs({0, -1})}, 2.5);
  dx.index_put_({Slice(1, None), longs({0, -1}).to(kCuda)}, 2.5);
  expect_same(dx, x);
  x.index_put_({x.gt(1)}, tensor(-1.f));
  dx.index_put_({dx.gt(1)}, tensor(-1.f).to(kCuda));
  expect_same(dx, x);
}

// Without accumulate, of the values written to one place one wins.
TEST(CudaIndexingTest, IndexPutRepeatedIndicesKeepOneValue) {
  SKIP_WITHOUT_CUDA_DEVICE();
  Tensor x = zeros({3}, TensorOptions(kFloat).device(kCuda));
  index_put_(x, {longs({1, 1, 1, 1}).to(kCuda)}, tensor({1.f, 2.f, 3.f, 4.f}).to(kCuda));
  const Tensor h = x.to(Device(kCPU));
  EXPECT_EQ(h[0].item<float>(), 0);
  EXPECT_EQ(h[2].item<float>(), 0);
  const float v = h[1].item<float>();
  EXPECT_TRUE(v == 1 || v == 2 || v == 3 || v == 4) << v;
}

// With accumulate, repeated indices add up in the order of their positions
// (the CPU's order): the CPU's result, bit for bit, for every dtype.
TEST(CudaIndexingTest, IndexPutAccumulateIsTheCpusSum) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor none;
  struct AccCase {
    const char* name;
    std::vector<Tensor> indices;
    std::vector<int64_t> value_sizes;
  };
  const std::vector<AccCase> cases = {
      {"rows", {longs({4, 0, -1, 4, 0, 4, 2})}, {7, 6, 7}},
      {"rows_broadcast_value", {longs({1, 1, 1, -4})}, {7}},
      {"scalar_value", {longs({2, 2, 0})}, {}},
      {"dim1", {none, longs({5, -1, 0, 5})}, {5, 4, 1}},
      {"adjacent", {longs({0, 3, 0, 0}), longs({5, 1, 5, -1})}, {4, 7}},
      {"separated", {longs({0, 3, 0}), none, longs({6, 2, -1})}, {3, 6}},
      {"broadcast_indices", {longs({3, 3}).view({2, 1}), longs({0, 2, 0}).view({1, 3})}, {2, 3, 7}},
      {"mask", {values({5, 6}, kBool)}, {7}},
      {"empty", {longs({})}, {}},
  };
  for (ScalarType t : kAll) {
    SCOPED_TRACE(scalar_type_name(t));
    for (const AccCase& c : cases) {
      SCOPED_TRACE(c.name);
      const Tensor v = values(c.value_sizes, t, 50);
      Tensor want = values({5, 6, 7}, t, 3);
      Tensor got = want.to(kCuda).transpose(0, 1).contiguous().transpose(0, 1);
      std::vector<Tensor> dindices;
      for (const Tensor& i : c.indices) dindices.push_back(i.defined() ? i.to(kCuda) : i);
      index_put_(want, c.indices, v, /*accumulate=*/true);
      index_put_(got, dindices, v.to(kCuda), /*accumulate=*/true);
      expect_same(got, want);
    }
  }
}

// Many additions into few places: the same bits on every run (no atomics),
// and the CPU's.
TEST(CudaIndexingTest, IndexPutAccumulateIsDeterministic) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor idx = randint(0, 50, {200000}, TensorOptions(kLong));
  for (ScalarType t : {kFloat, kHalf, kDouble}) {
    SCOPED_TRACE(scalar_type_name(t));
    const Tensor v = randn({200000, 8}).to(t);
    const Tensor dv = v.to(kCuda), didx = idx.to(kCuda);
    auto run = [&] {
      Tensor x = zeros({50, 8}, TensorOptions(t).device(kCuda));
      index_put_(x, {didx}, dv, /*accumulate=*/true);
      return x.to(Device(kCPU));
    };
    const Tensor first = run(), second = run();
    EXPECT_TRUE(first.equal(second));
    Tensor want = zeros({50, 8}, TensorOptions(t));
    index_put_(want, {idx}, v, /*accumulate=*/true);
    EXPECT_TRUE(first.to(kDouble).allclose(want.to(kDouble), 1e-2, 1e-2));
    EXPECT_TRUE(first.equal(want));  // the CPU's order of additions
  }
  // A mask and a transposed values tensor, over a second dim.
  const Tensor v = randn({8, 200000});
  Tensor want = zeros({8, 50});
  index_put_(want, {Tensor(), idx}, v, true);
  Tensor got = zeros({8, 50}, TensorOptions(kFloat).device(kCuda));
  index_put_(got, {Tensor(), idx.to(kCuda)}, v.to(kCuda), true);
  expect_same(got, want);
}

// The host-side checks stay immediate and give the CPU's messages.
TEST(CudaIndexingTest, HostSideErrorsAreTheCpus) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({2, 3}, kFloat);
  const std::vector<std::function<void(const Tensor&, const On&)>> ops = {
      [](const Tensor& s, const On& on) { s.index({on(tensor({1.}))}); },
      [](const Tensor& s, const On& on) { s.index({on(tensor({1}, kInt))}); },
      [](const Tensor& s, const On& on) { s.index({on(ones({3}, kBool))}); },
      [](const Tensor& s, const On& on) {
        s.index({Slice(), on(tensor({true, false}))});
      },
      [](const Tensor& s, const On& on) {
        s.index({on(longs({0, 1})), on(longs({0, 1, 2}))});
      },
      [](const Tensor& s, const On& on) {
        s.index({on(longs({0})), on(longs({0})), on(longs({0}))});
      },
      [](const Tensor& s, const On& on) { s.clone().index_put_({on(longs({0}))}, on(ones({4}))); },
      [](const Tensor& s, const On& on) {
        Tensor y = s.clone();
        index_put_(y, {on(longs({1}))}, on(tensor({9}, kInt)), true);
      },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(k);
    const std::string want = error_of([&] { ops[k](x, kHost); });
    ASSERT_NE(want, "(no error)");
    EXPECT_EQ(error_of([&] { ops[k](x.to(kCuda), kDevice); }), want);
  }
  // Index tensors on the CPU or on self's device, never elsewhere.
  EXPECT_EQ(error_of([&] { x.index({longs({0}).to(kCuda)}); }),
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
}

// What `f` throws once the device has been synchronized: the deferred
// device-side check reports there.
std::string device_error_of(const std::function<Tensor()>& f) {
  return error_of([&] { f().to(Device(kCPU)); });
}

// An index out of range: the CPU's IndexError at the next synchronization,
// never a silent read or write; the device stays usable.
TEST(CudaIndexingTest, OutOfRangeIndicesRaiseTheCpusError) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Tensor x = values({3, 4}, kFloat);
  const Tensor dx = x.to(kCuda);
  for (const On& on : {kDevice, kHost}) {
    EXPECT_EQ(device_error_of([&] {
                return dx.index({on(longs({0, 5}))});
              }),
              "index 5 is out of bounds for dimension 0 with size 3");
    EXPECT_EQ(device_error_of([&] { return dx.index({on(longs({-4}))}); }),
              "index -4 is out of bounds for dimension 0 with size 3");
    EXPECT_EQ(device_error_of([&] {
                return dx.index({Slice(), on(longs({1, 4}))});
              }),
              "index 4 is out of bounds for dimension 1 with size 4");
    EXPECT_EQ(device_error_of([&] {
                return dx.index({on(longs({0, 1})), on(longs({3, -5}))});
              }),
              "index -5 is out of bounds for dimension 1 with size 4");
    EXPECT_EQ(device_error_of([&] {
                Tensor y = dx.clone();
                return index_put_(y, {on(longs({3}))}, ones({4}).to(kCuda));
              }),
              "index 3 is out of bounds for dimension 0 with size 3");
    EXPECT_EQ(device_error_of([&] {
                Tensor y = dx.clone();
                return index_put_(y, {on(longs({1, 1, 7}))}, ones({4}).to(kCuda), true);
              }),
              "index 7 is out of bounds for dimension 0 with size 3");
  }
  // The CPU's exception type, and its message for the same input.
  ::ember::testing::expect_error<IndexError>(
      [&] { dx.index({longs({9}).to(kCuda)}).to(Device(kCPU)); },
      error_of([&] { x.index({longs({9})}); }));
  // Reported by cuda::synchronize too; once; the device works afterwards.
  dx.index({longs({3}).to(kCuda)});
  EXPECT_EQ(error_of([] { cuda::synchronize(); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(error_of([] { cuda::synchronize(); }), "(no error)");
  expect_same(dx.index({longs({2, 0})}), x.index({longs({2, 0})}));
  // The valid positions of an op with a bad one are still written (only the
  // bad one moves nothing), as the record says.
  Tensor y = zeros({3}, TensorOptions(kFloat).device(kCuda));
  index_put_(y, {longs({0, 3}).to(kCuda)}, ones({2}).to(kCuda), true);
  EXPECT_EQ(error_of([] { cuda::synchronize(); }),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(y[0].item<float>(), 1);
}

}  // namespace
}  // namespace ember
