// The CPU kernels of Note [Fused attention].

#include "tensor/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_join.h"
#include "tensor/autograd_hook.h"
#include "tensor/blas.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/math.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"
#include "tensor/vec_math.h"
#include "tensor/reduce.h"

namespace ember {
namespace {

constexpr int64_t kQueryBlock = 64;
constexpr int64_t kKeyBlock = 128;

// Where one head's matrices start and how they step: rows by `rs` elements,
// columns contiguous; batch b and head h offset by b * bs + h * hs.
template <typename T>
struct HeadView {
  const T* data;
  int64_t bs, hs, rs;
  const T* at(int64_t b, int64_t h) const { return data + b * bs + h * hs; }
};

template <typename T>
HeadView<T> head_view(const Tensor& t) {
  return {t.data_ptr<T>(), t.stride(0), t.stride(1), t.stride(2)};
}

// The additive mask's strides (all four may be 0: a broadcast mask).
template <typename T>
struct MaskView {
  const T* data = nullptr;
  int64_t bs = 0, hs = 0, rs = 0, cs = 0;
};

// scores[r, c] (rows i0.., cols j0..) += mask, or -inf where causal hides
// the key. Returns nothing; the caller then treats -inf as "no weight".
template <typename T>
void apply_masks(T* scores, int64_t ld, int64_t rows, int64_t cols, int64_t i0, int64_t j0,
                 const MaskView<T>& mask, int64_t b, int64_t h, bool is_causal) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  if (mask.data != nullptr) {
    const T* m = mask.data + b * mask.bs + h * mask.hs;
    for (int64_t r = 0; r < rows; ++r) {
      const T* mr = m + (i0 + r) * mask.rs + j0 * mask.cs;
      T* s = scores + r * ld;
      for (int64_t c = 0; c < cols; ++c) s[c] += mr[c * mask.cs];
    }
  }
  if (is_causal) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t first_hidden = std::max<int64_t>(i0 + r + 1 - j0, 0);
      T* s = scores + r * ld;
      for (int64_t c = first_hidden; c < cols; ++c) s[c] = kNegInf;
    }
  }
}

template <typename T>
MaskView<T> mask_view(const Tensor& mask) {
  MaskView<T> m;
  if (mask.defined()) {
    m.data = mask.data_ptr<T>();
    m.bs = mask.stride(0);
    m.hs = mask.stride(1);
    m.rs = mask.stride(2);
    m.cs = mask.stride(3);
  }
  return m;
}

