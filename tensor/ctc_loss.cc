// _ctc_loss and _ctc_loss_backward: the connectionist temporal
// classification loss (Graves et al., ICML 2006) by the alpha / beta
// recursion in log space, one sample at a time, as ATen's CPU kernels
// (LossCTC.cpp) compute it, so that values, the infinite losses of
// impossible alignments and the gradients' rounding follow PyTorch's.
#include "tensor/ctc_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"

// Note [CTC gradient]: ATen's _ctc_loss_backward returns
// exp(lp) - exp(log(sum alpha*beta) + nll - lp), the true derivative plus
// softmax(lp). For log_probs computed by log_softmax, as CTC requires, the
// extra term sums to zero through log_softmax's backward (each row of the
// true derivative sums to -1 over the classes), so the gradient of the
// logits is exact; the gradient of log_probs themselves is not. ember
// returns ATen's values, so that gradients match PyTorch's, and
// its gradchecks therefore differentiate through log_softmax.

namespace ember {
namespace {

// Where each sample's targets start in `targets` and how far apart they are.
struct CtcGeometry {
  int64_t max_input = 0, batch = 0, classes = 0, max_target = 0;
  Tensor targets;                // as int64
  std::vector<int64_t> offsets;  // per sample, in elements of `targets`
  int64_t stride = 1;            // between one target and the next
};

CtcGeometry check_ctc(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                      IntArrayRef target_lengths, int64_t blank) {
  const char* c = "ctc_loss_cpu";
  EMBER_CHECK(log_probs.device().is_cpu(), "ctc_loss: only CPU tensors are supported, got ",
              log_probs.device().str());
  EMBER_CHECK(targets.dtype() == kLong || targets.dtype() == kInt,
              "expected scalar type Long but found ", scalar_type_name(targets.dtype()));
  EMBER_CHECK(log_probs.dim() == 3, "Expected 3-dimensional tensor, but got ", log_probs.dim(),
              "-dimensional tensor for argument #1 'log_probs' (while checking arguments for ", c,
              ")");
  EMBER_CHECK(targets.dim() >= 1 && targets.dim() <= 2, "Expected 1 to 2 dimensions, but got ",
              targets.dim(),
              "-dimensional tensor for argument #2 'targets' (while checking arguments for ", c,
              ")");
  CtcGeometry g;
  g.max_input = log_probs.size(0);
  g.batch = log_probs.size(1);
  g.classes = log_probs.size(2);
  EMBER_CHECK(blank >= 0 && blank < g.classes, "blank must be in label range");
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == g.batch,
              "input_lengths must be of size batch_size");
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == g.batch,
              "target_lengths must be of size batch_size");
  // PyTorch reads out of bounds for these; ember refuses them.
  for (int64_t b = 0; b < g.batch; ++b) {
    EMBER_CHECK(input_lengths[b] >= 0 && target_lengths[b] >= 0,
                "ctc_loss: input_lengths and target_lengths must not be negative, got ",
                input_lengths[b], " and ", target_lengths[b], " for sample ", b);
  }
  // Offsets and strides are those of the int64 copy that is read.
  g.targets = targets.to(kLong);
  g.offsets.resize(g.batch);
  int64_t pos = 0;
  for (int64_t b = 0; b < g.batch; ++b) {
    g.max_target = std::max(g.max_target, target_lengths[b]);
    g.offsets[b] = targets.dim() == 1 ? pos : b * g.targets.stride(0);
    pos += target_lengths[b];
  }
  const int64_t check_dim = targets.dim() == 1 ? 0 : 1;
  const int64_t want = targets.dim() == 1 ? pos : g.max_target;
  // A 1-D tensor holds the targets concatenated: exactly their sum; a 2-D
  // one is padded: at least the longest.
  EMBER_CHECK(targets.dim() == 1 ? targets.size(0) == want : targets.size(1) >= want,
              "Expected tensor to have size ", targets.dim() == 1 ? "" : "at least ", want,
              " at dimension ", check_dim, ", but got size ", targets.size(check_dim),
              " for argument #2 'targets' (while checking arguments for ", c, ")");
  g.stride = g.targets.stride(check_dim);
  for (int64_t b = 0; b < g.batch; ++b) {
    EMBER_CHECK(input_lengths[b] <= g.max_input, "Expected input_lengths to have value at most ",
                g.max_input, ", but got value ", input_lengths[b],
                " (while checking arguments for ", c, ")");
  }
  return g;
}

