// --time: each op of the main table (sweep.cc's ops()) timed in ember and
// in libtorch on one thread, on the same inputs, to find the ops where
// ember is far slower than 1.13 (a kernel missing, a quadratic algorithm,
// a copy too many). Included by sweep.cc inside its namespace.
//
//   bazel-bin/tools/parity/sweep --time [--elems=N] [--dtype=f32] [--layout=transposed]
//       [--filter=SUBSTRING] [--positive]
//
// Every input of an op gets the same shape, the first of a 1-d, 2-d (square),
// 3-d and 4-d shape of about N elements (default 65536) that both libraries
// accept, filled with normal numbers (no NaN or infinity: LAPACK can loop on
// them; --positive: numbers in [0.01, 2], inside every domain). An op whose output grows faster
// than its input (kron, outer, cartesian products: measured at N / 64 first) is timed at N / 64
// instead. Each side runs in batches of at least 20 ms after a warm-up call; the fastest of three
// batches counts. Lines are sorted by ember's time over libtorch's, slowest first. Timing, not
// correctness: outputs are not compared here (the other modes do that).
//
// --time --grad (with --nn too) times forward and backward together: float leaves, the op,
// then autograd::grad of the outputs that require grad with respect to the leaves (the same
// random grad_outputs on both sides; nothing accumulates in .grad between calls). Ops whose
// outputs need no gradient are not timed.

bool g_time_positive = false;

// Shapes of about `elems` elements with `dims` dims (0 where none).
std::vector<int64_t> timing_shape(int dims, int64_t elems) {
  switch (dims) {
    case 1:
      return {elems};
    case 2: {
      const int64_t s = std::max<int64_t>(1, std::llround(std::sqrt(static_cast<double>(elems))));
      return {s, s};
    }
    case 3:
      return {std::max<int64_t>(1, elems / 1024), 32, 32};
    default:
      return {std::max<int64_t>(1, elems / 4096), 16, 16, 16};
  }
}

Input timing_input(const std::vector<int64_t>& sizes, int dtype, Layout layout, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Input in;
  if (!make_input(sizes, dtype, layout, rng, in)) make_input(sizes, dtype, kContiguous, rng, in);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Dtype& d = kDtypes[dtype];
  for (double& v : in.storage) {
    if (d.floating) {
      v = normal(rng);
      // --positive: inside every function's domain (log, sqrt, acos... of
      // a negative number is NaN, which libm-style vector code may handle
      // lane by lane).
      if (g_time_positive) v = std::fabs(v) * 0.5 + 0.01;
    } else if (d.ember == E::kBool) {
      v = static_cast<double>(rng() % 2);
    } else {
      v = static_cast<double>(rng() % 7);  // small non-negative integers
    }
  }
  return in;
}

// Seconds per call of f: batches of at least 20 ms, the fastest of three.
template <typename F>
double seconds_per_call(const F& f) {
  using Clock = std::chrono::steady_clock;
  f();  // warm-up (caches, lazy initialisation)
  int64_t reps = 1;
  double best = std::numeric_limits<double>::infinity();
  for (int batch = 0; batch < 3;) {
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < reps; ++i) f();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s < 0.02 && reps < (int64_t{1} << 24)) {
      reps *= std::max<int64_t>(2, static_cast<int64_t>(0.025 / std::max(s, 1e-7)));
      continue;
    }
    best = std::min(best, s / static_cast<double>(reps));
    ++batch;
  }
  return best;
}

struct Timing {
  std::string op, shape;
  double ember_s, torch_s;
};

void print_timings(std::vector<Timing>& rows) {
  std::sort(rows.begin(), rows.end(), [](const Timing& a, const Timing& b) {
    return a.ember_s / a.torch_s > b.ember_s / b.torch_s;
  });
  std::printf("%-28s %-14s %12s %12s %7s\n", "op", "shape", "ember us", "libtorch us", "ratio");
  for (const Timing& t : rows) {
    std::printf("%-28s %-14s %12.1f %12.1f %7.2f\n", t.op.c_str(), t.shape.c_str(), t.ember_s * 1e6,
                t.torch_s * 1e6, t.ember_s / t.torch_s);
  }
}

