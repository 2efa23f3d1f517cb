// more_ops.h's ops and the small Tensor methods PyTorch 1.13 has that
// ember lacked (ndim, nelement, get_device, is_nonzero, T, where, resize_),
// each a composition of ember's other ops with PyTorch's checks.

#include "tensor/more_ops.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/indexing.h"
#include "tensor/iterator.h"
#include "tensor/layout.h"
#include "tensor/linalg.h"
#include "tensor/loops.h"
#include "tensor/math.h"
#include "tensor/math_kernels.h"
#include "tensor/nn_ops.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/special.h"
#include "tensor/storage.h"
#include "tensor/tensor_impl.h"

namespace ember {
namespace {

// The coordinates, one int64 tensor per dim, of the flat row-major
// positions `flat` in a tensor of `sizes`.
std::vector<Tensor> unravel(const Tensor& flat, IntArrayRef sizes) {
  std::vector<Tensor> coords(sizes.size());
  Tensor rest = flat;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    coords[d] = rest.remainder(sizes[d]);
    rest = rest.div(sizes[d], "floor");
  }
  return coords;
}

void check_put(const Tensor& self, const Tensor& index, const Tensor& source) {
  EMBER_CHECK(index.dtype() == kLong, "put_(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(),
              "put_(): self and source expected to have the same dtype, but got self.dtype = ",
              scalar_type_name(self.dtype()),
              " and source.dtype = ", scalar_type_name(source.dtype()));
  EMBER_CHECK(index.numel() == source.numel(),
              "put_(): Expected source and index to have the same number of elements, but got "
              "source.numel() = ",
              source.numel(), ", index.numel() = ", index.numel());
}

Tensor& put_impl(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_put(self, index, source);
  if (index.numel() == 0) return self;
  const int64_t n = self.numel();
  const Tensor idx = index.reshape({-1});
  const Tensor bad = idx.lt(-n).logical_or(idx.ge(n));
  if (bad.any().item<bool>()) {
    EMBER_CHECK(false, "out of range: tried to access index ",
                idx.masked_select(bad)[0].item<int64_t>(), " on a tensor of ", n, " elements.");
  }
  const Tensor flat = where(idx.lt(0), idx + n, idx);
  Tensor target = self.dim() == 0 ? self.view({1}) : self;
  index_put_(target, unravel(flat, target.sizes()), source.reshape({-1}), accumulate);
  return self;
}

Tensor& fill_diagonal_impl(Tensor& self, const Scalar& value, bool wrap) {
  const int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "dimensions must larger than 1");
  const int64_t height = self.size(0), width = self.size(1);
  if (nd > 2) {
    for (int64_t d = 1; d < nd; ++d) {
      EMBER_CHECK(self.size(d) == height, "all dimensions of input must be of equal length");
    }
  }
  const TensorOptions longs = TensorOptions(kLong).device(self.device());
  std::vector<Tensor> coords;
  if (nd == 2 && wrap && height > width + 1) {
    // The diagonal restarts every width + 1 rows: flat positions 0,
    // w + 1, 2 (w + 1), ... below h * w.
    coords = unravel(arange(0, height * width, width + 1, longs), {height, width});
  } else {
    const Tensor i = arange(std::min(height, width), longs);
    coords.assign(nd, i);
  }
  index_put_(self, coords, full({}, value, TensorOptions(self.dtype()).device(self.device())));
  return self;
}

void check_renorm(const Tensor& self, const Scalar& p, const Scalar& maxnorm) {
  EMBER_CHECK(p.toDouble() > 0.0, "renorm: non-positive-norm not supported");
  EMBER_CHECK(maxnorm.toDouble() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ",
              maxnorm.toDouble());
  EMBER_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(),
              " dimensions");
}

// The weighted mean of each row and the normalization factor of cov().
void check_cov_weight(const Tensor& w, const char* name, bool integral, int64_t observations) {
  EMBER_CHECK(w.dim() <= 1, "cov(): expected ", name, " to have one or fewer dimensions but got ",
              name, " with ", w.dim(), " dimensions");
  if (integral) {
    EMBER_CHECK(is_integral(w.dtype(), /*include_bool=*/false), "cov(): expected ", name,
                " to have integral dtype but got ", name, " with ", scalar_type_name(w.dtype()),
                " dtype");
  } else {
    EMBER_CHECK(is_floating_point(w.dtype()), "cov(): expected ", name,
                " to have floating point dtype but got ", name, " with ",
                scalar_type_name(w.dtype()), " dtype");
  }
  EMBER_CHECK(w.numel() == observations, "cov(): expected ", name,
              " to have the same numel as there are observations in the input but got ", w.numel(),
              " != ", observations);
  EMBER_CHECK(observations == 0 || w.min().ge(0).item<bool>(), "cov(): ", name,
              " cannot be negative");
}

}  // namespace

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor r = self.clone();
  return put_impl(r, index, source, accumulate);
}

