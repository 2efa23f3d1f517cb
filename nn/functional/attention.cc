#include "nn/functional/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/functional/padding.h"
#include "tensor/attention.h"
#include "tensor/creation.h"
#include "tensor/dtype.h"
#include "tensor/error.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/print.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace functional {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool is_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

// A mask that the scores take by addition: bool true -> 0 and false -> -inf
// when `true_attends` (SDPA's convention), the reverse otherwise
// (MultiheadAttention's); float masks are returned in `dtype`.
Tensor additive_mask(const Tensor& mask, ScalarType dtype, bool true_attends) {
  if (!mask.defined() || mask.dtype() != kBool) {
    return mask.defined() && mask.dtype() != dtype ? mask.to(dtype) : mask;
  }
  Tensor masked_out = true_attends ? mask.logical_not() : mask;
  return zeros(mask.sizes(), TensorOptions().dtype(dtype).device(mask.device()))
      .masked_fill(masked_out, kNegInf);
}

// key/value [..., Hk, S, E] -> [..., Hk * groups, S, E], each head repeated
// `groups` times in place (repeat_interleave on dim -3).
Tensor repeat_heads(const Tensor& t, int64_t groups) {
  std::vector<int64_t> expanded(t.sizes().begin(), t.sizes().end());
  expanded.insert(expanded.end() - 2, groups);
  std::vector<int64_t> merged(t.sizes().begin(), t.sizes().end());
  merged[merged.size() - 3] *= groups;
  return t.unsqueeze(-3).expand(expanded).reshape(merged);
}

std::string tuple_str(int64_t a, int64_t b) { return absl::StrCat("(", a, ", ", b, ")"); }

// The backends sdpa may use on this thread (bit per SDPBackend).
constexpr unsigned kAllBackends = ~0u;
thread_local unsigned allowed_backends = kAllBackends;

bool backend_allowed(SDPBackend b) { return allowed_backends & (1u << static_cast<int>(b)); }

// PyTorch's math path: q and k each take sqrt(scale) so that the product
// stays in range; additive float mask; safe softmax where a mask is given;
// dropout on the weights.
Tensor math_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                      const Tensor& mask, double dropout_p, bool is_causal, double scale) {
  const double factor = std::sqrt(std::abs(scale));
  Tensor q = query * (scale < 0 ? -factor : factor);
  Tensor m = mask;
  if (is_causal) {
    const int64_t L = q.size(-2), S = key.size(-2);
    m = additive_mask(ones({L, S}, TensorOptions().dtype(kBool).device(q.device())).tril(),
                      q.dtype(), /*true_attends=*/true);
  }
  Tensor scores = matmul(q, key.transpose(-2, -1) * factor);
  if (m.defined()) scores = scores + m;
  // Only a given mask can hide every key of a row (the causal triangle
  // always leaves key 0): without one, plain softmax gives the same values
  // in two fewer passes over the scores than _safe_softmax's four.
  Tensor probs = mask.defined() ? _safe_softmax(scores) : scores.softmax(-1);
  if (dropout_p > 0) probs = dropout(probs, DropoutFuncOptions().p(dropout_p).training(true));
  return matmul(probs, value);
}