// Sample b's targets as int64 classes, each checked against the label
// range (PyTorch reads out of bounds for a bad one).
std::vector<int64_t> sample_targets(const CtcGeometry& g, int64_t b, int64_t length) {
  std::vector<int64_t> out(length);
  const int64_t* p = g.targets.data_ptr<int64_t>();
  for (int64_t i = 0; i < length; ++i) {
    out[i] = p[g.offsets[b] + i * g.stride];
    EMBER_CHECK_INDEX(out[i] >= 0 && out[i] < g.classes, "ctc_loss: target ", out[i], " of sample ",
                      b, " is out of the label range [0, ", g.classes, ")");
  }
  return out;
}

// The extended target l' of the paper: blank, l1, blank, l2, ..., blank.
int64_t prime(const std::vector<int64_t>& l, int64_t s, int64_t blank) {
  return s % 2 == 0 ? blank : l[s / 2];
}

// log(exp(a) + exp(b) + exp(c)) with ATen's guard: all -inf gives -inf.
template <typename T>
T log_add3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == -std::numeric_limits<T>::infinity()) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

}  // namespace

std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets,
                                     IntArrayRef input_lengths, IntArrayRef target_lengths,
                                     int64_t blank, bool zero_infinity) {
  const CtcGeometry g = check_ctc(log_probs, targets, input_lengths, target_lengths, blank);
  profiler::RecordFunction prof_range("_ctc_loss", profiler::RangeKind::kOp, log_probs);
  detail::OpScope scope(log_probs);  // targets: integers, never differentiable
  const Tensor lp = log_probs.contiguous();
  const int64_t width = 2 * g.max_target + 1;
  Tensor log_alpha = full({g.batch, g.max_input, width}, -std::numeric_limits<double>::infinity(),
                          log_probs.options());
  Tensor nll = empty({g.batch}, log_probs.options());
  std::vector<std::vector<int64_t>> labels(g.batch);
  for (int64_t b = 0; b < g.batch; ++b) {
    labels[b] = sample_targets(g, b, target_lengths[b]);
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(log_probs.dtype(), "ctc_loss_cpu", [&] {
    using T = scalar_t;
    const T* lpp = lp.data_ptr<T>();
    T* la_all = log_alpha.data_ptr<T>();
    T* nll_p = nll.data_ptr<T>();
    const T neginf = -std::numeric_limits<T>::infinity();
    parallel_for(0, g.batch, 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const std::vector<int64_t>& l = labels[b];
        const int64_t in_len = input_lengths[b], tg_len = target_lengths[b];
        auto lpa = [&](int64_t t, int64_t c) { return lpp[(t * g.batch + b) * g.classes + c]; };
        T* la = la_all + b * g.max_input * width;
        if (in_len == 0) {
          // No frames: only the empty target is possible.
          nll_p[b] = tg_len == 0 ? T(0) : std::numeric_limits<T>::infinity();
          continue;
        }
        la[0] = lpa(0, blank);
        if (tg_len > 0) la[1] = lpa(0, prime(l, 1, blank));
        for (int64_t t = 1; t < in_len; ++t) {
          const T* prev = la + (t - 1) * width;
          T* cur = la + t * width;
          for (int64_t s = 0; s < 2 * tg_len + 1; ++s) {
            const int64_t p = prime(l, s, blank);
            const T a2 = s > 0 ? prev[s - 1] : neginf;
            // Skipping the blank between two labels is allowed unless they repeat.
            const T a3 = s > 1 && prime(l, s - 2, blank) != p ? prev[s - 2] : neginf;
            cur[s] = log_add3(prev[s], a2, a3) + lpa(t, p);
          }
        }
        const T* last = la + (in_len - 1) * width;
        nll_p[b] =
            tg_len == 0 ? -last[0] : -log_add3(last[2 * tg_len], last[2 * tg_len - 1], neginf);
      }
    });
  });
  if (scope.active()) {
    scope.record("_ctc_loss", {log_probs, targets}, {nll, log_alpha},
                 {DimVector(input_lengths.begin(), input_lengths.end()),
                  DimVector(target_lengths.begin(), target_lengths.end()), Scalar(blank),
                  Scalar(static_cast<int64_t>(zero_infinity))});
  }
  return {nll, log_alpha};
}

