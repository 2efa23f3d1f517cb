#include "tensor/onednn.h"

#include <omp.h>

#include <array>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace detail {
namespace onednn {

void single_thread() {
  thread_local bool single = false;  // omp_set_num_threads is per thread
  if (!single) {
    omp_set_num_threads(1);
    single = true;
  }
}

Choice env_choice(const char* var, const char* other) {
  const char* env = std::getenv(var);
  const std::string v = env ? absl::AsciiStrToLower(env) : "auto";
  if (v == "onednn") return Choice::kOneDnn;
  if (v == other) return Choice::kOther;
  EMBER_CHECK(v == "auto" || v.empty(), var, " must be auto, onednn or ", other, ", got '", env,
              "'");
  return Choice::kAuto;
}

std::optional<bool> pinned_onednn(Choice c) {
  if (c == Choice::kAuto) return std::nullopt;
  return c == Choice::kOneDnn;
}

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The blocked copies and the scratchpad of a call come from ember's caching
// CPU allocator (64-byte aligned; Note [Cache limit]): a training step
// reuses the same blocks without faulting in fresh pages, the memory
// profiler sees them, and they go back under the cache's limit. Kept alive
// in `keep` until the call is done.
void* buffer(size_t bytes, std::vector<Tensor>& keep) {
  keep.push_back(empty({static_cast<int64_t>(bytes)}, TensorOptions(kByte)));
  return keep.back().data_ptr();
}

// One argument of a pass: the caller's plain (PyTorch) layout, the one the
// primitive chose, and the reorder between them when they differ.
struct Arg {
  memory::desc plain, chosen;
  dnnl::reorder reorder;  // plain -> chosen for inputs, chosen -> plain for the output
  bool same = true;
  void init(const memory::desc& p, const memory::desc& c, bool is_input) {
    plain = p;
    chosen = c;
    same = (p == c);
    if (!same) {
      reorder =
          is_input ? dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), p, cpu_engine(), c))
                   : dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), c, cpu_engine(), p));
    }
  }
};

// A pass ready to run: the primitive, its two inputs and its output.
struct Plan {
  dnnl::primitive prim;
  int in0_arg, in1_arg, out_arg;
  Arg in0, in1, out;
  memory::desc scratch;
  std::string impl;  // oneDNN's name for the implementation it chose

  // One argument: its oneDNN name, the caller's layout, the primitive's.
  struct Binding {
    int arg;
    memory::desc plain, chosen;
  };
  void set(dnnl::primitive p, const memory::desc& scratchpad, const Binding& i0,
           const Binding& i1, const Binding& o) {
    prim = std::move(p);
    scratch = scratchpad;
    in0_arg = i0.arg;
    in1_arg = i1.arg;
    out_arg = o.arg;
    in0.init(i0.plain, i0.chosen, true);
    in1.init(i1.plain, i1.chosen, true);
    out.init(o.plain, o.chosen, false);
  }
};

memory::dims spatial(int64_t a, int64_t b) { return {a, b}; }

memory::data_type data_type(const ConvShape& s) {
  return s.bf16 ? memory::data_type::bf16 : kF32;
}
// Note [Native channels-last convolution] (conv.cc): a channels-last
// tensor is oneDNN's plain nhwc layout, reordered straight to and from the
// blocked one.
Tag activation_tag(const ConvShape& s) { return s.channels_last ? Tag::nhwc : Tag::nchw; }
memory::desc plain_src(const ConvShape& s) {
  return {{s.n, s.c, s.h, s.w}, data_type(s), activation_tag(s)};
}
memory::desc plain_dst(const ConvShape& s) {
  return {{s.n, s.co, s.oh, s.ow}, data_type(s), activation_tag(s)};
}
// The weight as the caller holds it (ohwi: a channels-last weight); its
// gradient is always oihw.
memory::desc plain_weights(const ConvShape& s, memory::data_type type, bool channels_last) {
  if (s.groups == 1) return {{s.co, s.c, s.kh, s.kw}, type, channels_last ? Tag::ohwi : Tag::oihw};
  return {{s.groups, s.co / s.groups, s.c / s.groups, s.kh, s.kw},
          type,
          channels_last ? Tag::gohwi : Tag::goihw};
}
memory::desc bias_desc(const ConvShape& s) { return {{s.co}, data_type(s), Tag::x}; }
memory::desc any_like(const memory::desc& d) { return {d.dims(), d.data_type(), Tag::any}; }
// Note [Native channels-last convolution] (conv.cc): an nhwc activation is
// handed to the primitive as it is, not as `any`: oneDNN then takes its
// kernels that read and write nhwc (nxc) directly, with no reorder at all
// (measured faster than reordering to nChw16c, BENCHMARKS.md).
memory::desc act_like(const ConvShape& s, const memory::desc& d) {
  return s.channels_last ? d : any_like(d);
}

