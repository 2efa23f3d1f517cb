// The loops the index ops hand a device's kernel (IndexLoop, Note [Index
// kernels on devices] in tensor/index_kernels.h), checked without a GPU:
// with the host-backed fake CUDA backend and a host interpreter of IndexLoop
// registered as the "CUDA" kernel, every op on the fake device must return
// exactly what the CPU op returns, over layouts (transposed, sliced,
// expanded), 0-dim and empty tensors, and report out-of-range values with
// the CPU's message. The real kernels (tensor/cuda/index.cu) walk the same
// loop; //tensor/cuda:index_ops_test compares them on a GPU.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/index_kernels.h"
#include "tensor/indexing.h"
#include "tensor/nn_ops.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/testing/fake_cuda.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using ::ember::indexing::None;
using ::ember::testing::error_of;

// IndexLoop's meaning, on host memory, in the loop's row-major order; the
// first value out of range throws the message the device record gives.
void interpret(const detail::IndexLoop& l, const Tensor& dst, const Tensor& index,
               const Tensor& src) {
  const size_t nd = l.sizes.size();
  ASSERT_EQ(l.dst_strides.size(), nd);
  ASSERT_EQ(l.index_strides.size(), nd);
  ASSERT_EQ(l.src_strides.size(), nd);
  int64_t numel = 1;
  for (int64_t s : l.sizes) numel *= s;
  const int64_t* ip = static_cast<const int64_t*>(index.data_ptr());
  EMBER_DISPATCH_ALL_TYPES(dst.dtype(), "interpret", [&] {
    scalar_t* d = static_cast<scalar_t*>(dst.data_ptr());
    const scalar_t* s = src.defined() ? static_cast<const scalar_t*>(src.data_ptr()) : nullptr;
    for (int64_t i = 0; i < numel; ++i) {
      int64_t rest = i, od = 0, oi = 0, os = 0;
      for (size_t k = nd; k-- > 0;) {
        const int64_t c = rest % l.sizes[k];
        rest /= l.sizes[k];
        od += c * l.dst_strides[k];
        oi += c * l.index_strides[k];
        os += c * l.src_strides[k];
      }
      const int64_t raw = ip[oi];
      const int64_t v = (l.wrap && raw < 0) ? raw + l.bound : raw;
      if (v < 0 || v >= l.bound) {
        throw Error(absl::StrCat("bad index ", raw, " dim ", l.dim, " size ", l.bound, " check ",
                                 static_cast<int>(l.check)));
      }
      switch (l.mode) {
        case detail::IndexMode::kGather:
          d[od] = s[os + v * l.dim_stride];
          break;
        case detail::IndexMode::kScatter:
          d[od + v * l.dim_stride] = s[os];
          break;
        case detail::IndexMode::kFill:
          d[od + v * l.dim_stride] = l.value.to<scalar_t>();
          break;
        case detail::IndexMode::kAdd: {
          scalar_t& t = d[od + v * l.dim_stride];
          if constexpr (std::is_same<scalar_t, bool>::value) {
            t = t || (l.value.to<bool>() && s[os]);
          } else {
            t = static_cast<scalar_t>(t + l.value.to<scalar_t>() * s[os]);
          }
          break;
        }
      }
    }
  });
}

void interpret_triangle(Tensor& r, int64_t diagonal, bool lower) {
  const int64_t m = r.size(-2), n = r.size(-1);
  ASSERT_TRUE(r.is_contiguous());
  char* p = static_cast<char*>(r.data_ptr());
  const int64_t esz = r.element_size();
  for (int64_t i = 0; i < r.numel(); ++i) {
    const int64_t col = i % n, row = (i / n) % m;
    if (lower ? col > row + diagonal : col < row + diagonal) std::memset(p + i * esz, 0, esz);
  }
}