// Whether Note [Fused attention]'s kernel applies, and then the batch and
// head counts [B, H] that q, k, v (3-D: [H, *, *]) and the mask broadcast to.
std::optional<std::vector<int64_t>> fused_batch(const Tensor& q, const Tensor& k, const Tensor& v,
                                                const Tensor& mask, double dropout_p) {
  const int64_t nd = q.dim();
  if (!flash_attention_supported(q.device(), q.size(-1), v.size(-1)) || dropout_p > 0 ||
      (q.dtype() != kFloat && q.dtype() != kDouble) ||
      (nd != 3 && nd != 4) || k.dim() != nd || v.dim() != nd || q.size(-1) != k.size(-1) ||
      k.size(-2) != v.size(-2) || q.numel() == 0 || k.numel() == 0 || v.numel() == 0) {
    return std::nullopt;
  }
  std::vector<int64_t> bh = {1, 1};
  for (int64_t d = 0; d < nd - 2; ++d) {
    int64_t n = 1;
    for (const Tensor* t : {&q, &k, &v}) {
      const int64_t size = t->size(d);
      if (size != 1 && n != 1 && size != n) return std::nullopt;
      n = std::max(n, size);
    }
    bh[d + 4 - nd] = n;
  }
  // The CUDA kernels take batch x heads as a grid dimension (at most 65535).
  if (q.device().is_cuda() && bh[0] * bh[1] > 65535) return std::nullopt;
  if (mask.defined()) {
    if (mask.requires_grad() || mask.dim() > 4) return std::nullopt;
    const int64_t want[4] = {bh[0], bh[1], q.size(-2), k.size(-2)};
    for (int64_t i = 1; i <= mask.dim(); ++i) {
      const int64_t size = mask.size(-i);
      if (size != 1 && size != want[4 - i]) return std::nullopt;
    }
  }
  return bh;
}

Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                       bool is_causal, double scale, const std::vector<int64_t>& bh) {
  const bool three_d = q.dim() == 3;
  auto as4 = [&](const Tensor& t) {
    Tensor t4 = three_d ? t.unsqueeze(0) : t;
    return t4.expand({bh[0], bh[1], t4.size(2), t4.size(3)});
  };
  Tensor m;
  if (mask.defined()) m = mask.expand({bh[0], bh[1], q.size(-2), k.size(-2)});
  Tensor out =
      std::get<0>(_scaled_dot_product_flash_attention(as4(q), as4(k), as4(v), m, is_causal, scale));
  return three_d ? out.squeeze(0) : out;
}

}  // namespace

SDPAKernelGuard::SDPAKernelGuard(std::vector<SDPBackend> backends)
    : previous_(allowed_backends) {
  allowed_backends = 0;
  for (SDPBackend b : backends) allowed_backends |= 1u << static_cast<int>(b);
}
SDPAKernelGuard::~SDPAKernelGuard() { allowed_backends = previous_; }

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  EMBER_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(),
              "Expected query, key, and value to have the same dtype, but got query.dtype: ",
              scalar_type_name(query.dtype()), " key.dtype: ", scalar_type_name(key.dtype()),
              " and value.dtype: ", scalar_type_name(value.dtype()), " instead.");
  EMBER_CHECK(query.device() == key.device() && query.device() == value.device(),
              "Expected query, key, and value to have the same device type, but got "
              "query.device: ",
              query.device().str(), " key.device: ", key.device().str(),
              " and value.device: ", value.device().str(), " instead.");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "Expected query, key, and value to all be  at least 2 dimensional, but got "
              "query.dim: ",
              query.dim(), " key.dim: ", key.dim(), " and value.dim: ", value.dim(), " instead.");
  EMBER_CHECK(!attn_mask.defined() || attn_mask.dtype() == kBool ||
                  attn_mask.dtype() == query.dtype(),
              "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
              "attn_mask.dtype: ",
              attn_mask.defined() ? scalar_type_name(attn_mask.dtype()) : "", " and  query.dtype: ",
              scalar_type_name(query.dtype()), " instead.");
  EMBER_CHECK(!(is_causal && attn_mask.defined()),
              "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
              "is_causal=True");
  EMBER_CHECK_VALUE(dropout_p >= 0 && dropout_p <= 1,
                    "dropout probability has to be between 0 and 1, but got ", dropout_p);
  EMBER_CHECK(is_floating_point(query.dtype()),
              "scaled_dot_product_attention: expected a floating point query, got ",
              scalar_type_name(query.dtype()));

  // Reduced precision is computed in float32, as PyTorch's math path.
  const ScalarType origin = query.dtype();
  const ScalarType compute = is_low_precision(origin) ? kFloat : origin;
  Tensor q = query.to(compute), k = key.to(compute), v = value.to(compute);

  if (enable_gqa && q.dim() >= 3 && k.dim() >= 3 && k.size(-3) != q.size(-3)) {
    const int64_t hq = q.size(-3), hk = k.size(-3);
    EMBER_CHECK(hk > 0 && hq % hk == 0 && v.size(-3) == hk,
                "number of heads in key/value must divide number of heads in query");
    k = repeat_heads(k, hq / hk);
    v = repeat_heads(v, hq / hk);
  }
  const double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  const Tensor mask = is_causal ? Tensor() : additive_mask(attn_mask, compute, /*true_attends=*/true);

  // Note [CUDA fused attention by size]: the CUDA kernel
  // (tensor/cuda/attention.cu: one thread per row, no tensor cores) passed
  // nn/functional:attention_cuda_test and compute-sanitizer on an H200, but
  // took 1.17x the math path's time for GPT-2 small's training step at
  // context 1024 (BENCHMARKS.md). So CUDA takes it where the math path's
  // [B, H, L, S] score matrix would be large (kFusedAboveScores elements,
  // 1 GiB of float: memory, not speed, decides), or where the caller asked
  // for it alone (SDPAKernelGuard(kFlashAttention)); the math path
  // otherwise. The CPU kernel is the default.
  constexpr int64_t kFusedAboveScores = int64_t{1} << 28;
  const int64_t batch_heads = q.numel() / std::max<int64_t>(q.size(-2) * q.size(-1), 1);
  const bool fused_by_default = q.device().is_cpu() || !backend_allowed(SDPBackend::kMath) ||
                                batch_heads * q.size(-2) * k.size(-2) > kFusedAboveScores;
  Tensor out;
  if (std::optional<std::vector<int64_t>> bh = fused_batch(q, k, v, mask, dropout_p);
      bh.has_value() && backend_allowed(SDPBackend::kFlashAttention) && fused_by_default) {
    out = fused_attention(q, k, v, mask, is_causal, s, *bh);
  } else {
    EMBER_CHECK(backend_allowed(SDPBackend::kMath), "No available kernel. Aborting execution.");
    out = math_attention(q, k, v, mask, dropout_p, is_causal, s);
  }
  return out.dtype() == origin ? out : out.to(origin);
}

