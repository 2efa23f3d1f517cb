// Composites of existing ops (shape_more.h); PyTorch 1.13's checks and
// messages come first in each, in PyTorch's order.

#include "tensor/shape_more.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iostream>
#include <limits>
#include <utility>

#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dtype.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/math.h"
#include "tensor/shape.h"
#include "tensor/sort_ops.h"

namespace ember {
namespace {

using detail::sizes_str;
using detail::typemeta_name;
using detail::wrap_dim;

template <typename F>
std::vector<Tensor> map_list(TensorList tensors, F f) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}

// The (n, 2) coordinates of tril (lower) or triu, in row-major order.
Tensor tri_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options,
                   bool lower, const char* name) {
  EMBER_CHECK(row >= 0, "row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, "col must be non-negative, got", col);
  const ScalarType dtype = options.dtype();
  EMBER_CHECK(dtype == kLong || dtype == kInt, "\"", name, "\" not implemented for '",
              scalar_type_name(dtype), "'");
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i) {
    // Columns j with j - i <= offset (lower) or >= offset (upper).
    const int64_t lo = lower ? 0 : std::max<int64_t>(0, std::min<int64_t>(col, i + offset));
    const int64_t hi = lower ? std::max<int64_t>(0, std::min<int64_t>(col, i + offset + 1)) : col;
    for (int64_t j = lo; j < hi; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  Tensor out = empty({2, n}, kLong);
  int64_t* p = out.data_ptr<int64_t>();
  std::copy(rows.begin(), rows.end(), p);
  std::copy(cols.begin(), cols.end(), p + n);
  return out.to(options.device(), dtype);
}

// y's shape without dim, in y's dtype and device (no samples integrate to 0).
Tensor zeros_like_except(const Tensor& y, int64_t dim) {
  std::vector<int64_t> sizes(y.sizes().begin(), y.sizes().end());
  sizes.erase(sizes.begin() + wrap_dim(dim, y.dim()));
  return zeros(sizes, TensorOptions(y.dtype()).device(y.device()));
}

// x as the differences along dim will need it (PyTorch's: a 1-D x lies
// along dim; a smaller x gets leading ones).
Tensor view_x(const Tensor& y, const Tensor& x, int64_t dim, const char* name) {
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(dim), name,
                ": There must be one `x` value for each sample point");
    std::vector<int64_t> sizes(y.dim(), 1);
    sizes[dim] = x.size(0);
    return x.view(sizes);
  }
  if (x.dim() < y.dim()) {
    std::vector<int64_t> sizes(y.dim() - x.dim(), 1);
    sizes.insert(sizes.end(), x.sizes().begin(), x.sizes().end());
    return x.view(sizes);
  }
  return x;
}

void check_isin_dtype(ScalarType t) {
  EMBER_CHECK(t != kBool, "Unsupported input type encountered for isin(): ", scalar_type_name(t));
}

}  // namespace

// --- at-least-n-d views ------------------------------------------------------

std::vector<Tensor> atleast_1d(TensorList tensors) {
  return map_list(tensors, [](const Tensor& t) { return atleast_1d(t); });
}
std::vector<Tensor> atleast_2d(TensorList tensors) {
  return map_list(tensors, [](const Tensor& t) { return atleast_2d(t); });
}
std::vector<Tensor> atleast_3d(TensorList tensors) {
  return map_list(tensors, [](const Tensor& t) { return atleast_3d(t); });
}

// --- joining -----------------------------------------------------------------

Tensor column_stack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  return hstack(map_list(tensors, [](const Tensor& t) {
    return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t;
  }));
}

Tensor row_stack(TensorList tensors) { return vstack(tensors); }

Tensor dstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return cat(atleast_3d(tensors), 2);
}

Tensor concatenate(TensorList tensors, int64_t dim) { return cat(tensors, dim); }

