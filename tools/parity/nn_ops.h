// --nn: torch.nn.functional's ops through ember's and libtorch's
// nn::functional, on structured random cases (part of sweep.cc, included
// inside its namespace after the value and gradient machinery).
//
// The plain sweep draws shapes from one list, which suits elementwise and
// reduction ops; a convolution, a pooling or a loss needs inputs whose
// shapes agree with each other and with its options. Each case here is a
// generator that draws them (sizes, kernel, stride, padding, groups,
// reduction, ...) and one expression, written once and compiled twice:
// once with F = ember::nn::functional and K = ember, once with libtorch's.
// The expression reads its inputs as x[i] and its drawn numbers as P(i)
// (integers) and Q(i) (reals).

// The drawn numbers of the case being run (the tool is single-threaded).
std::vector<int64_t> g_p;
std::vector<double> g_q;
int64_t P(size_t i) { return g_p.at(i); }
double Q(size_t i) { return g_q.at(i); }

using Rng = std::mt19937_64;
using Gen = std::function<void(Rng&, NnCase&)>;

int64_t ri(Rng& r, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(r() % static_cast<uint64_t>(hi - lo + 1));
}
template <typename T>
T pick(Rng& r, std::initializer_list<T> v) {
  return v.begin()[r() % v.size()];
}

// Mostly float32 and float64; sometimes the reduced floats.
int float_dtype(Rng& r) {
  const int k = static_cast<int>(r() % 20);
  return k < 9 ? 0 : k < 18 ? 1 : k == 18 ? 6 : 7;
}

// A floating input: normal numbers, rarely a special one; mostly
// contiguous, else transposed, stepped or channels-last.
void add_float(NnCase& c, const std::vector<int64_t>& sizes, int dtype, Rng& r,
               double lo = 0, double hi = 0) {
  Input in;
  Layout layout = kContiguous;
  const int k = static_cast<int>(r() % 10);
  if (k == 6) layout = kTransposed;
  if (k == 7) layout = kStepped;
  if (k >= 8) layout = kChannelsLast;
  if (!storage_shape(sizes, layout, in.storage_sizes)) layout = kContiguous;
  storage_shape(sizes, layout, in.storage_sizes);
  in.sizes = sizes;
  in.dtype = dtype;
  in.layout = layout;
  int64_t n = 1;
  for (int64_t s : in.storage_sizes) n *= s;
  in.storage.resize(n);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(lo, hi);
  for (double& v : in.storage) {
    v = lo < hi ? uniform(r) : normal(r);
    if (r() % 400 == 0) v = special(r);
  }
  c.ins.push_back(std::move(in));
}

// An int64 input with values in [lo, hi], contiguous.
void add_index(NnCase& c, const std::vector<int64_t>& sizes, int64_t lo, int64_t hi, Rng& r) {
  Input in;
  in.sizes = sizes;
  in.dtype = 2;  // i64
  in.layout = kContiguous;
  in.storage_sizes = sizes;
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  in.storage.resize(n);
  for (double& v : in.storage) v = static_cast<double>(ri(r, lo, hi));
  c.ins.push_back(std::move(in));
}

// ±1 targets of the margin losses, in the input's dtype.
void add_sign(NnCase& c, const std::vector<int64_t>& sizes, int dtype, Rng& r) {
  add_float(c, sizes, dtype, r);
  Input& in = c.ins.back();
  for (double& v : in.storage) v = r() % 2 ? 1.0 : -1.0;
}

// N, C and `d` spatial sizes in [1, hi].
std::vector<int64_t> image(Rng& r, int d, int64_t c, int64_t hi) {
  std::vector<int64_t> s = {ri(r, 1, 2), c};
  for (int i = 0; i < d; ++i) s.push_back(ri(r, 1, hi));
  return s;
}

// The reduction P(i) means, in either library.
template <bool kTorch, typename O>
O reduce_as(O o, int64_t r) {
  if constexpr (kTorch) {
    if (r == 0) return o.reduction(torch::kNone);
    if (r == 1) return o.reduction(torch::kMean);
    return o.reduction(torch::kSum);
  } else {
    if (r == 0) return o.reduction(E::kNone);
    if (r == 1) return o.reduction(E::kMean);
    return o.reduction(E::kSum);
  }
}

template <typename Tensor, typename F>
Result run_nn(const F& f, const std::vector<Tensor>& in) {
  Result r;
  try {
    collect(f(in), r.outs);
  } catch (const std::exception& e) {
    r.threw = true;
    r.error = first_line(e.what());
  }
  return r;
}

template <typename FE, typename FT>
Op nn_op(std::string name, Gen gen, FE fe, FT ft) {
  Op o;
  o.name = std::move(name);
  o.arity = 0;
  o.kind = kFloating;
  o.ember = [fe](const std::vector<E::Tensor>& in) { return run_nn(fe, in); };
  o.torch = [ft](const std::vector<torch::Tensor>& in) { return run_nn(ft, in); };
  o.ember_tensors = [fe](const std::vector<E::Tensor>& in) {
    std::vector<E::Tensor> outs;
    collect_tensors<E::Tensor>(fe(in), outs);
    return outs;
  };
  o.torch_tensors = [ft](const std::vector<torch::Tensor>& in) {
    std::vector<torch::Tensor> outs;
    collect_tensors<torch::Tensor>(ft(in), outs);
    return outs;
  };
  o.gen = std::move(gen);
  return o;
}

