// multinomial: PyTorch 1.13's algorithm, so that the same seed draws the
// same indices on the CPU (tensor/more_ops_test.cc, tools/golden/more_ops.py).
//
// Without replacement, or for a single sample, it is the Gumbel-max trick
// PyTorch uses: q ~ Exp(1) drawn like empty_like(self).exponential_(), then
// argmax (one sample) or topk of self / q. With replacement each row's
// cumulative distribution is summed and normalized in self's dtype, and
// every sample is a binary search for a uniform double in it (ATen's
// multinomial_with_replacement CPU kernel). On a device the uniforms come
// from the device's generator, drawn at once, and the device's kernel
// (multinomial_kernels.h) builds the same table and runs the same search:
// given the same uniforms, its draws are the CPU loop's. A device without
// that kernel runs the loop on the host with the device's uniforms (Note
// [CPU fallback]).

#include <cmath>
#include <mutex>
#include <type_traits>
#include <vector>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/fallback.h"
#include "tensor/math.h"
#include "tensor/more_ops.h"
#include "tensor/multinomial_kernels.h"
#include "tensor/random.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {

EMBER_DEFINE_KERNEL_TABLE(multinomial_kernel, MultinomialFn);

namespace {

// Indices < 2^24 so that float probabilities can tell the categories apart.
constexpr int64_t kMaxCategories = int64_t{1} << 24;

void check_multinomial(const Tensor& self, int64_t n_sample, bool replacement) {
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(is_floating_point(self.dtype()),
              "multinomial only supports floating-point dtypes for input, got: ",
              scalar_type_name(self.dtype()));
  EMBER_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  EMBER_CHECK(replacement || n_sample <= n_categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(n_categories <= kMaxCategories, "number of categories cannot exceed 2^24");
}

// ATen's CPU kernel: per row, the running sum (in float for float16 and
// bfloat16, as 1.13's), normalized, its last entry set to 1, then a binary
// search for each uniform draw(), taken in order.
template <typename T, typename Draw>
void with_replacement_cpu(const Tensor& probs, Tensor& result, int64_t n_sample, Draw&& draw) {
  const int64_t n_dist = probs.dim() == 1 ? 1 : probs.size(0);
  const int64_t n_categories = probs.size(-1);
  const int64_t row_stride = probs.dim() == 1 ? 0 : probs.stride(0);
  const int64_t col_stride = probs.stride(-1);
  const T* p = probs.data_ptr<T>();
  int64_t* out = result.data_ptr<int64_t>();
  using acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;
  std::vector<acc_t> cum(static_cast<size_t>(n_categories));
  for (int64_t i = 0; i < n_dist; ++i) {
    acc_t sum = 0;
    for (int64_t j = 0; j < n_categories; ++j) {
      const acc_t val = static_cast<acc_t>(p[i * row_stride + j * col_stride]);
      EMBER_CHECK(static_cast<double>(val) >= 0,
                  "invalid multinomial distribution (encountering probability entry < 0)");
      EMBER_CHECK(std::isfinite(static_cast<double>(val)),
                  "invalid multinomial distribution (encountering probability entry = infinity "
                  "or NaN)");
      sum += val;
      cum[j] = sum;
    }
    EMBER_CHECK(static_cast<double>(sum) > 0,
                "invalid multinomial distribution (sum of probabilities <= 0)");
    for (int64_t j = 0; j < n_categories; ++j) cum[j] /= sum;
    cum[n_categories - 1] = 1;
    for (int64_t s = 0; s < n_sample; ++s) {
      const double u = draw();
      int64_t left = 0;
      int64_t right = n_categories;
      while (right - left > 0) {
        const int64_t mid = left + (right - left) / 2;
        if (static_cast<double>(cum[mid]) < u) {
          left = mid + 1;
        } else {
          right = mid;
        }
      }
      out[i * n_sample + s] = left;
    }
  }
}

// The same draws on a device: the uniforms from the device's generator,
// then its kernel, or the CPU loop on them where the device has none.
Tensor with_replacement_device(const Tensor& self, int64_t n_sample, const Generator& gen) {
  const Tensor probs = (self.dim() == 1 ? self.unsqueeze(0) : self).contiguous();
  Tensor u = empty({probs.size(0), n_sample}, probs.options().dtype(kDouble));
  uniform_(u, 0.0, 1.0, gen);
  Tensor out;
  if (multinomial_kernel.has(probs.device().type())) {
    out = empty(u.sizes(), probs.options().dtype(kLong));
    multinomial_kernel(probs.device())(probs, u, out);
  } else {
    detail::cpu_fallback("multinomial", {probs});
    const Tensor host_probs = detail::cpu(probs), host_u = detail::cpu(u);
    Tensor result = empty(host_u.sizes(), host_probs.options().dtype(kLong));
    const double* up = host_u.data_ptr<double>();
    EMBER_DISPATCH_FLOATING_TYPES(probs.dtype(), "multinomial", [&] {
      with_replacement_cpu<scalar_t>(host_probs, result, n_sample, [&] { return *up++; });
    });
    out = detail::to_device(result, probs);
  }
  return self.dim() == 1 ? out.squeeze(0) : out;
}

}  // namespace

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   const std::optional<Generator>& generator) {
  check_multinomial(self, num_samples, replacement);
  const Generator gen =
      generator.has_value() ? *generator : detail::default_generator_for(self.device());
  std::vector<int64_t> out_sizes;
  if (self.dim() == 2) out_sizes.push_back(self.size(0));
  out_sizes.push_back(num_samples);
  if (self.numel() == 0) return empty(out_sizes, self.options().dtype(kLong));
  const Tensor probs = self.detach();
  if (!replacement || num_samples == 1) {
    EMBER_CHECK(((probs.max() < INFINITY) & (probs.min() >= 0)).item<bool>(),
                "probability tensor contains either `inf`, `nan` or element < 0");
    const bool zero_row =
        probs.dim() == 1 ? (probs.sum() == 0).item<bool>() : (probs.sum(1) == 0).any().item<bool>();
    EMBER_CHECK(!zero_row, "invalid multinomial distribution (sum of probabilities <= 0)");
    // Gumbel-max: argmax(p / q) with q ~ Exp(1) samples from p.
    Tensor q = empty_like(probs);
    exponential_(q, 1.0, gen);
    const Tensor ratio = probs.div(q);
    if (num_samples == 1) return ratio.argmax(-1, /*keepdim=*/true);
    return std::get<1>(ratio.topk(num_samples));
  }
  if (!probs.is_cpu()) return with_replacement_device(probs, num_samples, gen);
  Tensor result = empty(out_sizes, probs.options().dtype(kLong));
  GeneratorImpl* g = gen.impl();
  std::lock_guard<std::mutex> lock(g->mutex());
  EMBER_DISPATCH_FLOATING_TYPES(probs.dtype(), "multinomial", [&] {
    with_replacement_cpu<scalar_t>(probs, result, num_samples,
                                   [g] { return detail::uniform_double(g); });
  });
  return result;
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  return ::ember::multinomial(*this, num_samples, replacement);
}
Tensor Tensor::multinomial(int64_t num_samples, bool replacement,
                           const Generator& generator) const {
  return ::ember::multinomial(*this, num_samples, replacement, generator);
}

}  // namespace ember