Tensor block_diag(TensorList tensors) {
  if (tensors.empty()) return empty({1, 0});
  ScalarType dtype = tensors[0].dtype();
  const Device device = tensors[0].device();
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2,
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i,
                " has ", t.dim(), " dimensions");
    EMBER_CHECK(t.device() == device,
                "torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                "device ",
                device.str(), " and input ", i, " is on device ", t.device().str());
    dtype = promote_types(dtype, t.dtype());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, t.numel()}));
    cols += blocks.back().size(1);
  }
  // Each block padded with zeros to the full width, then stacked: cat
  // carries the gradient back to every block.
  const TensorOptions options = TensorOptions(dtype).device(device);
  std::vector<Tensor> rows;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.size(0), c = b.size(1);
    rows.push_back(
        cat({zeros({r, left}, options), b.to(dtype), zeros({r, cols - left - c}, options)}, 1));
    left += c;
  }
  return cat(rows, 0);
}

// --- grids and combinations ----------------------------------------------------

std::vector<Tensor> meshgrid(TensorList tensors, const std::string& indexing) {
  const size_t n = tensors.size();
  EMBER_CHECK(n > 0, "meshgrid expects a non-empty TensorList");
  for (size_t i = 0; i + 1 < n; ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(),
                "meshgrid expects all tensors to have the same dtype");
    EMBER_CHECK(tensors[i].device() == tensors[i + 1].device(),
                "meshgrid expects all tensors to have the same device");
  }
  bool swap = false;
  if (indexing == "xy") {
    swap = n >= 2;
  } else {
    EMBER_CHECK(
        indexing == "ij",
        "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  }
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  if (swap) std::swap(in[0], in[1]);
  std::vector<int64_t> shape(n);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(
        in[i].dim() <= 1,
        "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", in[i].toString());
    shape[i] = in[i].numel();  // a 0-dim tensor counts as one element
  }
  std::vector<Tensor> grids;
  grids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> view_shape(n, 1);
    view_shape[i] = -1;
    grids.push_back(in[i].view(view_shape).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

std::vector<Tensor> meshgrid(TensorList tensors) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::cerr << "Warning: torch.meshgrid: in an upcoming release, it will be required to pass "
                 "the indexing argument. (function meshgrid)\n";
  }
  return meshgrid(tensors, "ij");
}

Tensor cartesian_prod(TensorList tensors) {
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", sizes_str(t.sizes()));
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", sizes_str(self.sizes()));
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty({0}, TensorOptions(self.dtype()).device(self.device()));
  // The index tuples in lexicographic order (what PyTorch's masked
  // meshgrid gives), then one index_select per position.
  const int64_t n = self.size(0);
  std::vector<std::vector<int64_t>> idx(r);
  std::vector<int64_t> cur(r, 0);
  auto fill = [&](auto&& self_fn, int64_t pos, int64_t start) -> void {
    if (pos == r) {
      for (int64_t k = 0; k < r; ++k) idx[k].push_back(cur[k]);
      return;
    }
    for (int64_t v = start; v < n; ++v) {
      cur[pos] = v;
      self_fn(self_fn, pos + 1, with_replacement ? v : v + 1);
    }
  };
  fill(fill, 0, 0);
  std::vector<Tensor> cols;
  cols.reserve(r);
  for (int64_t k = 0; k < r; ++k) {
    const int64_t m = static_cast<int64_t>(idx[k].size());
    Tensor index = empty({m}, kLong);
    std::copy(idx[k].begin(), idx[k].end(), index.data_ptr<int64_t>());
    cols.push_back(self.index_select(0, index.to(self.device())));
  }
  return stack(cols, 1);
}