// One expression, compiled against each library.
#define NN(name, gen, ...)                                   \
  nn_op(                                                     \
      name, gen,                                             \
      [](const std::vector<E::Tensor>& x) {                  \
        namespace F = ::ember::nn::functional;               \
        namespace K = ::ember;                               \
        using T = E::Tensor;                                 \
        using OptI = std::optional<int64_t>;                 \
        constexpr bool kTorch = false;                       \
        (void)kTorch;                                        \
        return __VA_ARGS__;                                  \
      },                                                     \
      [](const std::vector<torch::Tensor>& x) {              \
        namespace F = ::torch::nn::functional;               \
        namespace K = ::torch;                               \
        using T = torch::Tensor;                             \
        using OptI = c10::optional<int64_t>;                 \
        constexpr bool kTorch = true;                        \
        (void)kTorch;                                        \
        return __VA_ARGS__;                                  \
      })
#define RED(opts, i) reduce_as<kTorch>(opts, P(i))

// Note [Empty pooling windows] (autograd/derivatives/pooling.cc): where a
// max pooling window holds padding only (value -inf, index outside its
// plane), 1.13's CPU backward adds its gradient outside the plane, past the
// end of the buffer for the last plane, which corrupts this process's heap
// (the sweep aborted on some seeds). Such results are compared as values
// only: both sides return them detached.
template <typename R>
R values_only_if_empty_window(R r) {
  const auto& v = std::get<0>(r);
  if (v.eq(-std::numeric_limits<double>::infinity()).any().template item<bool>()) {
    std::get<0>(r) = std::get<0>(r).detach();
  }
  return r;
}
#define OPT(i) (P(i) ? x[i] : T())

// --- generators ---------------------------------------------------------------

// Convolutions: x [N, g*cin, S...], w [g*cout, cin, k...] (transposed:
// [g*cin, cout, k...]), bias [g*cout]. P: stride, padding, dilation,
// groups, with bias, output_padding, unbatched.
template <int D, bool kTransposed>
Gen conv_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t g = pick<int64_t>(r, {1, 1, 2, 3}), cin = ri(r, 1, 3), cout = ri(r, 1, 3);
    const int64_t k = ri(r, 1, 3), s = ri(r, 1, 3), pad = ri(r, 0, 2), dil = ri(r, 1, 2);
    std::vector<int64_t> xs = image(r, D, g * cin, 7);
    const bool unbatched = r() % 8 == 0;
    if (unbatched) xs.erase(xs.begin());
    std::vector<int64_t> ws = kTransposed ? std::vector<int64_t>{g * cin, cout}
                                          : std::vector<int64_t>{g * cout, cin};
    for (int i = 0; i < D; ++i) ws.push_back(k);
    add_float(c, xs, dt, r);
    add_float(c, ws, dt, r);
    add_float(c, {g * cout}, dt, r);
    const int64_t out_pad = ri(r, 0, std::max(s, dil) - 1);
    c.p = {s, pad, dil, g, static_cast<int64_t>(r() % 3 != 0), out_pad};
  };
}

// Poolings: x [N, C, S...]. P: kernel, stride, padding, dilation,
// ceil_mode, count_include_pad, divisor_override (0: none), output size.
template <int D>
Gen pool_gen() {
  return [](Rng& r, NnCase& c) {
    std::vector<int64_t> xs = image(r, D, ri(r, 1, 3), 8);
    if (r() % 8 == 0) xs.erase(xs.begin());
    add_float(c, xs, float_dtype(r), r);
    const int64_t k = ri(r, 1, 4);
    c.p = {k,         ri(r, 1, 3),  ri(r, 0, k / 2),
           ri(r, 1, 2), ri(r, 0, 1), ri(r, 0, 1),
           pick<int64_t>(r, {0, 0, 0, 1, 3}), ri(r, 1, 5)};
    c.q = {pick<double>(r, {1.0, 2.0, 3.0, 1.5})};
  };
}

// Normalizations: x [N, C, S...] with d spatial dims, per-channel
// weight, bias, running mean and (positive) variance. P: training,
// with weight, with bias, groups (dividing C), normalized dims.
Gen norm_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t groups = ri(r, 1, 3), ch = groups * ri(r, 1, 2);
    std::vector<int64_t> xs = image(r, static_cast<int>(ri(r, 0, 3)), ch, 5);
    add_float(c, xs, dt, r);
    add_float(c, {ch}, dt, r);
    add_float(c, {ch}, dt, r);
    add_float(c, {ch}, dt, r);
    add_float(c, {ch}, dt, r, 0.5, 2.0);
    c.p = {ri(r, 0, 1), ri(r, 0, 1), ri(r, 0, 1), groups,
           ri(r, 1, static_cast<int64_t>(xs.size()) - 1)};
    c.q = {pick<double>(r, {0.1, 0.0, 1.0, 0.3}), pick<double>(r, {1e-5, 1e-3, 0.5})};
  };
}

// interpolate: x [N, C, S...] with d spatial dims. P: output size, mode
// index (filtered per d by the expression), align_corners (0/1, 2:
// unset), use scale_factor, recompute_scale_factor (2: unset).
template <int D>
Gen interp_gen() {
  return [](Rng& r, NnCase& c) {
    add_float(c, image(r, D, ri(r, 1, 2), 6), float_dtype(r), r);
    c.p = {ri(r, 1, 9), ri(r, 0, 4), ri(r, 0, 2), ri(r, 0, 1), ri(r, 0, 2)};
    c.q = {pick<double>(r, {0.5, 1.5, 2.0, 1.7, 0.3, 3.0, 2.5})};
  };
}