template <typename T>
void flash_forward_typed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                         bool is_causal, double scale, Tensor& out, Tensor& lse) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), E = q.size(3);
  const int64_t S = k.size(2), Ev = v.size(3);
  const HeadView<T> qv = head_view<T>(q), kv = head_view<T>(k), vv = head_view<T>(v);
  const MaskView<T> mv = mask_view<T>(mask);
  T* out_data = out.data_ptr<T>();
  T* lse_data = lse.data_ptr<T>();
  const int64_t q_blocks = (L + kQueryBlock - 1) / kQueryBlock;
  // One task per (batch, head, query block); each owns its scratch.
  parallel_for(0, B * H * q_blocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> scores(kQueryBlock * kKeyBlock), acc(kQueryBlock * Ev);
    std::vector<T> row_max(kQueryBlock), row_sum(kQueryBlock);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t bh = task / q_blocks, b = bh / H, h = bh % H;
      const int64_t i0 = (task % q_blocks) * kQueryBlock;
      const int64_t rows = std::min(kQueryBlock, L - i0);
      std::fill(acc.begin(), acc.begin() + rows * Ev, T(0));
      std::fill(row_max.begin(), row_max.begin() + rows, kNegInf);
      std::fill(row_sum.begin(), row_sum.begin() + rows, T(0));
      const T* qp = qv.at(b, h) + i0 * qv.rs;
      // Causal: keys past the block's last query are hidden from all its rows.
      const int64_t s_end = is_causal ? std::min(S, i0 + rows) : S;
      for (int64_t j0 = 0; j0 < s_end; j0 += kKeyBlock) {
        const int64_t cols = std::min(kKeyBlock, s_end - j0);
        detail::blas_gemm(false, true, rows, cols, E, static_cast<T>(scale), qp, qv.rs,
                          kv.at(b, h) + j0 * kv.rs, kv.rs, T(0), scores.data(), cols);
        apply_masks(scores.data(), cols, rows, cols, i0, j0, mv, b, h, is_causal);
        for (int64_t r = 0; r < rows; ++r) {
          T* s = scores.data() + r * cols;
          T block_max = kNegInf;
          for (int64_t c = 0; c < cols; ++c) block_max = std::max(block_max, s[c]);
          const T new_max = std::max(row_max[r], block_max);
          if (new_max == kNegInf) {  // every key so far masked: no weight yet
            std::fill(s, s + cols, T(0));
            continue;
          }
          const T correction = detail::vec_exp(row_max[r] - new_max);  // 0 when it was -inf
          T sum = 0;
          for (int64_t c = 0; c < cols; ++c) {
            s[c] = detail::vec_exp(s[c] - new_max);
          }
          for (int64_t c = 0; c < cols; ++c) sum += s[c];
          row_sum[r] = row_sum[r] * correction + sum;
          row_max[r] = new_max;
          if (correction != T(1)) {
            T* a = acc.data() + r * Ev;
            for (int64_t e = 0; e < Ev; ++e) a[e] *= correction;
          }
        }
        detail::blas_gemm(false, false, rows, Ev, cols, T(1), scores.data(), cols,
                          vv.at(b, h) + j0 * vv.rs, vv.rs, T(1), acc.data(), Ev);
      }
      T* o = out_data + (bh * L + i0) * Ev;
      T* l = lse_data + bh * L + i0;
      for (int64_t r = 0; r < rows; ++r) {
        const T inv = row_sum[r] > 0 ? T(1) / row_sum[r] : T(0);
        for (int64_t e = 0; e < Ev; ++e) o[r * Ev + e] = acc[r * Ev + e] * inv;
        l[r] = row_sum[r] > 0 ? row_max[r] + std::log(row_sum[r]) : kNegInf;
      }
    }
  });
}

