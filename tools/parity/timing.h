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

int run_timing(const std::vector<Op>& table, const std::string& filter, int64_t elems,
               const std::string& dtype_name, Layout layout) {
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
    Timing t;
    t.op = o.name;
    std::ostringstream shape;
    shape << "[";
    for (size_t i = 0; i < ins[0].sizes.size(); ++i) shape << (i ? "," : "") << ins[0].sizes[i];
    shape << "]";
    t.shape = shape.str();
    t.ember_s = seconds_per_call([&] { o.ember_tensors(ein); });
    t.torch_s = seconds_per_call([&] { o.torch_tensors(tin); });
    rows.push_back(t);
    std::fprintf(stderr, "%-28s %-14s %10.1f us %10.1f us\n", t.op.c_str(), t.shape.c_str(),
                 t.ember_s * 1e6, t.torch_s * 1e6);
  }
  print_timings(rows);
  std::printf(
      "%zu ops timed (%s, %s, about %lld elements); not timed (no shape both accept):", rows.size(),
      kDtypes[dtype].name, kLayoutNames[layout], static_cast<long long>(elems));
  for (const std::string& s : skipped) std::printf(" %s;", s.c_str());
  std::printf("\n");
  return 0;
}

int run_nn_timing(const std::vector<Op>& table, const std::string& filter, uint64_t seed,
                  int64_t cases) {
  struct Case {
    NnCase c;
    std::vector<E::Tensor> ein;
    std::vector<torch::Tensor> tin;
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
        o.ember_tensors(k.ein);
      }
    });
    t.torch_s = seconds_per_call([&] {
      for (const Case& k : set) {
        g_p = k.c.p;
        g_q = k.c.q;
        o.torch_tensors(k.tin);
      }
    });
    rows.push_back(t);
    std::fprintf(stderr, "%-28s %-14s %10.1f us %10.1f us\n", t.op.c_str(), t.shape.c_str(),
                 t.ember_s * 1e6, t.torch_s * 1e6);
  }
  print_timings(rows);
  std::printf("%zu nn ops timed (their --nn cases, seed %llu); not timed (no case both accept):",
              rows.size(), static_cast<unsigned long long>(seed));
  for (const std::string& s : skipped) std::printf(" %s;", s.c_str());
  std::printf("\n");
  return 0;
}