// pad: x [N, C, S...]. P: mode, then six pad sizes (the expression takes
// the first 2 * d).
template <int D>
Gen pad_gen() {
  return [](Rng& r, NnCase& c) {
    add_float(c, image(r, D, ri(r, 1, 2), 5), float_dtype(r), r);
    c.p = {ri(r, 0, 3)};
    for (int i = 0; i < 6; ++i) c.p.push_back(ri(r, -1, 3));
    c.q = {pick<double>(r, {0.0, 1.5, -2.0})};
  };
}

// Pointwise losses: input and target of one shape (target of a broadcast
// shape sometimes); P: reduction; Q: beta/delta/eps.
Gen loss_gen(double tlo = 0, double thi = 0, bool sign = false) {
  return [=](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    std::vector<int64_t> s = pick<std::vector<int64_t>>(r, {{}, {5}, {3, 4}, {2, 3, 4}, {0, 3}});
    add_float(c, s, dt, r);
    if (sign) {
      add_sign(c, s, dt, r);
    } else {
      add_float(c, s, dt, r, tlo, thi);
    }
    add_float(c, s, dt, r, 0.5, 2.0);  // a positive third (weights, variances)
    c.p = {ri(r, 0, 2), ri(r, 0, 1), ri(r, 0, 1)};
    c.q = {pick<double>(r, {1.0, 0.5, 0.0, 2.0}), pick<double>(r, {1e-8, 1e-6, 0.1})};
  };
}

// Classification losses: input [N, C] or [N, C, d] (or [C]), class
// targets in [0, C) with an ignored class sometimes, per-class weights,
// probabilities of the input's shape. P: reduction, with weight,
// ignore_index, p (multi_margin).
Gen class_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t n = ri(r, 1, 4), cl = ri(r, 1, 5);
    std::vector<int64_t> xs = pick<std::vector<int64_t>>(r, {{n, cl}, {n, cl}, {n, cl, 3}, {cl}});
    std::vector<int64_t> ts = xs;
    ts.erase(ts.begin() + (xs.size() == 1 ? 0 : 1));
    add_float(c, xs, dt, r);
    const int64_t ignore = pick<int64_t>(r, {-100, -100, 0, cl - 1});
    add_index(c, ts, 0, cl - 1, r);
    add_float(c, {cl}, dt, r, 0.5, 2.0);
    add_float(c, xs, dt, r, 0.0, 1.0);  // probabilities (cross_entropy) or 0/1 targets
    c.p = {ri(r, 0, 2), ri(r, 0, 1), ignore, ri(r, 1, 2)};
    c.q = {pick<double>(r, {0.0, 0.0, 0.1, 0.5}), pick<double>(r, {1.0, 0.5, 2.0})};
  };
}

// Two or three same-shaped inputs [N, D] (or [D]) and ±1 targets [N].
Gen pair_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t n = ri(r, 1, 4), d = ri(r, 1, 5);
    const std::vector<int64_t> s = r() % 6 == 0 ? std::vector<int64_t>{d} : std::vector<int64_t>{n, d};
    add_float(c, s, dt, r);
    add_float(c, s, dt, r);
    add_float(c, s, dt, r);
    add_sign(c, s.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{n}, dt, r);
    c.p = {ri(r, 0, 2), ri(r, 0, 1), ri(r, 0, 1)};
    c.q = {pick<double>(r, {0.0, 0.5, 1.0, -0.3}), pick<double>(r, {1.0, 2.0, 3.0, 0.5}),
           pick<double>(r, {1e-6, 1e-8, 0.1})};
  };
}

// Activations with options: x of an assorted shape. Q: two parameters.
Gen act_gen() {
  return [](Rng& r, NnCase& c) {
    add_float(c, pick<std::vector<int64_t>>(r, {{}, {5}, {3, 4}, {2, 3, 4}, {2, 3, 4, 5}}),
              float_dtype(r), r);
    Input& in = c.ins.back();
    // Values on the breakpoints the parameters put them at.
    for (double& v : in.storage) {
      if (r() % 6 == 0) v = pick<double>(r, {0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 20.0});
    }
    c.q = {pick<double>(r, {0.5, 1.0, 2.0, -1.0, 0.0}), pick<double>(r, {1.0, 0.5, 2.0, 20.0})};
    c.p = {ri(r, 0, static_cast<int64_t>(std::max<size_t>(in.sizes.size(), 1)) - 1)};
  };
}

// embedding / embedding_bag: weight [V, D], indices in [0, V).
// P: padding_idx (-1: none), mode, with per_sample_weights,
// include_last_offset, 2-d input.
Gen embed_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t v = ri(r, 1, 6), d = ri(r, 1, 4), bags = ri(r, 1, 3), per = ri(r, 1, 3);
    add_float(c, {v, d}, dt, r);
    add_index(c, {bags, per}, 0, v - 1, r);
    // offsets into the flattened input: 0 first, non-decreasing.
    Input off;
    off.sizes = off.storage_sizes = {bags};
    off.dtype = 2;
    off.layout = kContiguous;
    int64_t at = 0;
    for (int64_t b = 0; b < bags; ++b) {
      off.storage.push_back(static_cast<double>(at));
      at = std::min(bags * per, at + ri(r, 0, per + 1));
    }
    // include_last_offset: the last offset is the input's size, and there
    // is at least one bag (1.13 reads out of bounds otherwise).
    const int64_t last = bags >= 2 ? ri(r, 0, 1) : 0;
    if (last) off.storage.back() = static_cast<double>(bags * per);
    c.ins.push_back(off);
    add_float(c, {bags, per}, dt, r);
    c.p = {r() % 3 == 0 ? ri(r, 0, v - 1) : -1, ri(r, 0, 2), ri(r, 0, 1), last, ri(r, 0, 1)};
  };
}