template <typename T>
void flash_backward_typed(const Tensor& go, const Tensor& q, const Tensor& k, const Tensor& v,
                          const Tensor& out, const Tensor& lse, const Tensor& mask,
                          bool is_causal, double scale, Tensor& gq, Tensor& gk, Tensor& gv) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), E = q.size(3);
  const int64_t S = k.size(2), Ev = v.size(3);
  const HeadView<T> qv = head_view<T>(q), kv = head_view<T>(k), vv = head_view<T>(v);
  const MaskView<T> mv = mask_view<T>(mask);
  const T* go_data = go.data_ptr<T>();  // contiguous [B, H, L, Ev], as out
  const T* out_data = out.data_ptr<T>();
  const T* lse_data = lse.data_ptr<T>();
  T* gq_data = gq.data_ptr<T>();
  T* gk_data = gk.data_ptr<T>();
  T* gv_data = gv.data_ptr<T>();
  const T s = static_cast<T>(scale);
  // One task per (batch, head): key and value gradients collect over all
  // query blocks of the head.
  parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> p(kQueryBlock * kKeyBlock), dp(kQueryBlock * kKeyBlock), delta(kQueryBlock);
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t b = bh / H, h = bh % H;
      const T* qh = qv.at(b, h);
      const T* kh = kv.at(b, h);
      const T* vh = vv.at(b, h);
      T* gqh = gq_data + bh * L * E;
      T* gkh = gk_data + bh * S * E;
      T* gvh = gv_data + bh * S * Ev;
      for (int64_t i0 = 0; i0 < L; i0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, L - i0);
        const T* gor = go_data + (bh * L + i0) * Ev;
        const T* outr = out_data + (bh * L + i0) * Ev;
        const T* lr = lse_data + bh * L + i0;
        for (int64_t r = 0; r < rows; ++r) {  // delta_i = <dO_i, O_i>
          T d = 0;
          for (int64_t e = 0; e < Ev; ++e) d += gor[r * Ev + e] * outr[r * Ev + e];
          delta[r] = d;
        }
        const int64_t s_end = is_causal ? std::min(S, i0 + rows) : S;
        for (int64_t j0 = 0; j0 < s_end; j0 += kKeyBlock) {
          const int64_t cols = std::min(kKeyBlock, s_end - j0);
          detail::blas_gemm(false, true, rows, cols, E, s, qh + i0 * qv.rs, qv.rs, kh + j0 * kv.rs,
                            kv.rs, T(0), p.data(), cols);
          apply_masks(p.data(), cols, rows, cols, i0, j0, mv, b, h, is_causal);
          for (int64_t r = 0; r < rows; ++r) {  // P = exp(scores - logsumexp)
            T* pr = p.data() + r * cols;
            if (lr[r] == kNegInf) {
              std::fill(pr, pr + cols, T(0));
              continue;
            }
            for (int64_t c = 0; c < cols; ++c) pr[c] = detail::vec_exp(pr[c] - lr[r]);
          }
          // dV_j += P^T dO;  dP = dO V_j^T
          detail::blas_gemm(true, false, cols, Ev, rows, T(1), p.data(), cols, gor, Ev, T(1),
                            gvh + j0 * Ev, Ev);
          detail::blas_gemm(false, true, rows, cols, Ev, T(1), gor, Ev, vh + j0 * vv.rs, vv.rs,
                            T(0), dp.data(), cols);
          for (int64_t r = 0; r < rows; ++r) {  // dS = P * (dP - delta)
            T* dr = dp.data() + r * cols;
            const T* pr = p.data() + r * cols;
            for (int64_t c = 0; c < cols; ++c) dr[c] = pr[c] * (dr[c] - delta[r]);
          }
          // dQ_i += s dS K_j;  dK_j += s dS^T Q_i
          detail::blas_gemm(false, false, rows, E, cols, s, dp.data(), cols, kh + j0 * kv.rs,
                            kv.rs, T(1), gqh + i0 * E, E);
          detail::blas_gemm(true, false, cols, E, rows, s, dp.data(), cols, qh + i0 * qv.rs,
                            qv.rs, T(1), gkh + j0 * E, E);
        }
      }
    }
  });
}

void flash_forward_cpu(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                       bool is_causal, double scale, Tensor& out, Tensor& lse) {
  EMBER_DISPATCH_FLOAT_DOUBLE(q.dtype(), "_scaled_dot_product_flash_attention", [&] {
    flash_forward_typed<scalar_t>(q, k, v, mask, is_causal, scale, out, lse);
  });
}

void flash_backward_cpu(const Tensor& go, const Tensor& q, const Tensor& k, const Tensor& v,
                        const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                        double scale, Tensor& gq, Tensor& gk, Tensor& gv) {
  EMBER_DISPATCH_FLOAT_DOUBLE(q.dtype(), "_scaled_dot_product_flash_attention_backward", [&] {
    flash_backward_typed<scalar_t>(go, q, k, v, out, lse, mask, is_causal, scale, gq, gk, gv);
  });
}