Tensor _ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                          IntArrayRef input_lengths, IntArrayRef target_lengths,
                          const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                          bool zero_infinity) {
  const CtcGeometry g = check_ctc(log_probs, targets, input_lengths, target_lengths, blank);
  EMBER_CHECK(grad.dim() == 1 && grad.size(0) == g.batch,
              "_ctc_loss_backward: grad must hold one value per sample");
  // Recorded without a derivative: PyTorch 1.13 has none either, so a
  // double backward fails with its message instead of silently giving 0.
  profiler::RecordFunction prof_range("_ctc_loss_backward", profiler::RangeKind::kOp, grad,
                                      log_probs);
  detail::OpScope scope(grad, log_probs);
  const Tensor lp = log_probs.contiguous();
  const Tensor la_t = log_alpha.to(log_probs.dtype()).contiguous();
  const Tensor nll_t = neg_log_likelihood.to(log_probs.dtype()).contiguous();
  const Tensor gr_t = grad.to(log_probs.dtype()).contiguous();
  const int64_t width = 2 * g.max_target + 1;
  Tensor out = empty(log_probs.sizes(), log_probs.options());
  std::vector<std::vector<int64_t>> labels(g.batch);
  for (int64_t b = 0; b < g.batch; ++b) {
    labels[b] = sample_targets(g, b, target_lengths[b]);
  }
  EMBER_DISPATCH_FLOAT_DOUBLE(log_probs.dtype(), "ctc_loss_backward_cpu", [&] {
    using T = scalar_t;
    const T* lpp = lp.data_ptr<T>();
    const T* la_all = la_t.data_ptr<T>();
    const T* nll_p = nll_t.data_ptr<T>();
    const T* gr_p = gr_t.data_ptr<T>();
    T* gp = out.data_ptr<T>();
    const T neginf = -std::numeric_limits<T>::infinity();
    parallel_for(0, g.batch, 1, [&](int64_t begin, int64_t end) {
      std::vector<T> beta;
      for (int64_t b = begin; b < end; ++b) {
        const std::vector<int64_t>& l = labels[b];
        const int64_t in_len = input_lengths[b], tg_len = target_lengths[b];
        const T nll = nll_p[b];
        auto lpa = [&](int64_t t, int64_t c) { return lpp[(t * g.batch + b) * g.classes + c]; };
        auto ga = [&](int64_t t, int64_t c) -> T& { return gp[(t * g.batch + b) * g.classes + c]; };
        const T* la = la_all + b * g.max_input * width;
        // Every sample's rows start as log(0): the log of an empty sum.
        for (int64_t t = 0; t < g.max_input; ++t) {
          for (int64_t c = 0; c < g.classes; ++c) ga(t, c) = neginf;
        }
        if (zero_infinity && nll == std::numeric_limits<T>::infinity()) {
          for (int64_t t = 0; t < g.max_input; ++t) {
            for (int64_t c = 0; c < g.classes; ++c) ga(t, c) = 0;
          }
          continue;
        }
        if (in_len > 0) {
          beta.assign(static_cast<size_t>(in_len * width), neginf);
          auto lb = [&](int64_t t, int64_t s) -> T& { return beta[t * width + s]; };
          const int64_t t_last = in_len - 1, s_last = 2 * tg_len;
          lb(t_last, s_last) = lpa(t_last, blank);
          ga(t_last, blank) = la[t_last * width + s_last] + lb(t_last, s_last);
          if (tg_len > 0) {
            const int64_t p = prime(l, s_last - 1, blank);
            lb(t_last, s_last - 1) = lpa(t_last, p);
            // A blank and a label: different classes, so no log-add is needed.
            ga(t_last, p) = la[t_last * width + s_last - 1] + lb(t_last, s_last - 1);
          }
          for (int64_t t = in_len - 2; t >= 0; --t) {
            for (int64_t s = s_last; s >= 0; --s) {
              const int64_t p = prime(l, s, blank);
              const T b2 = s < s_last ? lb(t + 1, s + 1) : neginf;
              const T b3 =
                  s < s_last - 1 && prime(l, s + 2, blank) != p ? lb(t + 1, s + 2) : neginf;
              lb(t, s) = log_add3(lb(t + 1, s), b2, b3) + lpa(t, p);
              // Eq. (16)'s sum over the positions s of class p, in log space.
              const T ab = la[t * width + s] + lb(t, s);
              T& acc = ga(t, p);
              if (acc == neginf) {
                acc = ab;
              } else {
                const T m = std::max(acc, ab);
                acc = std::log(std::exp(acc - m) + std::exp(ab - m)) + m;
              }
            }
          }
        }
        // d nll / d lp = -exp(log(sum alpha*beta) + nll - lp). ATen adds
        // exp(lp) (Note [CTC gradient]); frames past the input length get
        // no gradient.
        const T gr = gr_p[b];
        for (int64_t t = 0; t < g.max_input; ++t) {
          for (int64_t c = 0; c < g.classes; ++c) {
            T& r = ga(t, c);
            r = t < in_len ? (std::exp(lpa(t, c)) - std::exp(r + nll - lpa(t, c))) * gr : T(0);
          }
        }
      }
    });
  });
  if (scope.active()) {
    scope.record("_ctc_loss_backward", {grad, log_probs, targets}, {out},
                 {DimVector(input_lengths.begin(), input_lengths.end()),
                  DimVector(target_lengths.begin(), target_lengths.end()), Scalar(blank),
                  Scalar(static_cast<int64_t>(zero_infinity))});
  }
  return out;
}

}  // namespace ember