// --- index and matrix builders -------------------------------------------------

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return tri_indices(row, col, offset, options, /*lower=*/true, "tril_indices");
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return tri_indices(row, col, offset, options, /*lower=*/false, "triu_indices");
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  int64_t n = x.size(0);
  if (N.has_value()) {
    n = *N;
    EMBER_CHECK(n >= 0, "N must be non-negative.");
  }
  const int64_t m = x.size(0);
  const ScalarType dtype = promote_types(x.dtype(), kLong);
  const TensorOptions options = TensorOptions(dtype).device(x.device());
  Tensor result;
  if (n == 0) {
    result = empty({m, 0}, options);
  } else {
    // Column 0 is ones; the rest are the running products of x.
    Tensor ones_col = ones({m, 1}, options);
    result = n == 1 ? ones_col
                    : cat({ones_col, x.to(dtype).unsqueeze(1).expand({m, n - 1}).cumprod(1)}, 1);
  }
  return increasing ? result : result.flip({1});
}

Tensor adjoint(const Tensor& self) { return self.adjoint(); }

Tensor Tensor::adjoint() const {
  if (dim() == 0) return *this;
  EMBER_CHECK(dim() >= 2,
              "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D "
              "tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::mH() const {
  if (dim() == 0) return *this;
  EMBER_CHECK(dim() >= 2,
              "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.");
  return transpose(-2, -1);
}

bool is_neg(const Tensor& self) { return self.is_neg(); }

namespace {

// Note [multi_dot order]: the product of matrices (already checked to chain)
// in 1.13's order: one mm for two, the cheaper of (AB)C and A(BC) for three
// (ties go left), the matrix-chain dynamic programme beyond (the first
// split of least cost). linalg_multi_dot and chain_matmul share it.
Tensor multiply_chain(const std::vector<Tensor>& m) {
  const size_t n = m.size();
  if (n == 2) return m[0].mm(m[1]);
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = m[i].size(0);
  p[n] = m[n - 1].size(1);
  if (n == 3) {
    const int64_t a = p[0], b = p[1], c = p[2], d = p[3];
    if (a * c * (b + d) > b * d * (a + c)) return m[0].mm(m[1].mm(m[2]));
    return m[0].mm(m[1]).mm(m[2]);
  }
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          split[i][j] = k;
        }
      }
    }
  }
  auto product = [&](auto&& self_fn, size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    const size_t k = split[i][j];
    return self_fn(self_fn, i, k).mm(self_fn(self_fn, k + 1, j));
  };
  return product(product, 0, n - 1);
}

}  // namespace

Tensor linalg_multi_dot(TensorList tensors) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  // A 1-D first operand is a row vector, a 1-D last one a column; their
  // dims leave the result.
  DimVector out_shape;
  std::vector<Tensor> m(tensors.begin(), tensors.end());
  if (tensors[0].dim() == 1) {
    m[0] = tensors[0].unsqueeze(0);
  } else {
    EMBER_CHECK(tensors[0].dim() == 2, "multi_dot(): the first tensor must be 1D or 2D but got ",
                tensors[0].dim(), "D");
    out_shape.push_back(tensors[0].size(0));
  }
  if (tensors[n - 1].dim() == 1) {
    m[n - 1] = tensors[n - 1].unsqueeze(-1);
  } else {
    EMBER_CHECK(tensors[n - 1].dim() == 2, "multi_dot(): the last tensor must be 1D or 2D but got ",
                tensors[n - 1].dim(), "D");
    out_shape.push_back(tensors[n - 1].size(1));
  }
  for (size_t i = 1; i + 1 < n; ++i) {
    EMBER_CHECK(tensors[i].dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ",
                tensors[i].dim(), "D");
  }
  for (size_t i = 1; i < n; ++i) {
    EMBER_CHECK(m[i].dtype() == m[0].dtype(),
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
                typemeta_name(m[0].dtype()), " and tensor ", i, " ", typemeta_name(m[i].dtype()));
    EMBER_CHECK(m[i].device() == m[0].device(),
                "multi_dot(): all tensors must be on the same device but tensor 0 is on ",
                m[0].device().str(), " and tensor ", i, " on ", m[i].device().str());
    EMBER_CHECK(m[i - 1].size(-1) == m[i].size(0), "multi_dot(): tensors ", i - 1, " and ", i,
                " with shapes ", sizes_str(tensors[i - 1].sizes()), " and ",
                sizes_str(tensors[i].sizes()), " cannot be multiplied");
  }
  return multiply_chain(m).view(out_shape);
}