class IndexLoopTest : public ::testing::Test {
 protected:
  IndexLoopTest()
      : saved_index_(detail::index_kernel.get(kCUDA)),
        saved_triangle_(detail::triangle_kernel.get(kCUDA)) {
    detail::index_kernel.set(kCUDA,
                             [](const detail::IndexLoop& l, const Tensor& dst, const Tensor& index,
                                const Tensor& src) { interpret(l, dst, index, src); });
    detail::triangle_kernel.set(kCUDA, &interpret_triangle);
  }
  ~IndexLoopTest() override {
    detail::index_kernel.set(kCUDA, saved_index_);
    detail::triangle_kernel.set(kCUDA, saved_triangle_);
  }
  testing::FakeCudaBackend backend_;
  detail::IndexKernelFn saved_index_;
  detail::TriangleKernelFn saved_triangle_;
};

using On = std::function<Tensor(const Tensor&)>;
struct Case {
  std::string name;
  std::function<Tensor(const On& on)> run;
};

void expect_same_on_device(const std::vector<Case>& cases) {
  const On on_cpu = [](const Tensor& t) { return t; };
  const On on_dev = [](const Tensor& t) { return t.to(Device(kCUDA, 0)); };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor want = c.run(on_cpu);
    Tensor got;
    ASSERT_EQ(error_of([&] { got = c.run(on_dev); }), "(no error)");
    ASSERT_EQ(got.device(), Device(kCUDA, 0));
    const Tensor host = got.to(Device(kCPU));
    ASSERT_EQ(host.sizes(), want.sizes());
    EXPECT_TRUE(host.equal(want)) << "device:\n" << host << "\nCPU:\n" << want;
  }
}

// Integer-valued doubles: sums are exact in any order.
Tensor grid(IntArrayRef sizes) {
  return arange(compute_numel(sizes), TensorOptions(kDouble)).view(sizes) * 3 - 7;
}

TEST_F(IndexLoopTest, GatherScatterLayouts) {
  const Tensor x = grid({4, 5, 6});
  const Tensor perm0 =
      tensor({{{int64_t{3}, 1, 0}, {2, 0, 1}}, {{1, 3, 2}, {0, 2, 3}}});  // [2,2,3]
  const Tensor rep = tensor({{int64_t{0}, 0, 1, 1}, {1, 0, 0, 1}});       // [2,4]
  std::vector<Case> cases;
  for (int64_t d = 0; d < 3; ++d) {
    const Tensor i = (arange(4 * 5 * 6, TensorOptions(kLong)).view({4, 5, 6}) * 7) % x.size(d);
    cases.push_back(
        {absl::StrCat("gather dim ", d), [=](const On& on) { return gather(on(x), d, on(i)); }});
    cases.push_back({absl::StrCat("gather transposed self dim ", d), [=](const On& on) {
                       return gather(on(x).transpose(0, 2), 2 - d, on(i).transpose(0, 2));
                     }});
    cases.push_back({absl::StrCat("scatter_add dim ", d),
                     [=](const On& on) { return scatter_add(on(x), d, on(i), on(x * 2)); }});
    cases.push_back({absl::StrCat("scatter_add into transposed dim ", d), [=](const On& on) {
                       Tensor y = on(x).transpose(0, 1).contiguous().transpose(0, 1);
                       return y.scatter_add_(d, on(i), on(x));
                     }});
  }
  cases.push_back({"gather partial", [=](const On& on) { return gather(on(x), 0, on(perm0)); }});
  cases.push_back({"gather expanded index", [=](const On& on) {
                     return gather(on(x), 2, on(rep.index({0}).view({1, 1, 4})).expand({4, 5, 4}));
                   }});
  cases.push_back({"gather sliced", [=](const On& on) {
                     return gather(on(x).index({indexing::Slice(1, None, 2)}), 1,
                                   on(rep).unsqueeze(0).expand({2, 2, 4}));
                   }});
  cases.push_back(
      {"scatter src", [=](const On& on) { return scatter(on(x), 0, on(perm0), on(x * -1)); }});
  cases.push_back(
      {"scatter expanded src", [=](const On& on) {
         return scatter(on(x), 0, on(perm0), on(tensor(2.5).to(kDouble)).expand({4, 5, 6}));
       }});
  cases.push_back({"scatter value", [=](const On& on) { return scatter(on(x), 2, on(perm0), 9); }});
  cases.push_back({"scatter_ transposed self", [=](const On& on) {
                     Tensor y = on(grid({6, 5, 4})).permute({2, 1, 0});
                     y.scatter_(1, on(perm0), on(x));
                     return y;
                   }});
  cases.push_back(
      {"scatter_add repeated int", [=](const On& on) {
         return scatter_add(on(grid({2, 4}).to(kInt)), 1, on(rep), on(grid({2, 4}).to(kInt)));
       }});
  cases.push_back({"scatter_add bool", [=](const On& on) {
                     return scatter_add(on(zeros({2, 4}, kBool)), 1, on(rep), on(grid({2, 4}) > 0));
                   }});
  cases.push_back({"gather 0-dim", [=](const On& on) {
                     return gather(on(tensor(2.0)), 0, on(tensor(int64_t{0})));
                   }});
  cases.push_back({"gather empty", [=](const On& on) {
                     return gather(on(x), 1, on(empty({4, 0, 6}, kLong)));
                   }});
  expect_same_on_device(cases);
}