Tensor mvlgamma(const Tensor& self, int64_t p) {
  EMBER_CHECK(self.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const ScalarType t = is_integral(self.dtype(), true) ? get_default_dtype() : self.dtype();
  // x - i/2 for i < p along a new last dim: arange(-(p-1)/2, 1/2, 1/2) + x.
  const Tensor args =
      arange(-0.5 * static_cast<double>(p) + 0.5, 0.5, 0.5, TensorOptions(t).device(self.device()))
          .add(self.unsqueeze(-1));
  return args.lgamma().sum({-1}).add(static_cast<double>(p * (p - 1)) * std::log(M_PI) * 0.25);
}

Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  check_renorm(self, p, maxnorm);
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  EMBER_CHECK(d >= 0 && d < self.dim(), "Dimension out of range (expected to be in range of [",
              -self.dim(), ", ", self.dim() - 1, "], but got ", dim, ")");
  std::vector<int64_t> others;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) others.push_back(i);
  }
  const Tensor norms = self.norm(p, others, /*keepdim=*/true);
  const Tensor factor =
      where(norms.gt(maxnorm), maxnorm.toDouble() / (norms + 1e-7), Scalar(1.0)).to(self.dtype());
  return self * factor;
}

std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  EMBER_CHECK(is_floating_point(self.dtype()), "torch.frexp() only supports floating-point dtypes");
  // In double: a float's subnormals need scale factors beyond float's range.
  const Tensor x = self.to(kDouble);
  const Tensor normal = x.isfinite().logical_and(x.ne(0));
  const Tensor ax = where(normal, x.abs(), Scalar(1.0));
  Tensor e = ax.log2().floor() + 1;
  // Two half steps, so that 2^-e of a subnormal's exponent stays finite.
  const Tensor half = e.div(2, "trunc");
  Tensor m = x * pow(Scalar(2.0), -half) * pow(Scalar(2.0), half - e);
  // log2 rounds near powers of two: bring |m| into [0.5, 1).
  const Tensor big = m.abs().ge(1).logical_and(normal);
  m = where(big, m / 2, m);
  e = where(big, e + 1, e);
  const Tensor small = m.abs().lt(0.5).logical_and(normal);
  m = where(small, m * 2, m);
  e = where(small, e - 1, e);
  return {where(normal, m, x).to(self.dtype()), where(normal, e, Scalar(0.0)).to(kInt)};
}

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2,
              "cov(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  EMBER_CHECK(self.dtype() != kBool, "cov(): bool dtype is not supported for input");
  Tensor in = self.dim() < 2 ? self.reshape({1, -1}) : self;
  const int64_t observations = in.size(1);
  Tensor w;
  if (fweights) {
    check_cov_weight(*fweights, "fweights", true, observations);
    w = *fweights;
  }
  if (aweights) {
    check_cov_weight(*aweights, "aweights", false, observations);
    w = w.defined() ? w * *aweights : *aweights;
  }
  const Tensor w_sum =
      w.defined() ? w.sum() : full({}, observations, TensorOptions(kLong).device(in.device()));
  EMBER_CHECK(!w.defined() || w_sum.ne(0).item<bool>(),
              "cov(): weights sum to zero, can't be normalized");
  const Tensor avg = (w.defined() ? in * w : in).sum({1}) / w_sum;
  Tensor norm_factor = (w.defined() && aweights && correction != 0)
                           ? w_sum - (w * *aweights).sum() * correction / w_sum
                           : w_sum - correction;
  // Degrees of freedom <= 0: PyTorch warns and divides by 0.
  if (norm_factor.le(0).item<bool>()) norm_factor = zeros_like(norm_factor);
  in = in - avg.unsqueeze(1);
  const Tensor c = mm(in, (w.defined() ? in * w : in).t());
  return c.div(norm_factor).squeeze();
}

Tensor corrcoef(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2,
              "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  Tensor c = cov(self);
  if (c.dim() == 0) return c / c;
  const Tensor stddev = c.diag().sqrt();
  c = c / stddev.view({-1, 1});
  c = c / stddev.view({1, -1});
  return c.clip(-1, 1);
}

// --- methods ---------------------------------------------------------------------

int64_t Tensor::get_device() const { return is_cuda() ? device().index() : -1; }