// Distances: x1 [B, P, M], x2 [B, R, M] (or 2-d), broadcasting pairs.
Gen dist_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t b = ri(r, 1, 2), p = ri(r, 1, 4), q = ri(r, 1, 4), m = ri(r, 1, 4);
    const bool batched = r() % 2;
    add_float(c, batched ? std::vector<int64_t>{b, p, m} : std::vector<int64_t>{p, m}, dt, r);
    add_float(c, batched ? std::vector<int64_t>{b, q, m} : std::vector<int64_t>{q, m}, dt, r);
    add_float(c, batched ? std::vector<int64_t>{b, p, m} : std::vector<int64_t>{p, m}, dt, r);
    c.p = {ri(r, 0, 1), ri(r, 0, 2)};
    c.q = {pick<double>(r, {2.0, 1.0, 0.0, 3.0, 0.5, INFINITY}), pick<double>(r, {1e-6, 1e-8, 0.5})};
  };
}

// unfold / fold / pixel_shuffle: x [N, C, H, W] with C a multiple of 4.
Gen image_gen() {
  return [](Rng& r, NnCase& c) {
    add_float(c, image(r, 2, 4 * ri(r, 1, 2), 6), float_dtype(r), r);
    c.p = {ri(r, 1, 3), ri(r, 1, 2), ri(r, 0, 1), ri(r, 1, 2), pick<int64_t>(r, {1, 2})};
  };
}

// grid_sample: input [N, C, H, W], grid [N, h, w, 2]; theta [N, 2, 3].
Gen grid_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = r() % 2;
    const int64_t n = ri(r, 1, 2);
    add_float(c, {n, ri(r, 1, 2), ri(r, 1, 5), ri(r, 1, 5)}, dt, r);
    add_float(c, {n, ri(r, 1, 4), ri(r, 1, 4), 2}, dt, r, -1.3, 1.3);
    // libtorch 1.13's grid_sampler_2d_backward_cpu segfaults on a NaN or
    // infinite grid coordinate (its vectorized kernel indexes with the
    // converted value); keep the grid finite so the sweep survives --grad.
    for (double& v : c.ins.back().storage) {
      if (!std::isfinite(v)) v = 0.25;
    }
    add_float(c, {n, 2, 3}, dt, r);
    c.p = {ri(r, 0, 2), ri(r, 0, 2), ri(r, 0, 1)};
  };
}

// linear / bilinear: x [N, in1], x2 [N, in2], w [out, in1], b [out],
// w2 [out, in1, in2].
Gen linear_gen() {
  return [](Rng& r, NnCase& c) {
    const int dt = float_dtype(r);
    const int64_t n = ri(r, 1, 3), a = ri(r, 1, 4), b = ri(r, 1, 4), o = ri(r, 1, 3);
    add_float(c, {n, a}, dt, r);
    add_float(c, {n, b}, dt, r);
    add_float(c, {o, a}, dt, r);
    add_float(c, {o}, dt, r);
    add_float(c, {o, a, b}, dt, r);
    c.p = {ri(r, 0, 1), ri(r, 0, 1)};
  };
}

// The interpolate mode P(i) names, in either library.
template <bool kTorch>
auto interp_mode(int64_t i, int d) {
  using M = std::conditional_t<kTorch, torch::nn::functional::InterpolateFuncOptions::mode_t,
                               E::InterpolateMode>;
  auto m = [&](auto tm, E::InterpolateMode em) -> M {
    if constexpr (kTorch) {
      return tm;
    } else {
      return em;
    }
  };
  switch (i) {
    case 0:
      return m(torch::kNearest, E::kNearest);
    case 1:
      return m(torch::kNearestExact, E::kNearestExact);
    case 2:
      return m(torch::kArea, E::kArea);
    case 3:
      if (d == 2) return m(torch::kBicubic, E::kBicubic);
      [[fallthrough]];
    default:
      if (d == 1) return m(torch::kLinear, E::kLinear);
      if (d == 2) return m(torch::kBilinear, E::kBilinear);
      return m(torch::kTrilinear, E::kTrilinear);
  }
}

template <bool kTorch, typename O>
O interp_opts(O o, int d) {
  o = o.mode(interp_mode<kTorch>(P(1), d));
  if (P(3)) {
    o = o.scale_factor(std::vector<double>(d, Q(0)));
  } else {
    o = o.size(std::vector<int64_t>(d, P(0)));
  }
  if (P(2) != 2 && P(1) >= 3) o = o.align_corners(P(2) == 1);
  // (Python refuses it with a size; libtorch 1.13 does not check.)
  if (P(4) != 2 && P(3)) o = o.recompute_scale_factor(P(4) == 1);
  return o;
}