// Builds the primitive of a pass; throws dnnl::error where oneDNN has none.
std::unique_ptr<Plan> make_plan(const ConvShape& s, ConvPass pass, bool bias) {
  const memory::desc src = plain_src(s), dst = plain_dst(s);
  const memory::desc wei = plain_weights(s, data_type(s), s.weight_channels_last),
                     bias_md = bias_desc(s);
  // The weight gradient is float32 (ConvShape::bf16).
  const memory::desc diff_wei = plain_weights(s, kF32, false);
  // oneDNN's dilation counts the gaps (PyTorch's minus one); PyTorch's
  // padding is symmetric and oneDNN's size check floors as PyTorch's does.
  const memory::dims strides = spatial(s.sh, s.sw), dilates = spatial(s.dh - 1, s.dw - 1),
                     pad = spatial(s.ph, s.pw);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // buffer(), per call
  const auto algo = dnnl::algorithm::convolution_direct;
  const dnnl::convolution_forward::desc fwd_desc =
      bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo,
                                             act_like(s, src), any_like(wei), bias_md,
                                             act_like(s, dst), strides, dilates, pad, pad)
           : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo,
                                             act_like(s, src), any_like(wei), act_like(s, dst),
                                             strides, dilates, pad, pad);
  const dnnl::convolution_forward::primitive_desc fwd(fwd_desc, attr, cpu_engine());
  auto plan = std::make_unique<Plan>();
  switch (pass) {
    case ConvPass::kForward:
      plan->set(dnnl::convolution_forward(fwd), fwd.scratchpad_desc(),
                {DNNL_ARG_SRC, src, fwd.src_desc()}, {DNNL_ARG_WEIGHTS, wei, fwd.weights_desc()},
                {DNNL_ARG_DST, dst, fwd.dst_desc()});
      break;
    case ConvPass::kBackwardData: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          {algo, act_like(s, src), any_like(wei), act_like(s, dst), strides, dilates, pad, pad},
          attr, cpu_engine(), fwd);
      plan->set(dnnl::convolution_backward_data(pd), pd.scratchpad_desc(),
                {DNNL_ARG_DIFF_DST, dst, pd.diff_dst_desc()},
                {DNNL_ARG_WEIGHTS, wei, pd.weights_desc()},
                {DNNL_ARG_DIFF_SRC, src, pd.diff_src_desc()});
      break;
    }
    case ConvPass::kBackwardWeights: {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          {algo, act_like(s, src), any_like(diff_wei), act_like(s, dst), strides, dilates, pad,
           pad},
          attr, cpu_engine(), fwd);
      plan->set(dnnl::convolution_backward_weights(pd), pd.scratchpad_desc(),
                {DNNL_ARG_DIFF_DST, dst, pd.diff_dst_desc()}, {DNNL_ARG_SRC, src, pd.src_desc()},
                {DNNL_ARG_DIFF_WEIGHTS, diff_wei, pd.diff_weights_desc()});
      break;
    }
  }
  return plan;
}

// Plans by kind and shape, built once per process (a null plan: oneDNN has
// no primitive for it). Bounded: a program that sees ever new shapes
// rebuilds plans rather than growing without end.
using PlanKey = std::array<int64_t, 20>;
struct KeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};
enum PlanKind : int64_t { kConvPlan, kGemmPlan };

