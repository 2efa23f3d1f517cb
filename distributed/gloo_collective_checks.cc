// Every collective and P2P op checked against values computed by hand
// (see gloo_test_util.h). Shared by process_group_gloo_test and the
// two-namespace test.

#include <set>

#include <gtest/gtest.h>

#include "distributed/gloo_test_util.h"
#include "tensor/all.h"

namespace ember::distributed::testing {
namespace {

const std::vector<ScalarType> kAllTypes = {kByte,  kChar,  kShort,  kInt,      kLong,
                                           kHalf,  kFloat, kDouble, kBFloat16, kBool};

void wait(const std::shared_ptr<Work>& w) {
  EXPECT_TRUE(w->wait());
  EXPECT_TRUE(w->is_completed());
  EXPECT_EQ(w->exception(), nullptr);
}

// ---------------------------------------------------------------- allreduce

void allreduce_every_dtype(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  for (ScalarType dt : kAllTypes) {
    if (dt == kBool) {
      // SUM is "or", PRODUCT "and": only rank 0 holds true.
      std::vector<Tensor> v{full({3}, r == 0, kBool)};
      wait(pg.allreduce(v));
      EXPECT_TRUE(tensors_equal(v[0], full({3}, true, kBool)));
      std::vector<Tensor> p{full({3}, r == 0, kBool)};
      wait(pg.allreduce(p, {ReduceOp::PRODUCT}));
      EXPECT_TRUE(tensors_equal(p[0], full({3}, false, kBool)));
      continue;
    }
    // rank r holds i + r: the sum is R*i + R(R-1)/2.
    std::vector<Tensor> v{(arange(6) + r).to(dt)};
    wait(pg.allreduce(v));
    EXPECT_TRUE(tensors_equal(v[0], (arange(6) * R + R * (R - 1) / 2).to(dt))) << dtype_name(dt);
  }
}

void allreduce_every_op(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  auto run = [&](Tensor t, ReduceOp op) {
    std::vector<Tensor> v{t};
    wait(pg.allreduce(v, {op}));
    return v[0];
  };
  int64_t fact = 1;
  for (int i = 1; i <= R; ++i) fact *= i;
  EXPECT_TRUE(tensors_equal(run(full({4}, r + 1.0), ReduceOp::PRODUCT), full({4}, double(fact))));
  EXPECT_TRUE(tensors_equal(run(full({4}, r - 1.5), ReduceOp::MIN), full({4}, -1.5)));
  EXPECT_TRUE(tensors_equal(run(full({4}, r - 1.5), ReduceOp::MAX), full({4}, R - 2.5)));
  EXPECT_TRUE(tensors_equal(run(full({4}, float(r)), ReduceOp::AVG), full({4}, (R - 1) / 2.0f)));
  // Integer AVG: sum(2r) = R(R-1), divided by R.
  EXPECT_TRUE(tensors_equal(run(full({4}, 2 * r, kInt), ReduceOp::AVG), full({4}, R - 1, kInt)));
  const int64_t bit = int64_t{1} << r, all_bits = (int64_t{1} << R) - 1;
  EXPECT_TRUE(tensors_equal(run(full({2}, bit | 256, kLong), ReduceOp::BAND), full({2}, 256, kLong)));
  EXPECT_TRUE(tensors_equal(run(full({2}, bit, kShort), ReduceOp::BOR), full({2}, all_bits, kShort)));
  EXPECT_TRUE(tensors_equal(run(full({2}, bit | 64, kByte), ReduceOp::BXOR),
                            full({2}, all_bits | (R % 2 ? 64 : 0), kByte)));
  // Several tensors in one call are reduced together, element by element.
  std::vector<Tensor> two{full({3}, r, kInt), full({3}, 10 * r, kInt)};
  wait(pg.allreduce(two));
  // PyTorch's semantics: all tensors of all ranks reduce into every one.
  EXPECT_TRUE(tensors_equal(two[0], full({3}, 11 * R * (R - 1) / 2, kInt)));
  EXPECT_TRUE(tensors_equal(two[1], full({3}, 11 * R * (R - 1) / 2, kInt)));
}

void allreduce_non_contiguous(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  Tensor base = arange(12, kFloat).reshape({3, 4}) + r;
  Tensor view = base.t();  // non-contiguous, writes must reach base
  ASSERT_FALSE(view.is_contiguous());
  std::vector<Tensor> v{view};
  wait(pg.allreduce(v));
  EXPECT_TRUE(tensors_equal(base, arange(12, kFloat).reshape({3, 4}) * R + R * (R - 1) / 2));
  // A strided slice of a bigger tensor: elements between stay untouched.
  Tensor big = full({10}, -7.0);
  Tensor every_other = big.slice(0, 0, 10, 2);
  every_other.fill_(r);
  std::vector<Tensor> s{every_other};
  wait(pg.allreduce(s, {ReduceOp::MAX}));
  EXPECT_TRUE(tensors_equal(big.slice(0, 0, 10, 2), full({5}, R - 1.0)));
  EXPECT_TRUE(tensors_equal(big.slice(0, 1, 10, 2), full({5}, -7.0)));
}

void allreduce_async(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  std::vector<std::vector<Tensor>> ts;
  std::vector<std::shared_ptr<Work>> works;
  for (int i = 0; i < 6; ++i) ts.push_back({full({1000}, r * (i + 1), kLong)});
  for (int i = 0; i < 6; ++i) works.push_back(pg.allreduce(ts[i]));
  for (int i = 1; i < 6; ++i) {
    EXPECT_EQ(works[i]->sequence_number(), works[i - 1]->sequence_number() + 1);
  }
  // Waiting on the last first: ops complete in issue order anyway.
  wait(works[5]);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(works[i]->is_completed());
    wait(works[i]);
    EXPECT_TRUE(tensors_equal(ts[i][0], full({1000}, (i + 1) * R * (R - 1) / 2, kLong)));
  }
}

// Big enough for several of gloo's segments (Note [All-reduce segment
// size]: 4 MiB), the last one partial, and an odd element count.
void allreduce_many_segments(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  const int64_t n = (int64_t{9} << 20) + 5;  // 36 MiB of int32
  Tensor pattern = arange(n, kInt) % 1000;
  std::vector<Tensor> v{pattern + r};
  wait(pg.allreduce(v));
  EXPECT_TRUE(tensors_equal(v[0], pattern * R + R * (R - 1) / 2));
}

void allreduce_errors(ProcessGroupGloo& pg) {
  std::vector<Tensor> f{ones({2})};
  EXPECT_THROW(
      {
        try {
          pg.allreduce(f, {ReduceOp::BAND});
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("Cannot use ReduceOp.BAND with non-integral dtype"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  std::vector<Tensor> empty_list;
  EXPECT_THROW(pg.allreduce(empty_list), Error);
  std::vector<Tensor> mixed{ones({2}), ones({3})};
  EXPECT_THROW(pg.allreduce(mixed), Error);
  std::vector<Tensor> bools{ones({2}, kBool)};
  EXPECT_THROW(pg.allreduce(bools, {ReduceOp::AVG}), Error);
  // The group still works after rejected calls.
  std::vector<Tensor> ok{ones({2})};
  wait(pg.allreduce(ok));
  EXPECT_TRUE(tensors_equal(ok[0], full({2}, float(pg.size()))));
}

// ---------------------------------------------------------------- others

void broadcast_and_reduce(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  for (int root = 0; root < R; ++root) {
    for (ScalarType dt : {kFloat, kLong, kHalf, kBool, kByte}) {
      std::vector<Tensor> v{full({5}, r == root ? 1 : 0, dt)};
      wait(pg.broadcast(v, {root}));
      EXPECT_TRUE(tensors_equal(v[0], full({5}, 1, dt)));
    }
    // Non-contiguous destination (a column).
    Tensor m = full({3, 4}, double(r));
    std::vector<Tensor> col{m.select(1, 2)};
    wait(pg.broadcast(col, {root}));
    EXPECT_TRUE(tensors_equal(m.select(1, 2), full({3}, double(root))));
    EXPECT_TRUE(tensors_equal(m.select(1, 0), full({3}, double(r))));
    // reduce to root: sum of (i + r).
    std::vector<Tensor> red{(arange(4) + r).to(kInt)};
    wait(pg.reduce(red, {ReduceOp::SUM, root}));
    if (r == root) {
      EXPECT_TRUE(tensors_equal(red[0], (arange(4) * R + R * (R - 1) / 2).to(kInt)));
    }
    std::vector<Tensor> mx{full({2}, float(r))};
    wait(pg.reduce(mx, {ReduceOp::AVG, root}));
    if (r == root) {
      EXPECT_TRUE(tensors_equal(mx[0], full({2}, (R - 1) / 2.0f)));
    }
  }
  std::vector<Tensor> v{ones({1})};
  EXPECT_THROW(pg.broadcast(v, {R}), Error);
  EXPECT_THROW(pg.reduce(v, {ReduceOp::SUM, -1}), Error);
}

void gathers_and_scatter(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  // allgather into contiguous and transposed outputs.
  std::vector<Tensor> in{full({2, 3}, r, kInt)};
  std::vector<std::vector<Tensor>> outs(1);
  for (int q = 0; q < R; ++q) {
    outs[0].push_back(q % 2 ? empty({3, 2}, kInt).t() : empty({2, 3}, kInt));
  }
  wait(pg.allgather(outs, in));
  for (int q = 0; q < R; ++q) EXPECT_TRUE(tensors_equal(outs[0][q], full({2, 3}, q, kInt)));
  // allgather of a non-contiguous input.
  Tensor m = arange(6, kDouble).reshape({2, 3}) + 100 * r;
  std::vector<Tensor> in2{m.t()};
  std::vector<std::vector<Tensor>> outs2(1);
  for (int q = 0; q < R; ++q) outs2[0].push_back(empty({3, 2}, kDouble));
  wait(pg.allgather(outs2, in2));
  for (int q = 0; q < R; ++q) {
    EXPECT_TRUE(tensors_equal(outs2[0][q], (arange(6, kDouble).reshape({2, 3}) + 100 * q).t()));
  }
  // gather to the last rank.
  const int root = R - 1;
  std::vector<Tensor> gin{full({4}, r * 1.5f, kBFloat16)};
  std::vector<std::vector<Tensor>> gout;
  if (r == root) {
    gout.resize(1);
    for (int q = 0; q < R; ++q) gout[0].push_back(empty({4}, kBFloat16));
  }
  wait(pg.gather(gout, gin, root));
  if (r == root) {
    for (int q = 0; q < R; ++q) EXPECT_TRUE(tensors_equal(gout[0][q], full({4}, q * 1.5f, kBFloat16)));
  }
  // scatter from rank 0, into a non-contiguous output.
  std::vector<std::vector<Tensor>> sin;
  if (r == 0) {
    sin.resize(1);
    for (int q = 0; q < R; ++q) sin[0].push_back(full({2, 2}, 10 * q, kShort));
  }
  Tensor dst = empty({2, 2}, kShort).t();
  std::vector<Tensor> sout{dst};
  wait(pg.scatter(sout, sin, 0));
  EXPECT_TRUE(tensors_equal(dst, full({2, 2}, 10 * r, kShort)));
  // Argument errors.
  std::vector<std::vector<Tensor>> short_list(1);
  short_list[0].push_back(empty({2, 3}, kInt));
  EXPECT_THROW(pg.allgather(short_list, in), Error);
  std::vector<std::vector<Tensor>> wrong_type(1);
  for (int q = 0; q < R; ++q) wrong_type[0].push_back(empty({2, 3}, kFloat));
  EXPECT_THROW(pg.allgather(wrong_type, in), Error);
  if (r != root) {
    std::vector<std::vector<Tensor>> not_empty(1, std::vector<Tensor>(R, empty({4}, kBFloat16)));
    EXPECT_THROW(pg.gather(not_empty, gin, root), Error);
  }
}

void reduce_scatter_and_alltoall(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  // reduce_scatter: inputs[q] = 100 r + q; rank r gets sum_p (100 p + r).
  std::vector<std::vector<Tensor>> in(1);
  for (int q = 0; q < R; ++q) in[0].push_back(full({2}, 100 * r + q, kLong));
  std::vector<Tensor> out{empty({2}, kLong)};
  wait(pg.reduce_scatter(out, in));
  EXPECT_TRUE(tensors_equal(out[0], full({2}, 100 * R * (R - 1) / 2 + R * r, kLong)));
  std::vector<Tensor> avg{empty({2}, kFloat)};
  std::vector<std::vector<Tensor>> fin(1);
  for (int q = 0; q < R; ++q) fin[0].push_back(full({2}, float(r + q)));
  wait(pg.reduce_scatter(avg, fin, ReduceOp::AVG));
  EXPECT_TRUE(tensors_equal(avg[0], full({2}, (R - 1) / 2.0f + r)));

  // all_to_all, equal splits: 2 rows per rank, rows of 3 elements.
  Tensor src = (arange(2 * R, kInt) + 100 * r).unsqueeze(1).expand({2 * R, 3}).contiguous();
  Tensor dst = empty({2 * R, 3}, kInt);
  wait(pg.alltoall_base(dst, src, {}, {}));
  for (int q = 0; q < R; ++q) {
    Tensor want = (arange(2 * r, 2 * r + 2, kInt) + 100 * q).unsqueeze(1).expand({2, 3});
    EXPECT_TRUE(tensors_equal(dst.narrow(0, 2 * q, 2), want));
  }
  // Uneven: rank r sends q+1 rows to rank q; receives r+1 rows from each.
  std::vector<int64_t> in_split, out_split;
  std::vector<Tensor> parts;
  for (int q = 0; q < R; ++q) {
    in_split.push_back(q + 1);
    out_split.push_back(r + 1);
    parts.push_back(arange(q + 1, kFloat) + 100 * r + 10 * q);
  }
  Tensor usrc = cat(parts);
  Tensor udst = empty({R * (r + 1)}, kFloat);
  wait(pg.alltoall_base(udst, usrc, out_split, in_split));
  for (int q = 0; q < R; ++q) {
    EXPECT_TRUE(tensors_equal(udst.narrow(0, q * (r + 1), r + 1),
                              arange(r + 1, kFloat) + 100 * q + 10 * r));
  }
  // Errors: wrong split count, sums that do not match, indivisible rows.
  EXPECT_THROW(pg.alltoall_base(udst, usrc, {1}, in_split), Error);
  std::vector<int64_t> bad = in_split;
  bad[0] += 1;
  EXPECT_THROW(pg.alltoall_base(udst, usrc, out_split, bad), Error);
  Tensor odd = empty({2 * R + 1}, kFloat);
  EXPECT_THROW(pg.alltoall_base(odd, odd, {}, {}), Error);
}

void point_to_point(ProcessGroupGloo& pg) {
  const int R = pg.size(), r = pg.rank();
  const int next = (r + 1) % R, prev = (r + R - 1) % R;
  // Two messages with different tags, received in the other order.
  std::vector<Tensor> a{full({4}, 10 * r, kInt)}, b{full({4}, 20 * r, kInt)};
  auto s8 = pg.send(b, next, 8);
  auto s7 = pg.send(a, next, 7);
  std::vector<Tensor> ra{empty({4}, kInt)};
  Tensor rb_base = empty({4, 2}, kInt);
  std::vector<Tensor> rb{rb_base.select(1, 1)};  // non-contiguous recv
  auto w7 = pg.recv(ra, prev, 7);
  auto w8 = pg.recv(rb, prev, 8);
  wait(w7);
  wait(w8);
  wait(s7);
  wait(s8);
  EXPECT_TRUE(tensors_equal(ra[0], full({4}, 10 * prev, kInt)));
  EXPECT_TRUE(tensors_equal(rb_base.select(1, 1), full({4}, 20 * prev, kInt)));
  EXPECT_EQ(w7->source_rank(), prev);
  // Any source: every rank sends its rank to rank 0.
  if (r == 0) {
    std::set<int> seen;
    for (int i = 1; i < R; ++i) {
      std::vector<Tensor> t{empty({1}, kDouble)};
      auto w = pg.recv_anysource(t, 3);
      wait(w);
      EXPECT_EQ(t[0].item<double>(), w->source_rank());
      seen.insert(w->source_rank());
    }
    EXPECT_EQ(static_cast<int>(seen.size()), R - 1);
  } else {
    std::vector<Tensor> t{full({1}, double(r), kDouble)};
    wait(pg.send(t, 0, 3));
  }
  // Every dtype travels bit for bit.
  for (ScalarType dt : kAllTypes) {
    std::vector<Tensor> out{(arange(5) * (r + 1)).to(dt)};
    std::vector<Tensor> in{empty({5}, dt)};
    auto ws = pg.send(out, next, 100);
    auto wr = pg.recv(in, prev, 100);
    wait(wr);
    wait(ws);
    EXPECT_TRUE(tensors_equal(in[0], (arange(5) * (prev + 1)).to(dt))) << dtype_name(dt);
  }
  std::vector<Tensor> t{ones({1})};
  EXPECT_THROW(pg.send(t, r, 0), Error);
  EXPECT_THROW(pg.send(t, R, 0), Error);
  EXPECT_THROW(pg.recv(t, next, -1), Error);
  std::vector<Tensor> two{ones({1}), ones({1})};
  EXPECT_THROW(pg.send(two, next, 0), Error);
}

void barriers(ProcessGroupGloo& pg) {
  wait(pg.barrier());
  pg.monitored_barrier(std::chrono::seconds(20));
  pg.monitored_barrier(std::chrono::seconds(20), true);
  wait(pg.barrier());
}

}  // namespace

void check_every_op(ProcessGroupGloo& pg) {
  allreduce_every_dtype(pg);
  allreduce_every_op(pg);
  allreduce_non_contiguous(pg);
  allreduce_async(pg);
  allreduce_many_segments(pg);
  allreduce_errors(pg);
  broadcast_and_reduce(pg);
  gathers_and_scatter(pg);
  reduce_scatter_and_alltoall(pg);
  point_to_point(pg);
  barriers(pg);
}

}  // namespace ember::distributed::testing