Tensor chain_matmul(TensorList matrices) {
  for (const Tensor& t : matrices) {
    EMBER_CHECK(t.dim() == 2, "Tensor dimension is ", t.dim(), ", expected 2 instead.");
  }
  EMBER_CHECK(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  if (matrices.size() == 1) return matrices[0].clone();
  return linalg_multi_dot(matrices);
}

// --- integration ----------------------------------------------------------------

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = wrap_dim(dim, y.dim());
  if (y.size(dim) == 0) return zeros_like_except(y, dim);
  EMBER_CHECK(y.dtype() != kBool && x.dtype() != kBool,
              "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor xv = view_x(y, x, dim, "trapezoid");
  const Tensor dx = xv.slice(dim, 1, std::nullopt) - xv.slice(dim, 0, -1);
  return (dx * (y.slice(dim, 1, std::nullopt) + y.slice(dim, 0, -1))).sum({dim}) / 2.;
}

Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  if (y.size(dim) == 0) return zeros_like_except(y, dim);
  EMBER_CHECK(y.dtype() != kBool,
              "trapezoid: received a bool input for `y`, but bool is not supported");
  EMBER_CHECK(!dx.is_bool(), "trapezoid: Currently, we only support dx as a real number.");
  return (y.sum({dim}) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx.toDouble();
}

Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }

Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = wrap_dim(dim, y.dim());
  EMBER_CHECK(
      y.dtype() != kBool && x.dtype() != kBool,
      "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor xv = view_x(y, x, dim, "cumulative_trapezoid");
  const Tensor dx = xv.slice(dim, 1, std::nullopt) - xv.slice(dim, 0, -1);
  return (dx / 2. * (y.slice(dim, 0, -1) + y.slice(dim, 1, std::nullopt))).cumsum(dim);
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(y.dtype() != kBool,
              "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  EMBER_CHECK(!dx.is_bool(),
              "cumulative_trapezoid: Currently, we only support dx as a real number.");
  return ((y.slice(dim, 0, -1) + y.slice(dim, 1, std::nullopt)) * (dx.toDouble() / 2.)).cumsum(dim);
}

// --- membership --------------------------------------------------------------------

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool /*assume_unique*/,
            bool invert) {
  check_isin_dtype(elements.dtype());
  check_isin_dtype(test_elements.dtype());
  const Tensor test = test_elements.reshape({-1});
  const int64_t m = test.numel();
  // PyTorch's threshold: a few test elements are compared with each
  // element directly, many are sorted and searched.
  if (static_cast<double>(m) < 10.0 * std::pow(static_cast<double>(elements.numel()), 0.145)) {
    const Tensor e = elements.unsqueeze(-1);
    return invert ? e.ne(test).all(-1) : e.eq(test).any(-1);
  }
  const ScalarType common = promote_types(elements.dtype(), test_elements.dtype());
  const Tensor sorted = std::get<0>(test.to(common).sort());
  const Tensor e = elements.to(common);
  const Tensor pos = searchsorted(sorted, e.reshape({-1})).clamp_max(m - 1);
  const Tensor found = sorted.index_select(0, pos).reshape(elements.sizes()).eq(e);
  return invert ? found.logical_not() : found;
}

Tensor isin(const Tensor& elements, const Scalar& test_element, bool /*assume_unique*/,
            bool invert) {
  check_isin_dtype(elements.dtype());
  EMBER_CHECK(!test_element.is_bool(), "Unsupported input type encountered for isin(): Bool");
  return invert ? elements.ne(test_element) : elements.eq(test_element);
}

Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  EMBER_CHECK(!element.is_bool(), "Unsupported input type encountered for isin(): Bool");
  const ScalarType dtype = element.is_floating_point() ? kDouble : kLong;
  return isin(scalar_tensor(element, TensorOptions(dtype).device(test_elements.device())),
              test_elements, assume_unique, invert);
}

}  // namespace ember