// Shared: a thread may still run a plan that another thread's clear()
// dropped from the map.
template <typename Make>
std::shared_ptr<const Plan> find_plan(const PlanKey& key, Make make) {
  static std::mutex mu;
  static std::unordered_map<PlanKey, std::shared_ptr<const Plan>, KeyHash> plans;
  std::lock_guard<std::mutex> lock(mu);
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  if (plans.size() >= 512) plans.clear();
  std::shared_ptr<const Plan> plan;
  try {
    plan = make();
  } catch (const dnnl::error&) {
    plan = nullptr;  // unsupported here: the caller's other path
  }
  return plans.emplace(key, std::move(plan)).first->second;
}

std::shared_ptr<const Plan> find_conv_plan(const ConvShape& s, ConvPass pass, bool bias) {
  const int64_t flags = (bias ? 1 : 0) | (s.bf16 ? 2 : 0) | (s.channels_last ? 4 : 0) |
                        (s.weight_channels_last ? 8 : 0);
  const PlanKey key{kConvPlan, s.n,  s.c,  s.h,  s.w,      s.co,
                    s.kh,      s.kw, s.oh, s.ow, s.sh,     s.sw,
                    s.ph,      s.pw, s.dh, s.dw, s.groups, static_cast<int64_t>(pass),
                    flags};
  return find_plan(key, [&] { return make_plan(s, pass, bias); });
}

// The argument's memory in the primitive's layout: the caller's pointer
// when the layouts agree, else a buffer (filled by the reorder for an
// input).
memory bind_arg(const Arg& a, const void* user, std::vector<Tensor>& keep, dnnl::stream& stream,
            bool is_input) {
  memory plain(a.plain, cpu_engine(), const_cast<void*>(user));
  if (a.same) return plain;
  memory chosen(a.chosen, cpu_engine(), buffer(a.chosen.get_size(), keep));
  if (is_input) a.reorder.execute(stream, plain, chosen);
  return chosen;
}

// Runs a plan on the calling thread alone; `extra` is one more input in
// the caller's layout (a convolution's bias), if any.
struct Extra {
  int arg = 0;
  memory::desc desc;
  const void* data = nullptr;
};
void execute(const Plan& plan, const void* in0, const void* in1, const Extra& extra, void* out,
             const char* what) {
  thread_local dnnl::stream stream(cpu_engine());
  try {
    std::vector<Tensor> keep;
    memory m0 = bind_arg(plan.in0, in0, keep, stream, true);
    memory m1 = bind_arg(plan.in1, in1, keep, stream, true);
    memory mo = bind_arg(plan.out, out, keep, stream, false);
    std::unordered_map<int, memory> args{
        {plan.in0_arg, m0}, {plan.in1_arg, m1}, {plan.out_arg, mo}};
    const size_t scratch_bytes = plan.scratch.get_size();
    if (scratch_bytes > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   memory(plan.scratch, cpu_engine(), buffer(scratch_bytes, keep)));
    }
    if (extra.data != nullptr) {
      args.emplace(extra.arg, memory(extra.desc, cpu_engine(), const_cast<void*>(extra.data)));
    }
    plan.prim.execute(stream, args);
    if (!plan.out.same) {
      memory plain(plan.out.plain, cpu_engine(), out);
      plan.out.reorder.execute(stream, mo, plain);
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    EMBER_CHECK(false, "oneDNN ", what, " failed: ", e.what(), " (status ",
                static_cast<int>(e.status), ")");
  }
}

bool run(const ConvShape& s, ConvPass pass, const void* in0, const void* in1, const void* bias,
         void* out) {
  // Before the plan: oneDNN sizes a primitive's work split for the OpenMP
  // team it sees at creation, and runs that many threads whatever the team
  // is later (a team left behind also hangs a forked child's first call).
  single_thread();
  const std::shared_ptr<const Plan> plan = find_conv_plan(s, pass, bias != nullptr);
  if (plan == nullptr) return false;
  Extra b;
  if (bias != nullptr) b = {DNNL_ARG_BIAS, bias_desc(s), bias};
  execute(*plan, in0, in1, b, out, "convolution");
  return true;
}

Choice conv_choice() {
  static const Choice choice = env_choice("EMBER_CPU_CONV", "im2col");
  return choice;
}