namespace {

using Options = MultiheadAttentionForwardFuncOptions;

// PyTorch 1.13's _mha_shape_check: whether the call is batched.
bool check_mha_shapes(const Tensor& query, const Tensor& key, const Tensor& value,
                      const Tensor& key_padding_mask, const Tensor& attn_mask, int64_t num_heads) {
  if (query.dim() == 3) {
    EMBER_CHECK(key.dim() == 3 && value.dim() == 3,
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ",
                key.dim(), "-D and ", value.dim(), "-D tensors respectively");
    EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 2,
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                "found ",
                key_padding_mask.dim(), "-D tensor instead");
    EMBER_CHECK(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3,
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found ",
                attn_mask.dim(), "-D tensor instead");
    return true;
  }
  EMBER_CHECK(query.dim() == 2,
              "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
              "-D query tensor");
  EMBER_CHECK(key.dim() == 2 && value.dim() == 2,
              "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ",
              key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 1,
              "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
              "found ",
              key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    EMBER_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3,
                "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found ",
                attn_mask.dim(), "-D tensor instead");
    if (attn_mask.dim() == 3) {
      const std::vector<int64_t> expected = {num_heads, query.size(0), key.size(0)};
      EMBER_CHECK(attn_mask.sizes() == IntArrayRef(expected), "Expected `attn_mask` shape to be ",
                  "(", expected[0], ", ", expected[1], ", ", expected[2], ") but got ",
                  size_repr(attn_mask.sizes()));
    }
  }
  return false;
}

// PyTorch 1.13's dtype checks of the two masks (uint8 counts as bool).
void check_mask_dtypes(const Tensor& key_padding_mask, const Tensor& attn_mask) {
  auto ok = [](const Tensor& m) {
    return !m.defined() || m.dtype() == kBool || m.dtype() == kByte ||
           is_floating_point(m.dtype());
  };
  EMBER_CHECK(ok(key_padding_mask), "only bool and floating types of key_padding_mask are supported");
  EMBER_CHECK(ok(attn_mask), "Only float, byte, and bool types are supported for attn_mask, not torch.",
              attn_mask.defined() ? dtype_name(attn_mask.dtype()) : "");
}