// The inputs of `o` at about `elems` elements that both libraries accept
// (empty when no shape works).
bool timing_inputs(const Op& o, int dtype, Layout layout, int64_t elems, std::vector<Input>& ins) {
  for (int dims = std::max(1, o.min_dim); dims <= 4; ++dims) {
    const std::vector<int64_t> sizes = timing_shape(dims, elems);
    ins.clear();
    for (int i = 0; i < o.arity; ++i) ins.push_back(timing_input(sizes, dtype, layout, 7 + i));
    std::vector<E::Tensor> ein;
    std::vector<torch::Tensor> tin;
    for (const Input& in : ins) {
      ein.push_back(make_ember(in));
      tin.push_back(make_torch(in));
    }
    try {
      o.torch_tensors(tin);
      o.ember_tensors(ein);
      return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

int64_t output_elems(const Op& o, const std::vector<Input>& ins) {
  std::vector<torch::Tensor> tin;
  for (const Input& in : ins) tin.push_back(make_torch(in));
  int64_t n = 0;
  for (const torch::Tensor& t : o.torch_tensors(tin)) n += t.defined() ? t.numel() : 0;
  return n;
}

// --time --grad: one forward and backward of the op on `ins`, for each library. False when
// either library raises or no output requires grad.
template <typename Tensor>
std::vector<Tensor> grads_of(const std::vector<Tensor>& outs, const std::vector<Tensor>& leaves,
                             const std::vector<Tensor>& grad_outputs) {
  if constexpr (std::is_same_v<Tensor, E::Tensor>) {
    return E::autograd::grad(outs, leaves, grad_outputs, false, false, /*allow_unused=*/true);
  } else {
    return torch::autograd::grad(outs, leaves, grad_outputs, false, false, /*allow_unused=*/true);
  }
}

template <typename Tensor, typename F>
std::function<void()> forward_backward(const F& f, const std::vector<Input>& ins, bool& ok) {
  auto leaves = std::make_shared<std::vector<Tensor>>();
  for (const Input& in : ins) leaves->push_back(leaf_of<Tensor>(in));
  auto grad_leaves = std::make_shared<std::vector<Tensor>>();
  for (const Tensor& l : *leaves) {
    if (l.requires_grad()) grad_leaves->push_back(l);
  }
  auto views_of = [leaves, ins] {
    std::vector<Tensor> views;
    for (size_t i = 0; i < ins.size(); ++i) views.push_back(apply_layout((*leaves)[i], ins[i]));
    return views;
  };
  // Which outputs take a gradient, and their grad_outputs (seeded: the same on both sides).
  auto which = std::make_shared<std::vector<size_t>>();
  auto grad_outputs = std::make_shared<std::vector<Tensor>>();
  try {
    const std::vector<Tensor> outs = f(views_of());
    std::mt19937_64 rng(11);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!needs_grad(outs[i])) continue;
      std::vector<double> g(outs[i].numel());
      for (double& v : g) v = normal(rng);
      if constexpr (std::is_same_v<Tensor, E::Tensor>) {
        grad_outputs->push_back(
            E::from_blob(g.data(), outs[i].sizes(), E::TensorOptions(E::kDouble))
                .clone()
                .to(outs[i].scalar_type()));
      } else {
        grad_outputs->push_back(torch::from_blob(g.data(), outs[i].sizes(), torch::kDouble)
                                    .clone()
                                    .to(outs[i].scalar_type()));
      }
      which->push_back(i);
    }
    ok = ok && !which->empty() && !grad_leaves->empty();
    if (ok) {
      std::vector<Tensor> needed;
      for (size_t i : *which) needed.push_back(outs[i]);
      grads_of(needed, *grad_leaves, *grad_outputs);
    }
  } catch (const std::exception&) {
    ok = false;
  }
  return [f, views_of, which, grad_outputs, grad_leaves] {
    const std::vector<Tensor> outs = f(views_of());
    std::vector<Tensor> needed;
    for (size_t i : *which) needed.push_back(outs[i]);
    grads_of(needed, *grad_leaves, *grad_outputs);
  };
}

int run_timing(const std::vector<Op>& table, const std::string& filter, int64_t elems,
               const std::string& dtype_name, Layout layout, bool grad) {
  int dtype = -1;
  for (int i = 0; i < kNumDtypes; ++i) {
    if (dtype_name == kDtypes[i].name) dtype = i;
  }
  if (dtype < 0) {
    std::fprintf(stderr, "--dtype=%s: not one of f32 f64 i64 i32 u8 bool f16 bf16\n",
                 dtype_name.c_str());
    return 2;
  }
  std::vector<Timing> rows;
  std::vector<std::string> skipped;
  for (const Op& o : table) {
    if (!filter.empty() && o.name.find(filter) == std::string::npos) continue;
    if (!accepts(o.kind, kDtypes[dtype])) continue;
    std::vector<Input> ins;
    // Superlinear outputs (kron, outer...) are measured small first.
    if (!timing_inputs(o, dtype, layout, std::max<int64_t>(16, elems / 64), ins)) {
      skipped.push_back(o.name);
      continue;
    }
    int64_t in_elems = 0;
    for (const Input& in : ins) in_elems = std::max<int64_t>(in_elems, in.storage.size());
    const bool superlinear = output_elems(o, ins) > 8 * std::max<int64_t>(in_elems, 1);
    if (!superlinear && !timing_inputs(o, dtype, layout, elems, ins)) {
      skipped.push_back(o.name);
      continue;
    }
    std::vector<E::Tensor> ein;
    std::vector<torch::Tensor> tin;
    for (const Input& in : ins) {
      ein.push_back(make_ember(in));
      tin.push_back(make_torch(in));
    }
    std::function<void()> ember_call = [&] { o.ember_tensors(ein); };
    std::function<void()> torch_call = [&] { o.torch_tensors(tin); };
    if (grad) {
      bool ok = kDtypes[dtype].floating;
      ember_call = forward_backward<E::Tensor>(o.ember_tensors, ins, ok);
      torch_call = forward_backward<torch::Tensor>(o.torch_tensors, ins, ok);
      if (!ok) {
        skipped.push_back(o.name);
        continue;
      }
    }
    Timing t;
    t.op = o.name;
    std::ostringstream shape;
    shape << "[";
    for (size_t i = 0; i < ins[0].sizes.size(); ++i) shape << (i ? "," : "") << ins[0].sizes[i];
    shape << "]";
    t.shape = shape.str();
    t.ember_s = seconds_per_call(ember_call);
    t.torch_s = seconds_per_call(torch_call);
    rows.push_back(t);
    std::fprintf(stderr, "%-28s %-14s %10.1f us %10.1f us\n", t.op.c_str(), t.shape.c_str(),
                 t.ember_s * 1e6, t.torch_s * 1e6);
  }
  print_timings(rows);
  std::printf(
      "%zu ops timed (%s%s, %s, about %lld elements); not timed (no shape both accept%s):",
      rows.size(), grad ? "forward and backward, " : "", kDtypes[dtype].name, kLayoutNames[layout],
      static_cast<long long>(elems), grad ? ", or no gradient" : "");
  for (const std::string& s : skipped) std::printf(" %s;", s.c_str());
  std::printf("\n");
  return 0;
}

int run_nn_timing(const std::vector<Op>& table, const std::string& filter, uint64_t seed,
                  int64_t cases, bool grad) {
  struct Case {
    NnCase c;
    std::vector<E::Tensor> ein;
    std::vector<torch::Tensor> tin;
    std::function<void()> ember_call, torch_call;
  };
  std::vector<Timing> rows;
  std::vector<std::string> skipped;
  for (const Op& o : table) {
    if (!filter.empty() && o.name.find(filter) == std::string::npos) continue;
    std::mt19937_64 rng = op_rng(seed, o.name);  // the cases --nn draws
    std::vector<Case> set;
    for (int64_t draw = 0; draw < 4 * cases && static_cast<int64_t>(set.size()) < cases; ++draw) {
      Case k;
      o.gen(rng, k.c);
      for (const Input& in : k.c.ins) {
        k.ein.push_back(make_ember(in));
        k.tin.push_back(make_torch(in));
      }
      g_p = k.c.p;
      g_q = k.c.q;
      try {
        o.torch_tensors(k.tin);
        o.ember_tensors(k.ein);
      } catch (const std::exception&) {
        continue;  // a case one library refuses (errors are --nn's business)
      }
      if (grad) {
        bool ok = true;
        for (const Input& in : k.c.ins) ok = ok && kDtypes[in.dtype].floating;
        k.ember_call = forward_backward<E::Tensor>(o.ember_tensors, k.c.ins, ok);
        k.torch_call = forward_backward<torch::Tensor>(o.torch_tensors, k.c.ins, ok);
        if (!ok) continue;
      } else {
        const std::vector<E::Tensor> ein = k.ein;
        const std::vector<torch::Tensor> tin = k.tin;
        const auto& ef = o.ember_tensors;
        const auto& tf = o.torch_tensors;
        k.ember_call = [ef, ein] { ef(ein); };
        k.torch_call = [tf, tin] { tf(tin); };
      }
      set.push_back(std::move(k));
    }
    if (set.empty()) {
      skipped.push_back(o.name);
      continue;
    }
    Timing t;
    t.op = o.name;
    t.shape = std::to_string(set.size()) + " cases";
    t.ember_s = seconds_per_call([&] {
      for (const Case& k : set) {
        g_p = k.c.p;
        g_q = k.c.q;
        k.ember_call();
      }
    });
    t.torch_s = seconds_per_call([&] {
      for (const Case& k : set) {
        g_p = k.c.p;
        g_q = k.c.q;
        k.torch_call();
      }
    });
    rows.push_back(t);
    std::fprintf(stderr, "%-28s %-14s %10.1f us %10.1f us\n", t.op.c_str(), t.shape.c_str(),
                 t.ember_s * 1e6, t.torch_s * 1e6);
  }
  print_timings(rows);
  std::printf("%zu nn ops timed (%stheir --nn cases, seed %llu); not timed (no case both accept%s):",
              rows.size(), grad ? "forward and backward, " : "",
              static_cast<unsigned long long>(seed), grad ? ", or no gradient" : "");
  for (const std::string& s : skipped) std::printf(" %s;", s.c_str());
  std::printf("\n");
  return 0;
}