// Note [oneDNN convolution rule]: oneDNN's direct kernels work on blocks of
// 16 channels (8 where the ISA is AVX2) in blocked layouts (nChw16c), which
// costs a reorder of each input and output and pads a partial block. On
// //benchmarks:tensor_ops_vs_libtorch's conv cases (BENCHMARKS.md), one
// thread, AVX-512 and AVX2 alike, they win on ResNet-18's 3x3 layers (1.4-
// 1.9x faster than im2col + GEMM) and its 7x7 first layer, and lose:
//   - on 1x1 kernels, a plain GEMM for im2col (1.1-1.2x slower at stride 2,
//     level at stride 1: ResNet-50's bottleneck pair at 28x28), except on
//     channels-last tensors, where its nhwc kernels need no reorder (4x
//     faster than copying for im2col on ResNet-18's 1x1 downsampling layer);
//   - on short reductions, c * kh * kw < 64 (the MNIST net's 1 -> 20 first
//     layer: even on AVX-512, 2.3x slower on AVX2), where the reorders cost
//     more than the arithmetic;
//   - where the blocks are less than 80% full (its 20 -> 50 second layer:
//     1.3x slower), except on channels-last tensors: nhwc pads nothing, and
//     the alternative copies to row-major and back, so oneDNN is 1.2-1.9x
//     faster on AVX-512 (20 -> 50, 12 -> 24, 24 -> 40 channels) and level
//     to 1.8x on AVX2 (one case 9% slower at one thread: 20 -> 50, 5x5);
//   - for the input gradient of fewer channels than a block (7x slower for
//     one channel; channels-last: fewer than 8, 12 channels measured 1.9x
//     faster on AVX-512);
//   - for the weight gradient of output planes under 4x4 (ResNet-18's last
//     layer at 2x2: 1.5x slower), and on AVX2 for every pass there.
// Where a quarter or more of the products would read padding (ResNet-18's
// 4x4 and 2x2 planes), neither runs: conv.cc takes Note [Convolution by
// taps] (conv_taps.cc) first, 1.4-2.5x faster than either there.
// oneDNN's ISA values are bit sets (avx2_vnni is numerically above
// avx512_core but has none of its bits).
bool isa_has(dnnl_cpu_isa_t isa) {
  const auto have = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  return (have & static_cast<unsigned>(isa)) == static_cast<unsigned>(isa);
}

int64_t channel_block() {
  static const int64_t block = isa_has(dnnl_cpu_isa_avx512_core) ? 16 : 8;
  return block;
}

double block_fill(int64_t channels) {
  const int64_t b = channel_block();
  return static_cast<double>(channels) / static_cast<double>((channels + b - 1) / b * b);
}

bool rule(const ConvShape& s, ConvPass pass) {
  const int64_t cg = s.c / s.groups, cog = s.co / s.groups;
  const int64_t block = channel_block();
  // nhwc 1x1 kernels need no reorder and beat im2col (Note [Native
  // channels-last convolution]).
  if ((s.kh * s.kw == 1 && !s.channels_last) || cg * s.kh * s.kw < 64) return false;
  // A few input channels stay in plain layout (no padding) in the forward
  // and weight-gradient kernels.
  const double in_fill = cg <= 4 ? 1.0 : block_fill(cg);
  if (!s.channels_last && in_fill * block_fill(cog) < 0.8) return false;
  const bool tiny_planes = s.oh * s.ow < 16;
  if (tiny_planes && block < 16) return false;
  switch (pass) {
    case ConvPass::kForward:
      return true;
    case ConvPass::kBackwardData:
      return cg >= (s.channels_last ? 8 : block);
    case ConvPass::kBackwardWeights:
      return !tiny_planes;
  }
  return false;
}

}  // namespace

bool use_conv(const ConvShape& s, ConvPass pass) {
  if (const std::optional<bool> pin = pinned_onednn(conv_choice())) return *pin;
  return rule(s, pass);
}

bool conv_pinned() { return conv_choice() != Choice::kAuto; }

bool use_bf16_conv() {
  if (const std::optional<bool> pin = pinned_onednn(conv_choice())) return *pin;
  return native_bf16();
}