// The input projections: PyTorch's _in_projection_packed (one weight
// [3E, E]; a single GEMM when query, key and value are one tensor) and
// _in_projection (separate weights for other key/value widths).
std::vector<Tensor> project_inputs(const Tensor& q, const Tensor& k, const Tensor& v,
                                   const Options& o, int64_t E) {
  const Tensor& b = o.in_proj_bias();
  auto bias_part = [&](int64_t i, int64_t n) { return b.defined() ? b.narrow(0, i * E, n * E) : b; };
  if (o.use_separate_proj_weight()) {
    const Tensor &wq = o.q_proj_weight(), &wk = o.k_proj_weight(), &wv = o.v_proj_weight();
    EMBER_CHECK(wq.defined() && wk.defined() && wv.defined(),
                "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                "v_proj_weight is None");
    EMBER_CHECK(wq.dim() == 2 && wq.size(0) == E && wq.size(1) == E,
                "Expecting query weights shape of ", tuple_str(E, E), ", but got ",
                size_repr(wq.sizes()));
    EMBER_CHECK(wk.dim() == 2 && wk.size(0) == E && wk.size(1) == k.size(-1),
                "Expecting key weights shape of ", tuple_str(E, k.size(-1)), ", but got ",
                size_repr(wk.sizes()));
    EMBER_CHECK(wv.dim() == 2 && wv.size(0) == E && wv.size(1) == v.size(-1),
                "Expecting value weights shape of ", tuple_str(E, v.size(-1)), ", but got ",
                size_repr(wv.sizes()));
    return {linear(q, wq, bias_part(0, 1)), linear(k, wk, bias_part(1, 1)),
            linear(v, wv, bias_part(2, 1))};
  }
  const Tensor& w = o.in_proj_weight();
  EMBER_CHECK(w.defined(), "use_separate_proj_weight is False but in_proj_weight is None");
  if (k.is_same(v)) {
    if (q.is_same(k)) return linear(q, w, b).chunk(3, -1);  // self-attention
    std::vector<Tensor> kv = linear(k, w.narrow(0, E, 2 * E), bias_part(1, 2)).chunk(2, -1);
    return {linear(q, w.narrow(0, 0, E), bias_part(0, 1)), kv[0], kv[1]};
  }
  return {linear(q, w.narrow(0, 0, E), bias_part(0, 1)),
          linear(k, w.narrow(0, E, E), bias_part(1, 1)),
          linear(v, w.narrow(0, 2 * E, E), bias_part(2, 1))};
}

// [T, N, E] -> [N * H, T, head_dim], or a static_k/static_v given in that
// shape already.
Tensor split_heads(const Tensor& t, const Tensor& fixed, int64_t bsz, int64_t H, int64_t hd,
                   const char* what) {
  if (!fixed.defined()) return t.contiguous().view({t.size(0), bsz * H, hd}).transpose(0, 1);
  EMBER_CHECK(fixed.dim() == 3 && fixed.size(0) == bsz * H && fixed.size(2) == hd, "expecting ",
              what, ".size(0) of ", bsz * H, " and ", what, ".size(2) of ", hd, ", but got ",
              size_repr(fixed.sizes()));
  return fixed;
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in,
                                                        const Tensor& key_in,
                                                        const Tensor& value_in, const Options& o) {
  check_mask_dtypes(o.key_padding_mask(), o.attn_mask());
  const int64_t H = o.num_heads();
  const bool batched = check_mha_shapes(query_in, key_in, value_in, o.key_padding_mask(),
                                        o.attn_mask(), H);
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = batched ? key_in : key_in.unsqueeze(1);
  Tensor value = batched ? value_in : value_in.unsqueeze(1);
  // Keep "one tensor" visible to the projection's fast paths.
  if (!batched && key_in.is_same(query_in)) key = query;
  if (!batched && value_in.is_same(key_in)) value = key;

  const int64_t L = query.size(0), bsz = query.size(1), E = query.size(2);
  EMBER_CHECK(E == o.embed_dim_to_check(), "was expecting embedding dimension of ",
              o.embed_dim_to_check(), ", but got ", E);
  EMBER_CHECK(H > 0 && E % H == 0, "embed_dim ", E, " not divisible by num_heads ", H);
  const int64_t hd = E / H;
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1),
                "key's sequence and batch dims ", size_repr({key.size(0), key.size(1)}),
                " do not match value's ", size_repr({value.size(0), value.size(1)}));
  } else {
    EMBER_CHECK(key.sizes() == value.sizes(), "key shape ", size_repr(key.sizes()),
                " does not match value shape ", size_repr(value.sizes()));
  }
  std::vector<Tensor> qkv = project_inputs(query, key, value, o, E);
  Tensor q = qkv[0], k = qkv[1], v = qkv[2];

  // Both masks become additive float masks (true = masked out here):
  // attn_mask [1 or N * H, L, S], key_padding_mask [N, S].
  const ScalarType dtype = q.dtype();
  Tensor attn_mask = additive_mask(
      o.attn_mask().defined() && o.attn_mask().dtype() == kByte ? o.attn_mask().to(kBool)
                                                                : o.attn_mask(),
      dtype, /*true_attends=*/false);
  if (attn_mask.defined()) {
    const int64_t S = key.size(0);
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.size(0) == L && attn_mask.size(1) == S,
                  "The shape of the 2D attn_mask is ", size_repr(attn_mask.sizes()),
                  ", but should be ", tuple_str(L, S), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      EMBER_CHECK(attn_mask.dim() == 3 && attn_mask.size(0) == bsz * H &&
                      attn_mask.size(1) == L && attn_mask.size(2) == S,
                  "The shape of the 3D attn_mask is ", size_repr(attn_mask.sizes()),
                  ", but should be (", bsz * H, ", ", L, ", ", S, ").");
    }
  }
  Tensor kpm = o.key_padding_mask();
  if (kpm.defined()) {
    if (kpm.dtype() == kByte) kpm = kpm.to(kBool);
    kpm = additive_mask(batched ? kpm : kpm.unsqueeze(0), dtype, /*true_attends=*/false);
  }
  auto pad_key_dim = [](const Tensor& m) {
    return m.defined() ? pad(m, PadFuncOptions({0, 1})) : m;
  };

  if (o.bias_k().defined() && o.bias_v().defined()) {
    EMBER_CHECK(!o.static_k().defined(), "bias cannot be added to static key.");
    EMBER_CHECK(!o.static_v().defined(), "bias cannot be added to static value.");
    k = cat({k, o.bias_k().repeat({1, bsz, 1})});
    v = cat({v, o.bias_v().repeat({1, bsz, 1})});
    attn_mask = pad_key_dim(attn_mask);
    kpm = pad_key_dim(kpm);
  } else {
    EMBER_CHECK(!o.bias_k().defined() && !o.bias_v().defined(),
                "bias_k and bias_v must both be given or both be None");
  }

  q = q.contiguous().view({L, bsz * H, hd}).transpose(0, 1);
  k = split_heads(k, o.static_k(), bsz, H, hd, "static_k");
  v = split_heads(v, o.static_v(), bsz, H, hd, "static_v");
  if (o.add_zero_attn()) {
    k = cat({k, zeros({bsz * H, 1, hd}, k.options())}, 1);
    v = cat({v, zeros({bsz * H, 1, hd}, v.options())}, 1);
    attn_mask = pad_key_dim(attn_mask);
    kpm = pad_key_dim(kpm);
  }
  const int64_t S = k.size(1);
  if (kpm.defined()) {
    EMBER_CHECK(kpm.dim() == 2 && kpm.size(0) == bsz && kpm.size(1) == S,
                "expecting key_padding_mask shape of ", tuple_str(bsz, S), ", but got ",
                size_repr(kpm.sizes()));
    kpm = kpm.view({bsz, 1, 1, S}).expand({bsz, H, 1, S}).reshape({bsz * H, 1, S});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor out, weights;
  if (o.need_weights()) {
    // PyTorch 1.13's _scaled_dot_product_attention: the weights are needed.
    Tensor scaled = q / std::sqrt(static_cast<double>(hd));
    Tensor scores = bmm(scaled, k.transpose(-2, -1));
    if (attn_mask.defined()) scores = scores + attn_mask;
    // The weights returned are those applied: after dropout, as PyTorch's.
    weights = scores.softmax(-1);
    if (dropout_p > 0) weights = dropout(weights, DropoutFuncOptions().p(dropout_p).training(true));
    out = bmm(weights, v).transpose(0, 1).contiguous().view({L * bsz, E});
  } else {
    Tensor mask4;
    if (attn_mask.defined()) {
      mask4 = attn_mask.size(0) == 1 ? attn_mask.unsqueeze(0)
                                     : attn_mask.view({bsz, H, attn_mask.size(1), S});
    }
    Tensor heads = scaled_dot_product_attention(q.view({bsz, H, L, hd}), k.view({bsz, H, S, hd}),
                                                v.view({bsz, H, S, hd}), mask4, dropout_p);
    out = heads.permute({2, 0, 1, 3}).contiguous().view({L * bsz, E});
  }
  out = linear(out, o.out_proj_weight(), o.out_proj_bias()).view({L, bsz, E});
  if (weights.defined()) {
    weights = weights.view({bsz, H, L, S});
    if (o.average_attn_weights()) weights = weights.sum({1}) / static_cast<double>(H);
    if (!batched) weights = weights.squeeze(0);
  }
  if (!batched) out = out.squeeze(1);
  return {out, weights};
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