TEST_F(IndexLoopTest, IndexOpsAndTake) {
  const Tensor x = grid({4, 5, 6});
  const Tensor i3 = tensor({int64_t{3}, 0, 3, 1});
  const Tensor p3 = tensor({int64_t{2}, 0, 3});
  const Tensor neg = tensor({int64_t{-1}, 0, -4});
  std::vector<Case> cases;
  for (int64_t d = 0; d < 3; ++d) {
    DimVector src_sizes(x.sizes().begin(), x.sizes().end());
    src_sizes[d] = 4;
    const Tensor src = grid(src_sizes) * 5;
    DimVector copy_sizes(x.sizes().begin(), x.sizes().end());
    copy_sizes[d] = 3;
    const Tensor csrc = grid(copy_sizes) + 1000;
    cases.push_back({absl::StrCat("index_select ", d),
                     [=](const On& on) { return index_select(on(x), d, on(i3)); }});
    cases.push_back({absl::StrCat("index_select int32 transposed ", d), [=](const On& on) {
                       return index_select(on(x).transpose(0, 2), d, on(i3.to(kInt)));
                     }});
    cases.push_back({absl::StrCat("index_add ", d),
                     [=](const On& on) { return on(x).index_add(d, on(i3), on(src), 2); }});
    cases.push_back({absl::StrCat("index_add transposed source ", d), [=](const On& on) {
                       return on(x).index_add(d, on(i3),
                                              on(src.transpose(0, 2).contiguous()).transpose(0, 2));
                     }});
    cases.push_back({absl::StrCat("index_copy ", d),
                     [=](const On& on) { return on(x).index_copy(d, on(p3), on(csrc)); }});
    cases.push_back({absl::StrCat("index_copy transposed self ", d), [=](const On& on) {
                       Tensor y = on(x).transpose(0, 1).contiguous().transpose(0, 1);
                       return y.index_copy_(d, on(p3), on(csrc));
                     }});
    cases.push_back({absl::StrCat("index_fill ", d),
                     [=](const On& on) { return on(x).index_fill(d, on(neg), -3); }});
  }
  cases.push_back({"index_add broadcast slice", [=](const On& on) {
                     return on(x).index_add(0, on(i3), on(grid({4, 1, 6})));
                   }});
  cases.push_back({"index_add expanded source", [=](const On& on) {
                     return on(x).index_add(1, on(i3), on(grid({4, 1, 6})).expand({4, 4, 6}));
                   }});
  cases.push_back(
      {"index_add int8 wraps", [=](const On& on) {
         return on(full({4, 2}, 100, kChar)).index_add(0, on(i3), on(full({4, 2}, 90, kChar)), 3);
       }});
  cases.push_back({"index_add bool", [=](const On& on) {
                     return on(zeros({4, 2}, kBool)).index_add(0, on(i3), on(grid({4, 2}) > 0));
                   }});
  cases.push_back({"index_select 0-dim", [=](const On& on) {
                     return index_select(on(tensor(4.0)), 0, on(tensor(int64_t{0})));
                   }});
  cases.push_back({"index_select empty",
                   [=](const On& on) { return index_select(on(x), 2, on(empty({0}, kLong))); }});
  cases.push_back(
      {"index_select strided index", [=](const On& on) {
         return index_select(
             on(x), 1,
             on(tensor({int64_t{4}, 9, 0, 9, 2})).index({indexing::Slice(None, None, 2)}));
       }});
  cases.push_back({"index_add 0-dim", [=](const On& on) {
                     return on(tensor(1.0)).index_add(0, on(tensor({int64_t{0}})), on(tensor(2.0)));
                   }});
  cases.push_back(
      {"index_fill 1-D", [=](const On& on) { return on(grid({5})).index_fill(0, on(neg), 8); }});
  cases.push_back({"embedding", [=](const On& on) {
                     return embedding(on(grid({7, 3})), on(tensor({{int64_t{6}, 0}, {2, 2}})));
                   }});
  cases.push_back({"embedding_backward", [=](const On& on) {
                     // No padding_idx: its mask needs ne, which the fake backend lacks.
                     return embedding_backward(on(grid({2, 2, 3})),
                                               on(tensor({{int64_t{6}, 0}, {6, 2}})), 7, -1);
                   }});
  cases.push_back({"take", [=](const On& on) {
                     return take(on(x), on(tensor({{int64_t{0}, -1}, {119, -120}})));
                   }});
  cases.push_back(
      {"take transposed", [=](const On& on) {
         return take(on(x).transpose(0, 2), on(tensor({{int64_t{0}, -1}, {7, 30}})).t());
       }});
  cases.push_back(
      {"take 0-dim", [=](const On& on) { return take(on(x), on(tensor(int64_t{-2}))); }});
  cases.push_back({"tril", [=](const On& on) { return tril(on(x), -1); }});
  cases.push_back(
      {"triu transposed", [=](const On& on) { return triu(on(x).transpose(1, 2), 2); }});
  cases.push_back({"tril_ bool", [=](const On& on) {
                     Tensor y = on(ones({3, 4}, kBool));
                     return y.tril_(1);
                   }});
  expect_same_on_device(cases);
}

// The loop carries the bound, the dim and the check the device reports.
TEST_F(IndexLoopTest, OutOfRangeValuesReachTheKernelWithTheirMessage) {
  const Tensor x = grid({3, 4}).to(Device(kCUDA, 0));
  auto dev = [](std::vector<int64_t> v) { return tensor(v).to(Device(kCUDA, 0)); };
  EXPECT_EQ(error_of([&] {
              gather(x, 1, dev({4}).view({1, 1}));
            }),
            "bad index 4 dim 1 size 4 check 0");
  EXPECT_EQ(error_of([&] { x.index_fill(1, dev({-5}), 1); }), "bad index -5 dim 1 size 4 check 1");
  EXPECT_EQ(error_of([&] { index_select(x, 0, dev({3})); }), "bad index 3 dim 0 size 3 check 2");
  EXPECT_EQ(error_of([&] { x.index_copy(0, dev({3}), x.index({indexing::Slice(0, 1)})); }),
            "bad index 3 dim 0 size 3 check 3");
  EXPECT_EQ(error_of([&] { take(x, dev({-13})); }), "bad index -13 dim 0 size 12 check 4");
}

}  // namespace
}  // namespace ember