bool native_bf16() {
  static const bool native = isa_has(dnnl_cpu_isa_avx512_core_bf16);
  return native;
}

bool conv_forward(const ConvShape& s, const void* x, const void* w, const void* b, void* y) {
  return run(s, ConvPass::kForward, x, w, b, y);
}

bool conv_backward_data(const ConvShape& s, const void* gy, const void* w, void* gx) {
  return run(s, ConvPass::kBackwardData, gy, w, nullptr, gx);
}

bool conv_backward_weights(const ConvShape& s, const void* gy, const void* x, float* gw) {
  return run(s, ConvPass::kBackwardWeights, gy, x, nullptr, gw);
}

std::string conv_config() {
  std::string out = "  - float32 convolution: ";
  switch (conv_choice()) {
    case Choice::kOneDnn:
      out += "oneDNN's direct convolution for every shape (EMBER_CPU_CONV=onednn)\n";
      break;
    case Choice::kOther:
      out += "im2col + GEMM for every shape (EMBER_CPU_CONV=im2col)\n";
      break;
    case Choice::kAuto:
      absl::StrAppend(&out, "oneDNN's direct convolution where channels fill its ",
                      channel_block(),
                      "-channel blocks (Note [oneDNN convolution rule]), else im2col + GEMM\n");
      break;
  }
  if (!conv_pinned()) {
    out +=
        "  - float32 convolution over small planes: one GEMM per kernel tap where a quarter or "
        "more of im2col's multiply-adds would read padding (Note [Convolution by taps])\n";
  }
  absl::StrAppend(&out, "  - bfloat16 convolution: ",
                  use_bf16_conv() ? "oneDNN's bfloat16 primitives"
                  : native_bf16() ? "converted to float32 and back (EMBER_CPU_CONV=im2col)"
                                  : "converted to float32 and back (this CPU has no native "
                                    "bfloat16; Note [bfloat16 CPU convolution])",
                  "\n");
  return out;
}

namespace {

// Note [bfloat16 CPU GEMM]: a bfloat16 GEMM is oneDNN's matmul primitive
// with bfloat16 operands in the caller's strides (a transpose is a stride
// swap, so no reorders) and a float32 destination: alpha is its output
// scale and beta a sum post-op, as dnnl_sgemm's arguments.
std::unique_ptr<Plan> make_gemm_plan(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                                     int64_t lda, int64_t ldb, float beta, int64_t ldc) {
  const auto bf16 = memory::data_type::bf16;
  const memory::desc a({m, k}, bf16, ta ? memory::dims{1, lda} : memory::dims{lda, 1});
  const memory::desc b({k, n}, bf16, tb ? memory::dims{1, ldb} : memory::dims{ldb, 1});
  const memory::desc c({m, n}, kF32, memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (alpha != 1) attr.set_output_scales(0, {alpha});
  if (beta != 0) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, cpu_engine());
  auto plan = std::make_unique<Plan>();
  plan->set(dnnl::matmul(pd), pd.scratchpad_desc(), {DNNL_ARG_SRC, a, pd.src_desc()},
            {DNNL_ARG_WEIGHTS, b, pd.weights_desc()}, {DNNL_ARG_DST, c, pd.dst_desc()});
  plan->impl = pd.impl_info_str();
  return plan;
}

int64_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

bool gemm_bf16(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const void* a,
               int64_t lda, const void* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  single_thread();  // before the plan: see run()
  const PlanKey key{kGemmPlan, ta, tb, m, n, k, lda, ldb, ldc, float_bits(alpha), float_bits(beta)};
  const std::shared_ptr<const Plan> plan =
      find_plan(key, [&] { return make_gemm_plan(ta, tb, m, n, k, alpha, lda, ldb, beta, ldc); });
  if (plan == nullptr) return false;
  execute(*plan, a, b, Extra(), c, "bfloat16 matmul");
  return true;
}

std::string gemm_impl_bf16() {
  try {
    return make_gemm_plan(false, false, 64, 64, 64, 1, 64, 64, 0, 64)->impl;
  } catch (const dnnl::error&) {
    return "";
  }
}

}  // namespace onednn
}  // namespace detail
}  // namespace ember