template <bool kTorch, typename O>
O pad_opts(O o) {
  switch (P(0)) {
    case 0:
      if constexpr (kTorch) return o.mode(torch::kConstant).value(Q(0));
      else return o.mode(E::kConstant).value(Q(0));
    case 1:
      if constexpr (kTorch) return o.mode(torch::kReflect);
      else return o.mode(E::kReflect);
    case 2:
      if constexpr (kTorch) return o.mode(torch::kReplicate);
      else return o.mode(E::kReplicate);
    default:
      if constexpr (kTorch) return o.mode(torch::kCircular);
      else return o.mode(E::kCircular);
  }
}

template <bool kTorch, typename O>
O bag_mode(O o) {
  if constexpr (kTorch) {
    if (P(1) == 0) return o.mode(torch::kSum);
    if (P(1) == 1) return o.mode(torch::kMean);
    return o.mode(torch::kMax);
  } else {
    if (P(1) == 0) return o.mode(E::kSum);
    if (P(1) == 1) return o.mode(E::kMean);
    return o.mode(E::kMax);
  }
}

template <bool kTorch, typename O>
O grid_opts(O o) {
  if constexpr (kTorch) {
    // libtorch 1.13's C++ options have no bicubic (grid_sampler below has).
    if (P(0) != 1) o = o.mode(torch::kBilinear);
    if (P(0) == 1) o = o.mode(torch::kNearest);
    if (P(1) == 0) o = o.padding_mode(torch::kZeros);
    if (P(1) == 1) o = o.padding_mode(torch::kBorder);
    if (P(1) == 2) o = o.padding_mode(torch::kReflection);
  } else {
    if (P(0) != 1) o = o.mode(E::kBilinear);
    if (P(0) == 1) o = o.mode(E::kNearest);
    if (P(1) == 0) o = o.padding_mode(E::kZeros);
    if (P(1) == 1) o = o.padding_mode(E::kBorder);
    if (P(1) == 2) o = o.padding_mode(E::kReflection);
  }
  return o.align_corners(P(2) == 1);
}

template <bool kTorch, typename O>
O kl_reduction(O o) {
  if (P(0) == 1 && P(1) == 1) {
    if constexpr (kTorch) return o.reduction(torch::kBatchMean);
    else return o.reduction(E::kBatchMean);
  }
  return reduce_as<kTorch>(o, P(0));
}

std::vector<int64_t> dims_of(int d, int64_t v) { return std::vector<int64_t>(d, v); }