bool Tensor::is_nonzero() const {
  EMBER_CHECK(numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return item<double>() != 0.0;
}

Tensor Tensor::T() const {
  std::vector<int64_t> dims(dim());
  for (int64_t i = 0; i < dim(); ++i) dims[i] = dim() - 1 - i;
  return permute(dims);
}

Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ::ember::where(condition, *this, other);
}
Tensor Tensor::hardshrink(const Scalar& lambd) const { return ::ember::hardshrink(*this, lambd); }
Tensor Tensor::prelu(const Tensor& weight) const { return ::ember::prelu(*this, weight); }

Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ::ember::put(*this, index, source, accumulate);
}
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) const {
  return put_impl(mut(), index, source, accumulate);
}
Tensor& Tensor::fill_diagonal_(const Scalar& fill_value, bool wrap) const {
  return fill_diagonal_impl(mut(), fill_value, wrap);
}
Tensor Tensor::mvlgamma(int64_t p) const { return ::ember::mvlgamma(*this, p); }
Tensor& Tensor::mvlgamma_(int64_t p) const {
  const Tensor r = ::ember::mvlgamma(*this, p);
  EMBER_CHECK(can_cast(r.dtype(), dtype()), "result type ", scalar_type_name(r.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(dtype()));
  return copy_(r);
}
Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ::ember::renorm(*this, p, dim, maxnorm);
}
Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return copy_(::ember::renorm(*this, p, dim, maxnorm));
}
std::tuple<Tensor, Tensor> Tensor::frexp() const { return ::ember::frexp(*this); }
Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fweights,
                   const std::optional<Tensor>& aweights) const {
  return ::ember::cov(*this, correction, fweights, aweights);
}
Tensor Tensor::corrcoef() const { return ::ember::corrcoef(*this); }

// Note [resize_]: the storage grows (keeping its bytes) when the new size
// needs more than it holds, as PyTorch's; it never shrinks. PyTorch grows
// the StorageImpl shared by every view in place; here the resized tensor
// takes a new storage, and other views keep the old one.
const Tensor& Tensor::resize_(IntArrayRef size, std::optional<MemoryFormat> memory_format) const {
  EMBER_CHECK(!requires_grad(), "cannot resize variables that require grad");
  for (int64_t s : size) {
    if (s < 0) {
      std::ostringstream sizes;
      sizes << size;
      EMBER_CHECK(false, "Trying to create tensor with negative dimension ", s, ": ", sizes.str());
    }
  }
  TensorImpl* impl = unsafeGetTensorImpl();
  const int64_t itemsize = ::ember::element_size(dtype());
  const size_t need =
      static_cast<size_t>((impl->storage_offset() + compute_numel(size)) * itemsize);
  const size_t have = impl->storage()->nbytes();
  if (need > have) {
    Storage grown = make_storage(need, device());
    if (have > 0) {
      const Tensor from(std::make_shared<TensorImpl>(impl->storage(), kByte,
                                                     IntArrayRef{static_cast<int64_t>(have)}));
      const Tensor to(
          std::make_shared<TensorImpl>(grown, kByte, IntArrayRef{static_cast<int64_t>(have)}));
      to.copy_(from);
    }
    impl->set_storage(std::move(grown));
  }
  const MemoryFormat f = memory_format.value_or(MemoryFormat::Contiguous);
  EMBER_CHECK(f != MemoryFormat::Preserve, "Unsupported memory format ", memory_format_name(f));
  impl->set_sizes_and_strides(size, strides_for_memory_format(size, f));
  return *this;
}
const Tensor& Tensor::resize_as_(const Tensor& other,
                                 std::optional<MemoryFormat> memory_format) const {
  return resize_(other.sizes(), memory_format);
}

// The argument of a real number: pi for x < 0, 0 for x >= 0 (and -0), NaN
// kept; integers and bool give the default dtype. One node (AngleBackward0,
// a zero gradient for real inputs). On the CPU one loop of selects (the
// composition of `where`s took 69 us for 65536 floats, libtorch 11 us);
// other devices run the composition.
Tensor angle(const Tensor& self) {
  const ScalarType dt = is_floating_point(self.dtype()) ? self.dtype() : get_default_dtype();
  return detail::record_out_op(
      "angle", Tensor(), {self},
      [&] {
        if (self.device().type() == kCPU) {
          IterConfig c;
          c.promote_integer_inputs_to_float = true;
          TensorIterator iter = TensorIterator::unary_op(Tensor(), self, c);
          EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "angle_cpu", [&] {
            using acc_t = opmath_t<scalar_t>;
            cpu_kernel(iter, [](scalar_t in) -> scalar_t {
              // Both comparisons unconditional (no branch to if-convert).
              const acc_t x = static_cast<acc_t>(in);
              const acc_t r = x < acc_t(0) ? static_cast<acc_t>(M_PI) : acc_t(0);
              return static_cast<scalar_t>(x != x ? x : r);
            });
          });
          return iter.output();
        }
        const Tensor x = self.to(dt);
        const Tensor pi_or_zero = where(x < 0, full_like(x, M_PI), zeros_like(x));
        return where(isnan(x), x, pi_or_zero);
      },
      detail::no_args);
}
Tensor Tensor::angle() const { return ::ember::angle(*this); }

}  // namespace ember