// Unit stride in the last dim (what the GEMMs need); other dims any.
Tensor rows_contiguous(const Tensor& t) { return t.stride(3) == 1 ? t : t.contiguous(); }

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
              "_scaled_dot_product_flash_attention: expected 4-D query, key and value");
  EMBER_CHECK(k.device() == q.device() && v.device() == q.device() &&
                  (!mask.defined() || mask.device() == q.device()),
              "_scaled_dot_product_flash_attention: query, key, value and mask must be on one "
              "device");
  EMBER_CHECK((q.dtype() == kFloat || q.dtype() == kDouble) && k.dtype() == q.dtype() &&
                  v.dtype() == q.dtype(),
              "_scaled_dot_product_flash_attention: float or double query, key and value");
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), S = k.size(2);
  EMBER_CHECK(k.size(0) == B && v.size(0) == B && k.size(1) == H && v.size(1) == H &&
                  v.size(2) == S && k.size(3) == q.size(3),
              "_scaled_dot_product_flash_attention: query [", absl::StrJoin(q.sizes(), ", "),
              "], key [", absl::StrJoin(k.sizes(), ", "), "] and value [",
              absl::StrJoin(v.sizes(), ", "), "] do not line up");
  if (mask.defined()) {
    EMBER_CHECK(mask.dtype() == q.dtype() && mask.dim() == 4 && mask.size(0) == B &&
                    mask.size(1) == H && mask.size(2) == L && mask.size(3) == S,
                "_scaled_dot_product_flash_attention: the mask must be ", dtype_name(q.dtype()),
                " expanded to [B, H, L, S]");
  }
}

}  // namespace

namespace detail {
EMBER_DEFINE_KERNEL_TABLE(flash_attention_forward_kernel, FlashForwardFn);
EMBER_DEFINE_KERNEL_TABLE(flash_attention_backward_kernel, FlashBackwardFn);
EMBER_REGISTER_KERNEL(flash_attention_forward_kernel, kCPU, &flash_forward_cpu);
EMBER_REGISTER_KERNEL(flash_attention_backward_kernel, kCPU, &flash_backward_cpu);
}  // namespace detail

Tensor _safe_softmax(const Tensor& scores) {
  Tensor all_masked = all(eq(scores, -std::numeric_limits<double>::infinity()), -1,
                          /*keepdim=*/true);
  return scores.masked_fill(all_masked, 0).softmax(-1).masked_fill(all_masked, 0);
}

bool flash_attention_supported(Device device, int64_t e, int64_t ev) {
  if (device.is_cpu()) return true;
  return detail::flash_attention_forward_kernel.has(device.type()) &&
         e <= detail::kCudaFlashMaxHeadDim && ev <= detail::kCudaFlashMaxHeadDim;
}

std::tuple<Tensor, Tensor> _scaled_dot_product_flash_attention(const Tensor& query,
                                                               const Tensor& key,
                                                               const Tensor& value,
                                                               const Tensor& attn_mask,
                                                               bool is_causal, double scale) {
  check_inputs(query, key, value, attn_mask);
  profiler::RecordFunction prof_range("_scaled_dot_product_flash_attention",
                                      profiler::RangeKind::kOp, query, key, value);
  detail::OpScope scope(query, key, value);
  const Tensor q = rows_contiguous(query), k = rows_contiguous(key), v = rows_contiguous(value);
  Tensor out = empty({q.size(0), q.size(1), q.size(2), v.size(3)}, q.options());
  Tensor lse = empty({q.size(0), q.size(1), q.size(2)}, q.options());
  detail::flash_attention_forward_kernel(q.device())(q, k, v, attn_mask, is_causal, scale, out,
                                                      lse);
  if (scope.active()) {
    scope.record("_scaled_dot_product_flash_attention", {query, key, value, attn_mask},
                 {out, lse}, {Scalar(is_causal), Scalar(scale)});
  }
  return {out, lse};
}

std::tuple<Tensor, Tensor, Tensor> _scaled_dot_product_flash_attention_backward(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value,
    const Tensor& out, const Tensor& logsumexp, const Tensor& attn_mask, bool is_causal,
    double scale) {
  check_inputs(query, key, value, attn_mask);
  const Tensor q = rows_contiguous(query), k = rows_contiguous(key), v = rows_contiguous(value);
  const Tensor go = grad_out.contiguous(), o = out.contiguous(), l = logsumexp.contiguous();
  Tensor gq = zeros(q.sizes(), q.options());
  Tensor gk = zeros(k.sizes(), k.options());
  Tensor gv = zeros(v.sizes(), v.options());
  detail::flash_attention_backward_kernel(q.device())(go, q, k, v, o, l, attn_mask, is_causal,
                                                       scale, gq, gk, gv);
  return {gq, gk, gv};
}

}  // namespace ember