std::vector<Op> nn_ops() {
  return {
      // convolutions
      NN("conv1d", (conv_gen<1, false>()),
         F::conv1d(x[0], x[1],
                   F::Conv1dFuncOptions()
                       .bias(P(4) ? x[2] : T())
                       .stride(P(0))
                       .padding(P(1))
                       .dilation(P(2))
                       .groups(P(3)))),
      NN("conv2d", (conv_gen<2, false>()),
         F::conv2d(x[0], x[1],
                   F::Conv2dFuncOptions()
                       .bias(P(4) ? x[2] : T())
                       .stride(P(0))
                       .padding(P(1))
                       .dilation(P(2))
                       .groups(P(3)))),
      NN("conv3d", (conv_gen<3, false>()),
         F::conv3d(x[0], x[1],
                   F::Conv3dFuncOptions()
                       .bias(P(4) ? x[2] : T())
                       .stride(P(0))
                       .padding(P(1))
                       .dilation(P(2))
                       .groups(P(3)))),
      NN("conv_transpose1d", (conv_gen<1, true>()),
         F::conv_transpose1d(x[0], x[1],
                             F::ConvTranspose1dFuncOptions()
                                 .bias(P(4) ? x[2] : T())
                                 .stride(P(0))
                                 .padding(P(1))
                                 .dilation(P(2))
                                 .groups(P(3))
                                 .output_padding(P(5)))),
      NN("conv_transpose2d", (conv_gen<2, true>()),
         F::conv_transpose2d(x[0], x[1],
                             F::ConvTranspose2dFuncOptions()
                                 .bias(P(4) ? x[2] : T())
                                 .stride(P(0))
                                 .padding(P(1))
                                 .dilation(P(2))
                                 .groups(P(3))
                                 .output_padding(P(5)))),
      NN("conv_transpose3d", (conv_gen<3, true>()),
         F::conv_transpose3d(x[0], x[1],
                             F::ConvTranspose3dFuncOptions()
                                 .bias(P(4) ? x[2] : T())
                                 .stride(P(0))
                                 .padding(P(1))
                                 .dilation(P(2))
                                 .groups(P(3))
                                 .output_padding(P(5)))),

      // poolings
      NN("max_pool1d", pool_gen<1>(),
         values_only_if_empty_window(F::max_pool1d_with_indices(
             x[0],
             F::MaxPool1dFuncOptions(P(0)).stride(P(1)).padding(P(2)).dilation(P(3)).ceil_mode(
                 P(4))))),
      NN("max_pool2d", pool_gen<2>(),
         values_only_if_empty_window(F::max_pool2d_with_indices(
             x[0],
             F::MaxPool2dFuncOptions(P(0)).stride(P(1)).padding(P(2)).dilation(P(3)).ceil_mode(
                 P(4))))),
      NN("max_pool3d", pool_gen<3>(),
         values_only_if_empty_window(F::max_pool3d_with_indices(
             x[0],
             F::MaxPool3dFuncOptions(P(0)).stride(P(1)).padding(P(2)).dilation(P(3)).ceil_mode(
                 P(4))))),
      NN("avg_pool1d", pool_gen<1>(),
         F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(P(0))
                                 .stride(P(1))
                                 .padding(P(2))
                                 .ceil_mode(P(4))
                                 .count_include_pad(P(5)))),
      NN("avg_pool2d", pool_gen<2>(),
         F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(P(0))
                                 .stride(P(1))
                                 .padding(P(2))
                                 .ceil_mode(P(4))
                                 .count_include_pad(P(5))
                                 .divisor_override(P(6) ? OptI(P(6)) : OptI()))),
      NN("avg_pool3d", pool_gen<3>(),
         F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(P(0))
                                 .stride(P(1))
                                 .padding(P(2))
                                 .ceil_mode(P(4))
                                 .count_include_pad(P(5))
                                 .divisor_override(P(6) ? OptI(P(6)) : OptI()))),
      NN("lp_pool1d", pool_gen<1>(),
         F::lp_pool1d(x[0], F::LPPool1dFuncOptions(Q(0), P(0)).stride(P(1)).ceil_mode(P(4)))),
      NN("lp_pool2d", pool_gen<2>(),
         F::lp_pool2d(x[0], F::LPPool2dFuncOptions(Q(0), P(0)).stride(P(1)).ceil_mode(P(4)))),
      NN("adaptive_avg_pool1d", pool_gen<1>(),
         F::adaptive_avg_pool1d(x[0], F::AdaptiveAvgPool1dFuncOptions(P(7)))),
      NN("adaptive_avg_pool2d", pool_gen<2>(),
         F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({P(7), P(0)}))),
      NN("adaptive_avg_pool3d", pool_gen<3>(),
         F::adaptive_avg_pool3d(x[0], F::AdaptiveAvgPool3dFuncOptions({P(7), P(0), P(1)}))),
      NN("adaptive_max_pool1d", pool_gen<1>(),
         F::adaptive_max_pool1d_with_indices(x[0], F::AdaptiveMaxPool1dFuncOptions(P(7)))),
      NN("adaptive_max_pool2d", pool_gen<2>(),
         F::adaptive_max_pool2d_with_indices(x[0], F::AdaptiveMaxPool2dFuncOptions({P(7), P(0)}))),
      NN("adaptive_max_pool3d", pool_gen<3>(),
         F::adaptive_max_pool3d_with_indices(x[0],
                                             F::AdaptiveMaxPool3dFuncOptions({P(7), P(0), P(1)}))),

      // normalizations (running statistics returned after the call)
      NN("batch_norm", norm_gen(),
         std::make_tuple(F::batch_norm(x[0], x[3], x[4],
                                       F::BatchNormFuncOptions()
                                           .weight(OPT(1))
                                           .bias(OPT(2))
                                           .training(P(0))
                                           .momentum(Q(0))
                                           .eps(Q(1))),
                         x[3], x[4])),
      NN("instance_norm", norm_gen(),
         std::make_tuple(F::instance_norm(x[0], F::InstanceNormFuncOptions()
                                                    .running_mean(P(0) ? x[3] : T())
                                                    .running_var(P(0) ? x[4] : T())
                                                    .weight(OPT(1))
                                                    .bias(OPT(2))
                                                    .momentum(Q(0))
                                                    .eps(Q(1))),
                         x[3], x[4])),
      NN("layer_norm", norm_gen(),
         F::layer_norm(x[0], F::LayerNormFuncOptions(std::vector<int64_t>(x[0].sizes().end() - P(4),
                                                                          x[0].sizes().end()))
                                 .eps(Q(1)))),
      NN("group_norm", norm_gen(),
         F::group_norm(x[0], F::GroupNormFuncOptions(P(3)).weight(OPT(1)).bias(OPT(2)).eps(Q(1)))),
      NN("local_response_norm", norm_gen(),
         F::local_response_norm(x[0], F::LocalResponseNormFuncOptions(P(3) + 1).k(Q(1) + 1))),
      NN("normalize", norm_gen(),
         F::normalize(x[0],
                      F::NormalizeFuncOptions().p(Q(0) * 3).dim(P(4) % x[0].dim()).eps(Q(1)))),

      // interpolate and pad
      NN("interpolate 1d", interp_gen<1>(),
         F::interpolate(x[0], interp_opts<kTorch>(F::InterpolateFuncOptions(), 1))),
      NN("interpolate 2d", interp_gen<2>(),
         F::interpolate(x[0], interp_opts<kTorch>(F::InterpolateFuncOptions(), 2))),
      NN("interpolate 3d", interp_gen<3>(),
         F::interpolate(x[0], interp_opts<kTorch>(F::InterpolateFuncOptions(), 3))),
      NN("pad 1d", pad_gen<1>(), F::pad(x[0], pad_opts<kTorch>(F::PadFuncOptions({P(1), P(2)})))),
      NN("pad 2d", pad_gen<2>(),
         F::pad(x[0], pad_opts<kTorch>(F::PadFuncOptions({P(1), P(2), P(3), P(4)})))),
      NN("pad 3d", pad_gen<3>(),
         F::pad(x[0], pad_opts<kTorch>(F::PadFuncOptions({P(1), P(2), P(3), P(4), P(5), P(6)})))),

      // pointwise losses
      NN("mse_loss", loss_gen(), F::mse_loss(x[0], x[1], RED(F::MSELossFuncOptions(), 0))),
      NN("l1_loss", loss_gen(), F::l1_loss(x[0], x[1], RED(F::L1LossFuncOptions(), 0))),
      NN("smooth_l1_loss", loss_gen(),
         // libtorch 1.13 reads beta from the fourth argument only.
         F::smooth_l1_loss(x[0], x[1], RED(F::SmoothL1LossFuncOptions(), 0), Q(0))),
      NN("huber_loss", loss_gen(),
         F::huber_loss(x[0], x[1], RED(F::HuberLossFuncOptions(), 0).delta(Q(0) + 0.25))),
      NN("soft_margin_loss", loss_gen(0, 0, true),
         F::soft_margin_loss(x[0], x[1], RED(F::SoftMarginLossFuncOptions(), 0))),
      NN("binary_cross_entropy", loss_gen(0, 1),
         F::binary_cross_entropy(
             x[0].sigmoid(), x[1],
             RED(F::BinaryCrossEntropyFuncOptions(), 0).weight(P(1) ? x[2] : T()))),
      NN("binary_cross_entropy_with_logits", loss_gen(0, 1),
         F::binary_cross_entropy_with_logits(
             x[0], x[1],
             RED(F::BinaryCrossEntropyWithLogitsFuncOptions(), 0)
                 .weight(P(1) ? x[2] : T())
                 .pos_weight(P(2) && x[2].dim() > 0 ? x[2].select(0, 0) : T()))),
      NN("kl_div", loss_gen(),
         F::kl_div(x[0].log_softmax(-1 % std::max<int64_t>(x[0].dim(), 1)), P(2) ? x[1] : x[2],
                   kl_reduction<kTorch>(F::KLDivFuncOptions()).log_target(P(2) == 1))),
      NN("poisson_nll_loss", loss_gen(),
         F::poisson_nll_loss(
             x[0], x[2],
             RED(F::PoissonNLLLossFuncOptions(), 0).log_input(P(1)).full(P(2)).eps(Q(1)))),
      NN("multilabel_soft_margin_loss", class_gen(),
         F::multilabel_soft_margin_loss(
             x[0], x[3].round(),
             RED(F::MultilabelSoftMarginLossFuncOptions(), 0).weight(P(1) ? x[2] : T()))),

      // classification losses
      NN("nll_loss", class_gen(),
         F::nll_loss(x[0].log_softmax(x[0].dim() == 1 ? 0 : 1), x[1],
                     RED(F::NLLLossFuncOptions(), 0).weight(P(1) ? x[2] : T()).ignore_index(P(2)))),
      NN("cross_entropy", class_gen(),
         F::cross_entropy(x[0], x[1],
                          RED(F::CrossEntropyFuncOptions(), 0)
                              .weight(P(1) ? x[2] : T())
                              .ignore_index(P(2))
                              .label_smoothing(Q(0)))),
      NN("cross_entropy probs", class_gen(),
         F::cross_entropy(
             x[0], x[3].softmax(x[0].dim() == 1 ? 0 : 1),
             RED(F::CrossEntropyFuncOptions(), 0).weight(P(1) ? x[2] : T()).label_smoothing(Q(0)))),
      NN("multi_margin_loss", class_gen(),
         F::multi_margin_loss(x[0], x[1],
                              RED(F::MultiMarginLossFuncOptions(), 0)
                                  .p(P(3))
                                  .margin(Q(1))
                                  .weight(P(1) ? x[2] : T()))),
      NN("multilabel_margin_loss", class_gen(),
         F::multilabel_margin_loss(x[0],
                                   (x[3] * 4 - 1)
                                       .floor()
                                       .to(decltype(x[0].scalar_type())::Long)
                                       .clamp_max(x[0].size(-1) - 1),
                                   RED(F::MultilabelMarginLossFuncOptions(), 0))),

      // pair losses and distances
      NN("margin_ranking_loss", pair_gen(),
         F::margin_ranking_loss(x[0].select(-1, 0), x[1].select(-1, 0), x[3],
                                RED(F::MarginRankingLossFuncOptions(), 0).margin(Q(0)))),
      NN("hinge_embedding_loss", pair_gen(),
         F::hinge_embedding_loss(x[0].select(-1, 0), x[3],
                                 RED(F::HingeEmbeddingLossFuncOptions(), 0).margin(Q(0)))),
      NN("cosine_embedding_loss", pair_gen(),
         F::cosine_embedding_loss(x[0], x[1], x[3],
                                  RED(F::CosineEmbeddingLossFuncOptions(), 0).margin(Q(0)))),
      NN("triplet_margin_loss", pair_gen(),
         F::triplet_margin_loss(x[0], x[1], x[2],
                                RED(F::TripletMarginLossFuncOptions(), 0)
                                    .margin(Q(0) + 1)
                                    .p(Q(1))
                                    .eps(Q(2))
                                    .swap(P(1)))),
      NN("cosine_similarity", pair_gen(),
         F::cosine_similarity(x[0], x[1],
                              F::CosineSimilarityFuncOptions().dim(x[0].dim() - 1).eps(Q(2)))),
      NN("pairwise_distance", pair_gen(),
         F::pairwise_distance(x[0], x[1],
                              F::PairwiseDistanceFuncOptions().p(Q(1)).eps(Q(2)).keepdim(P(1)))),
      NN("cdist", dist_gen(), K::cdist(x[0], x[1], Q(0))),
      NN("pdist", dist_gen(), K::pdist(x[0].dim() == 2 ? x[0] : x[0][0], Q(0))),

      // activations with options
      NN("elu", act_gen(), F::elu(x[0], F::ELUFuncOptions().alpha(Q(0)))),
      NN("celu", act_gen(), F::celu(x[0], F::CELUFuncOptions().alpha(Q(1)))),
      NN("selu", act_gen(), F::selu(x[0])),
      NN("hardtanh", act_gen(),
         F::hardtanh(x[0], F::HardtanhFuncOptions().min_val(-Q(1)).max_val(Q(0)))),
      NN("leaky_relu", act_gen(),
         F::leaky_relu(x[0], F::LeakyReLUFuncOptions().negative_slope(Q(0)))),
      NN("rrelu eval", act_gen(),
         F::rrelu(x[0], F::RReLUFuncOptions().lower(0.1).upper(0.3).training(false))),
      NN("softplus", act_gen(),
         F::softplus(x[0], F::SoftplusFuncOptions().beta(Q(0) == 0 ? 1 : Q(0)).threshold(Q(1)))),
      NN("threshold", act_gen(), F::threshold(x[0], F::ThresholdFuncOptions(Q(0), Q(1)))),
      NN("hardshrink", act_gen(),
         F::hardshrink(x[0], F::HardshrinkFuncOptions().lambda(Q(0) < 0 ? 0.5 : Q(0)))),
      NN("softshrink", act_gen(),
         F::softshrink(x[0], F::SoftshrinkFuncOptions().lambda(Q(0) < 0 ? 0.5 : Q(0)))),
      NN("glu", act_gen(), F::glu(x[0], F::GLUFuncOptions(P(0)))),
      NN("softmin", act_gen(), F::softmin(x[0], F::SoftminFuncOptions(P(0)))),
      NN("gelu tanh", act_gen(), F::gelu(x[0], F::GELUFuncOptions().approximate("tanh"))),
      NN("prelu", act_gen(),
         F::prelu(x[0], x[0].dim() >= 2
                            ? (x[0].select(0, 0).flatten().narrow(0, 0, x[0].size(1)) * Q(0))
                            : x[0].new_full({1}, Q(0)))),
      NN("tanhshrink", act_gen(), F::tanhshrink(x[0])),
      NN("logsigmoid", act_gen(), F::logsigmoid(x[0])),
      NN("relu6", act_gen(), F::relu6(x[0])),
      NN("mish", act_gen(), F::mish(x[0])),

      // embeddings
      NN("embedding", embed_gen(),
         F::embedding(x[1], x[0],
                      F::EmbeddingFuncOptions().padding_idx(P(0) >= 0 ? OptI(P(0)) : OptI()))),
      NN("embedding_bag 2d", embed_gen(),
         F::embedding_bag(x[1], x[0],
                          bag_mode<kTorch>(F::EmbeddingBagFuncOptions())
                              .per_sample_weights(P(1) == 0 && P(2) ? x[3] : T())
                              .padding_idx(P(0) >= 0 ? OptI(P(0)) : OptI()))),
      NN("embedding_bag offsets", embed_gen(),
         F::embedding_bag(x[1].flatten(), x[0],
                          bag_mode<kTorch>(F::EmbeddingBagFuncOptions())
                              .offsets(x[2])
                              .include_last_offset(P(3))
                              .per_sample_weights(P(1) == 0 && P(2) ? x[3].flatten() : T())
                              .padding_idx(P(0) >= 0 ? OptI(P(0)) : OptI()))),

      // the rest
      NN("unfold", image_gen(),
         F::unfold(x[0], F::UnfoldFuncOptions(P(0)).dilation(P(1)).padding(P(2)).stride(P(3)))),
      NN("fold", image_gen(),
         F::fold(
             F::unfold(x[0], F::UnfoldFuncOptions(P(0)).dilation(P(1)).padding(P(2)).stride(P(3))),
             F::FoldFuncOptions({x[0].size(2), x[0].size(3)}, P(0))
                 .dilation(P(1))
                 .padding(P(2))
                 .stride(P(3)))),
      NN("pixel_shuffle", image_gen(), F::pixel_shuffle(x[0], F::PixelShuffleFuncOptions(P(4)))),
      NN("pixel_unshuffle", image_gen(),
         F::pixel_unshuffle(x[0], F::PixelUnshuffleFuncOptions(P(4)))),
      NN("linear", linear_gen(), F::linear(x[0], x[2], P(0) ? x[3] : T())),
      NN("bilinear", linear_gen(), F::bilinear(x[0], x[1], x[4], P(0) ? x[3] : T())),
      NN("grid_sample", grid_gen(),
         F::grid_sample(x[0], x[1], grid_opts<kTorch>(F::GridSampleFuncOptions()))),
      NN("grid_sampler", grid_gen(), K::grid_sampler(x[0], x[1], P(0), P(1), P(2) == 1)),
      NN("affine_grid", grid_gen(),
         F::affine_grid(x[2], {x[0].size(0), x[0].size(1), x[0].size(2), x[0].size(3)}, P(2) == 1)),
      NN("one_hot", embed_gen(), F::one_hot(x[1], P(1) == 2 ? -1 : x[0].size(0) + P(1))),
  };
}

#undef NN
#undef RED
#undef OPT
