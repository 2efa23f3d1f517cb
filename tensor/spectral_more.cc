#include "tensor/spectral_more.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/iterator.h"
#include "tensor/linalg.h"
#include "tensor/linalg_spectral.h"
#include "tensor/parallel.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/shape_more.h"

namespace ember {
namespace {

// ---- einsum ----------------------------------------------------------------

constexpr int kLabels = 52;  // 'A'-'Z' then 'a'-'z': the implicit output's order
constexpr int kEllipsis = kLabels;

bool is_subscript(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int to_label(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char to_subscript(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26); }

std::string expected_found(const Tensor& a, const Tensor& b) {
  return absl::StrCat("expected scalar type ", scalar_type_name(a.scalar_type()), " but found ",
                      scalar_type_name(b.scalar_type()));
}

// sum(left * right) over sum_dims (which leave the result), the other dims
// kept (broadcast), as one bmm: dims are grouped into those both operands
// carry (the batch), those only one carries, and the summed ones.
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<int64_t>& sum_dims) {
  EMBER_CHECK(left.scalar_type() == right.scalar_type(), expected_found(left, right));
  const int64_t ndim = left.dim();
  std::vector<bool> summed(ndim, false);
  for (int64_t d : sum_dims) summed[d] = true;
  std::vector<int64_t> lro, lo, ro, sum;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    const bool sl = left.size(i) > 1, sr = right.size(i) > 1;
    if (summed[i]) {
      if (sl && sr) {
        sum_size *= left.size(i);
      } else if (sl) {
        left = left.sum({i}, true);
      } else if (sr) {
        right = right.sum({i}, true);
      }
      sum.push_back(i);
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size *= left.size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left.size(i);
    } else {
      ro.push_back(i);
      ro_size *= right.size(i);
    }
  }
  std::vector<int64_t> lperm, rperm, out_shape;
  for (const auto* g : {&lro, &lo, &sum, &ro}) lperm.insert(lperm.end(), g->begin(), g->end());
  for (const auto* g : {&lro, &sum, &ro, &lo}) rperm.insert(rperm.end(), g->begin(), g->end());
  for (int64_t d : lro) out_shape.push_back(left.size(d));
  for (int64_t d : lo) out_shape.push_back(left.size(d));
  for (size_t k = 0; k < sum.size(); ++k) out_shape.push_back(1);
  for (int64_t d : ro) out_shape.push_back(right.size(d));
  std::vector<int64_t> operm(ndim);
  for (int64_t k = 0; k < ndim; ++k) operm[lperm[k]] = k;
  Tensor l = left.permute(lperm).reshape({lro_size, lo_size, sum_size});
  Tensor r = right.permute(rperm).reshape({lro_size, sum_size, ro_size});
  Tensor result = l.bmm(r).reshape(out_shape).permute(operm);
  for (auto it = sum.rbegin(); it != sum.rend(); ++it) result = result.squeeze(*it);
  return result;
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList operands) {
  EMBER_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  const int64_t num_ops = static_cast<int64_t>(operands.size());
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);

  // The labels of each operand, kEllipsis for "...".
  std::vector<std::vector<int>> op_labels(num_ops);
  int64_t curr = 0;
  bool found_ell = false;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!found_ell, "einsum(): found '.' for operand ", curr,
                  " for which an ellipsis was already found");
      EMBER_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.',
                  "einsum(): found '.' for operand ", curr, " that is not part of any ellipsis");
      op_labels[curr].push_back(kEllipsis);
      found_ell = true;
    } else if (c == ',') {
      ++curr;
      EMBER_CHECK(curr < num_ops,
                  "einsum(): fewer operands were provided than specified in the equation");
      found_ell = false;
    } else {
      EMBER_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      op_labels[curr].push_back(to_label(c));
    }
  }
  EMBER_CHECK(curr == num_ops - 1,
              "einsum(): more operands were provided than specified in the equation");

  std::array<int64_t, kLabels> label_count{};
  int64_t ell_num_dim = 0;
  for (int64_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = operands[i].dim();
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    bool has_ell = false;
    for (int l : op_labels[i]) {
      if (l == kEllipsis) {
        --nlabels;
        has_ell = true;
        ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
      } else {
        ++label_count[l];
      }
    }
    EMBER_CHECK(has_ell ? nlabels <= ndims : nlabels == ndims,
                "einsum(): the number of subscripts in the equation (", nlabels, ") ",
                has_ell ? "is more than" : "does not match", " the number of dimensions (", ndims,
                ") for operand ", i, has_ell ? "" : " and no ellipsis was given");
  }

  // Where each label (and the ellipsis dims) goes: the output's dims first,
  // then the contracted ones.
  std::array<int64_t, kLabels> label_pos;
  label_pos.fill(-1);
  int64_t n_dims = 0, ell_index = 0;
  found_ell = false;
  if (arrow == std::string_view::npos) {
    n_dims = ell_num_dim;
    found_ell = true;
    for (int l = 0; l < kLabels; ++l) {
      if (label_count[l] == 1) label_pos[l] = n_dims++;
    }
  } else {
    const std::string_view rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        EMBER_CHECK(!found_ell,
                    "einsum(): found '.' for output but an ellipsis (...) was already found");
        EMBER_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.',
                    "einsum(): found '.' for output that is not part of any ellipsis (...)");
        ell_index = n_dims;
        n_dims += ell_num_dim;
        found_ell = true;
      } else {
        EMBER_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ",
                    lhs.size() + 2 + i, " in the equation string, subscripts must be in [a-zA-Z]");
        const int l = to_label(c);
        EMBER_CHECK(label_count[l] > 0 && label_pos[l] == -1, "einsum(): output subscript ",
                    std::string(1, c),
                    label_pos[l] > -1 ? " appears more than once in the output"
                                      : " does not appear in the equation for any input operand");
        label_pos[l] = n_dims++;
      }
    }
  }
  const int64_t out_size = n_dims;
  if (!found_ell) {  // the ellipsis dims are summed
    ell_index = n_dims;
    n_dims += ell_num_dim;
  }
  for (int l = 0; l < kLabels; ++l) {
    if (label_count[l] > 0 && label_pos[l] == -1) label_pos[l] = n_dims++;
  }

  // Each operand with its repeated labels' diagonals taken, permuted to
  // n_dims dims in that order (size 1 where it lacks a label).
  std::vector<Tensor> permuted;
  permuted.reserve(num_ops);
  for (int64_t i = 0; i < num_ops; ++i) {
    Tensor op = operands[i];
    std::vector<int64_t> perm(n_dims, -1);
    std::array<int64_t, kLabels> label_dim;
    label_dim.fill(-1);
    const int64_t n_ell =
        op.dim() - (static_cast<int64_t>(op_labels[i].size()) -
                    std::count(op_labels[i].begin(), op_labels[i].end(), kEllipsis));
    int64_t j = 0;
    for (int l : op_labels[i]) {
      if (l == kEllipsis) {
        for (int64_t k = 0; k < n_ell; ++k) perm[ell_index + ell_num_dim - n_ell + k] = j++;
      } else if (label_dim[l] != -1) {
        const int64_t d = label_dim[l];
        EMBER_CHECK(op.size(j) == op.size(d), "einsum(): subscript ",
                    std::string(1, to_subscript(l)), " is repeated for operand ", i,
                    " but the sizes don't match, ", op.size(j), " != ", op.size(d));
        op = op.diagonal(0, d, j).movedim(-1, d);
      } else {
        label_dim[l] = j;
        perm[label_pos[l]] = j++;
      }
    }
    std::vector<int64_t> present;
    for (int64_t p : perm) {
      if (p != -1) present.push_back(p);
    }
    op = op.permute(present);
    for (int64_t d = 0; d < n_dims; ++d) {
      if (perm[d] == -1) op = op.unsqueeze(d);
    }
    permuted.push_back(op);
  }

  // Sizes must broadcast; dim_last_op: the last operand where a dim is not 1.
  std::vector<int64_t> label_of(n_dims, -1);
  for (int l = 0; l < kLabels; ++l) {
    if (label_pos[l] != -1) label_of[label_pos[l]] = l;
  }
  std::vector<int64_t> dim_last_op(n_dims, 0), seen(n_dims, 1);
  bool has_zero = false;
  for (int64_t i = 0; i < num_ops; ++i) {
    for (int64_t d = 0; d < n_dims; ++d) {
      const int64_t s = permuted[i].size(d);
      if (s == 1) continue;
      if (seen[d] != 1 && seen[d] != s) {
        if (label_of[d] == -1) {
          throw Error(absl::StrCat("einsum(): dimension ", d - ell_index,
                                   " covered by ellipsis in operand ", i, "has size ", s,
                                   " which does not broadcast with previously seen ellipsis "
                                   "with size ",
                                   seen[d], " for the respective dimension"));
        }
        throw Error(absl::StrCat("einsum(): subscript ", std::string(1, to_subscript(label_of[d])),
                                 " has size ", s, " for operand ", i,
                                 " which does not broadcast with previously seen size ", seen[d]));
      }
      seen[d] = s;
      dim_last_op[d] = i;
      has_zero = has_zero || s == 0;
    }
  }
  if (has_zero) {
    std::vector<int64_t> shape(out_size, 0);
    for (int64_t d = 0; d < out_size; ++d) {
      for (const Tensor& op : permuted) shape[d] = std::max(shape[d], op.size(d));
    }
    return zeros(shape, TensorOptions(permuted[0].scalar_type()).device(permuted[0].device()));
  }

  // Contract left to right; a dim is summed after the last operand that has it.
  Tensor result = permuted[0];
  int64_t dim = out_size;
  for (int64_t k = out_size; k < n_dims; ++k, ++dim) {
    if (dim_last_op[k] == 0) {
      result = result.size(dim) == 1 ? result.squeeze(dim) : result.sum({dim});
      --dim;
    }
  }
  for (int64_t i = 1; i < num_ops; ++i) {
    Tensor op = permuted[i];
    std::vector<int64_t> sum_dims;
    dim = out_size;
    for (int64_t k = out_size; k < n_dims; ++k, ++dim) {
      if (dim_last_op[k] < i) {
        op = op.squeeze(dim);
        --dim;
      } else if (dim_last_op[k] == i) {
        if (result.size(dim) == 1) {
          op = op.sum({dim});
          result = result.squeeze(dim);
          --dim;
        } else {
          sum_dims.push_back(dim);
        }
      }
    }
    if (sum_dims.empty()) {
      result = result.mul(op);
    } else if (sum_dims.size() == static_cast<size_t>(result.dim())) {
      EMBER_CHECK(result.scalar_type() == op.scalar_type(), expected_found(result, op));
      result = result.flatten().dot(op.flatten());
    } else {
      result = sumproduct_pair(result, op, sum_dims);
    }
  }
  return result;
}

// ---- cdist, pdist ----------------------------------------------------------

namespace {

// ||a - b|| through ||a||^2 - 2 a.b + ||b||^2 (one matmul), as 1.13's
// _euclidean_dist (rounding differs from the direct form), recorded as one
// node (EuclideanDistBackward0): its gradient is 0 at zero distance, as
// _euclidean_dist_backward's. Batch dims broadcast as matmul's.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  detail::OpScope scope(x1, x2);
  Tensor x1_norm = x1.pow(2).sum({-1}, true);
  Tensor x2_norm = x2.pow(2).sum({-1}, true);
  Tensor x1_ = cat({x1 * -2, x1_norm, ones_like(x1_norm)}, -1);
  Tensor x2_ = cat({x2, ones_like(x2_norm), x2_norm}, -1);
  Tensor r = x1_.matmul(x2_.mT()).clamp_min(0).sqrt();
  if (scope.active()) scope.record("_euclidean_dist", {x1, x2}, {r});
  return r;
}

}  // namespace

namespace {

// Note [pdist on the CPU]: for p = 1 and 2 each pair's norm is computed
// where the composition wrote every difference out and then reduced them
// (an 8x gap to libtorch on 200 rows of 64): the difference in the dtype,
// |d| or d * d summed in double as ember's norm kernel sums a row
// (reduce_kernels.cc: sequentially under 32 terms, else in 16 lanes added
// pairwise, then the rest), the square root in double, rounded to the
// dtype. Pairs in (i, j) order, in parallel.
// Four doubles of a lane block (GCC's vector extension: this library
// builds with -O2, whose vectorizer kept the lanes in memory).
typedef double Double4 __attribute__((vector_size(32)));
typedef float Float4 __attribute__((vector_size(16)));

// The differences a[i..i+4) - b[i..i+4) in T, as doubles.
template <typename T>
Double4 diff4(const T* a, const T* b) {
  if constexpr (std::is_same_v<T, float>) {
    Float4 x, y;
    std::memcpy(&x, a, sizeof(x));
    std::memcpy(&y, b, sizeof(y));
    const Float4 d = x - y;
    return Double4{d[0], d[1], d[2], d[3]};  // one vcvtps2pd (the builtin made two)
  } else {
    Double4 x, y;
    std::memcpy(&x, a, sizeof(x));
    std::memcpy(&y, b, sizeof(y));
    return x - y;
  }
}

template <typename T, bool kTwo>
double pdist_pair(const T* a, const T* b, int64_t m) {
  auto term = [a, b](int64_t i) {
    const double v = static_cast<double>(a[i] - b[i]);
    return kTwo ? v * v : std::abs(v);
  };
  if (m < 32) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += term(i);
    return s;
  }
  // Lane l of the 16 is l % 4 of l0, l1, l2 or l3 (l / 4); named, so that
  // they stay in registers.
  auto f = [](Double4 v) { return kTwo ? v * v : (v < 0 ? -v : v); };
  Double4 l0 = {}, l1 = {}, l2 = {}, l3 = {};
  int64_t i = 0;
  for (; i + 16 <= m; i += 16) {
    l0 += f(diff4(a + i, b + i));
    l1 += f(diff4(a + i + 4, b + i + 4));
    l2 += f(diff4(a + i + 8, b + i + 8));
    l3 += f(diff4(a + i + 12, b + i + 12));
  }
  // Pairwise: l += l + 8, then l + 4, l + 2, l + 1.
  l0 += l2;
  l1 += l3;
  l0 += l1;
  double r = (l0[0] + l0[2]) + (l0[1] + l0[3]);
  for (; i < m; ++i) r += term(i);
  return 0.0 + r;
}

template <typename T, bool kTwo>
void pdist_cpu(const Tensor& x, Tensor& out) {
  const int64_t n = x.size(0), m = x.size(1);
  const T* xp = x.data_ptr<T>();
  T* op = out.data_ptr<T>();
  // Row i's pairs (i, j > i) start at k = i * (2n - i - 1) / 2.
  parallel_for(0, n - 1, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * m)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t i = lo; i < hi; ++i) {
                   T* o = op + i * (2 * n - i - 1) / 2;
                   for (int64_t j = i + 1; j < n; ++j) {
                     const double s = pdist_pair<T, kTwo>(xp + i * m, xp + j * m, m);
                     *o++ = static_cast<T>(kTwo ? std::sqrt(s) : s);
                   }
                 }
               });
}

}  // namespace

// Note [cdist and pdist nodes]: as 1.13's at::cdist, the matmul form is
// _euclidean_dist on the inputs (batch dims expanded and flattened when
// there are several) followed by a view to the result's shape; every other
// case (empty inputs included) is one _cdist_forward (CdistBackward0),
// whose gradient is 1.13's _cdist_backward for each p (0: zeros). pdist is
// _pdist_forward (PdistBackward0) on the contiguous input, a node even for
// fewer than two rows.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  const int64_t c = x1.size(-1);
  EMBER_CHECK(c == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", c,
              " X2: ", x2.size(-1));
  EMBER_CHECK(
      is_floating_point(x1.scalar_type()),
      "cdist only supports floating-point dtypes, X1 got: ", scalar_type_name(x1.scalar_type()));
  EMBER_CHECK(
      is_floating_point(x2.scalar_type()),
      "cdist only supports floating-point dtypes, X2 got: ", scalar_type_name(x2.scalar_type()));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  EMBER_CHECK(x1.scalar_type() == x2.scalar_type(), expected_found(x1, x2));
  EMBER_CHECK(x1.device() == x2.device(), "Expected all tensors to be on the same device");
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  DimVector batch =
      infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
  std::vector<int64_t> s1(batch.begin(), batch.end()), s2 = s1, out = s1;
  int64_t batch_numel = 1;
  for (int64_t b : batch) batch_numel *= b;
  s1.insert(s1.end(), {r1, c});
  s2.insert(s2.end(), {r2, c});
  out.insert(out.end(), {r1, r2});
  if (x1.numel() > 0 && x2.numel() > 0 && p == 2 &&
      (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) {
    if (batch_numel == 1) return euclidean_dist(x1, x2).view(out);
    return euclidean_dist(x1.expand(s1).contiguous().view({batch_numel, r1, c}),
                          x2.expand(s2).contiguous().view({batch_numel, r2, c}))
        .view(out);
  }
  detail::OpScope scope(x1, x2);
  const TensorOptions options = TensorOptions(x1.scalar_type()).device(x1.device());
  Tensor r;
  if (r1 == 0 || r2 == 0 || batch_numel == 0) {
    r = empty(out, options);
  } else if (c == 0) {
    r = zeros(out, options);
  } else {
    r = (x1.expand(s1).unsqueeze(-2) - x2.expand(s2).unsqueeze(-3)).norm(p, {-1});
  }
  if (scope.active()) scope.record("_cdist_forward", {x1, x2}, {r}, {Scalar(p)});
  return r;
}

Tensor pdist(const Tensor& self, double p) {
  EMBER_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  EMBER_CHECK(is_floating_point(self.scalar_type()), "pdist only supports floating-point dtypes");
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  const Tensor x = self.contiguous();
  detail::OpScope scope(x);
  const int64_t n = x.size(0);
  Tensor r;
  if (n < 2) {
    r = empty({0}, TensorOptions(x.scalar_type()).device(x.device()));
  } else if (x.is_cpu() && (x.dtype() == kFloat || x.dtype() == kDouble) && (p == 1 || p == 2)) {
    r = empty({n * (n - 1) / 2}, x.options());
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "pdist_cpu", [&] {
      if (p == 2) {
        pdist_cpu<scalar_t, true>(x, r);
      } else {
        pdist_cpu<scalar_t, false>(x, r);
      }
    });
  } else if (x.is_cpu() && (x.dtype() == kFloat || x.dtype() == kDouble)) {
    // The rows' differences in one pass (the same subtractions as the
    // composition below, without its index tensors and gathers).
    const int64_t m = x.size(1);
    Tensor diff = empty({n * (n - 1) / 2, m}, x.options());
    EMBER_DISPATCH_FLOAT_DOUBLE(x.dtype(), "pdist_cpu", [&] {
      const scalar_t* xp = x.data_ptr<scalar_t>();
      scalar_t* d = diff.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j, d += m) {
          const scalar_t* a = xp + i * m;
          const scalar_t* b = xp + j * m;
          for (int64_t k = 0; k < m; ++k) d[k] = a[k] - b[k];
        }
      }
    });
    r = diff.norm(p, {1});
  } else {
    const Tensor idx = triu_indices(n, n, 1, TensorOptions(kLong).device(x.device()));
    r = (x.index_select(0, idx.select(0, 0)) - x.index_select(0, idx.select(0, 1))).norm(p, {1});
  }
  if (scope.active()) scope.record("_pdist_forward", {x}, {r}, {Scalar(p)});
  return r;
}

// ---- windows ---------------------------------------------------------------

namespace {

// PyTorch's window_function_checks. Returns the options to build with
// (requires_grad is set on the result instead).
TensorOptions window_checks(const char* name, const TensorOptions& options, int64_t window_length) {
  EMBER_CHECK(window_length >= 0, name,
              " requires non-negative window_length, got window_length=", window_length);
  if (!is_floating_point(options.dtype())) {
    std::ostringstream os;
    os << options;
    throw Error(absl::StrCat(name, " expects floating point dtypes, got: ", os.str()));
  }
  return options.requires_grad(false);
}

Tensor finish(Tensor w, const TensorOptions& options) {
  if (options.requires_grad()) w.requires_grad_(true);
  return w;
}

Tensor hamming_impl(const char* name, int64_t n, bool periodic, double alpha, double beta,
                    const TensorOptions& options) {
  const TensorOptions o = window_checks(name, options, n);
  if (n == 0) return finish(empty({0}, o), options);
  if (n == 1) return finish(ones({1}, o), options);
  if (periodic) ++n;
  Tensor w = (arange(n, o) * (M_PI * 2 / static_cast<double>(n - 1))).cos() * (-beta) + alpha;
  return finish(periodic ? w.narrow(0, 0, n - 1) : w, options);
}

}  // namespace

Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return hamming_impl("hann_window", window_length, periodic, 0.5, 0.5, options);
}

Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return hamming_window(window_length, periodic, 0.54, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha,
                      const TensorOptions& options) {
  return hamming_window(window_length, periodic, alpha, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options) {
  return hamming_impl("hamming_window", window_length, periodic, alpha, beta, options);
}

Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}
Tensor blackman_window(int64_t n, bool periodic, const TensorOptions& options) {
  const TensorOptions o = window_checks("blackman_window", options, n);
  if (n == 0) return finish(empty({0}, o), options);
  if (n == 1) return finish(ones({1}, o), options);
  if (periodic) ++n;
  const Tensor x = arange(n, o) * (M_PI / static_cast<double>(n - 1));
  Tensor w = (x * 4).cos() * 0.08 - (x * 2).cos() * 0.5 + 0.42;
  return finish(periodic ? w.narrow(0, 0, n - 1) : w, options);
}

Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}
Tensor bartlett_window(int64_t n, bool periodic, const TensorOptions& options) {
  const TensorOptions o = window_checks("bartlett_window", options, n);
  if (n == 0) return finish(empty({0}, o), options);
  if (n == 1) return finish(ones({1}, o), options);
  if (periodic) ++n;
  const Tensor x = arange(n, o) * (2.0 / static_cast<double>(n - 1));
  const int64_t half = ((n - 1) >> 1) + 1;  // the rising half, then 2 - x
  Tensor w = cat({x.narrow(0, 0, half), x.narrow(0, half, n - half) * -1 + 2});
  return finish(periodic ? w.narrow(0, 0, n - 1) : w, options);
}

Tensor kaiser_window(int64_t window_length, const TensorOptions& options) {
  return kaiser_window(window_length, true, 12.0, options);
}
Tensor kaiser_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return kaiser_window(window_length, periodic, 12.0, options);
}
Tensor kaiser_window(int64_t n, bool periodic, double beta, const TensorOptions& options) {
  const TensorOptions o = window_checks("kaiser_window", options, n);
  if (n == 0) return finish(empty({0}, o), options);
  if (n == 1) return finish(ones({1}, o), options);
  if (periodic) ++n;
  const double alpha = static_cast<double>(n - 1) / 2.0;
  const Tensor r = (arange(n, o) - alpha) / alpha;
  Tensor w = ((r * r * -1 + 1).sqrt() * beta).i0() / full({}, beta, o).i0();
  return finish(periodic ? w.narrow(0, 0, n - 1) : w, options);
}

// ---- nuclear_norm ----------------------------------------------------------

Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  EMBER_CHECK(self.dim() == 2, "Expected a tensor with 2 dimensions, but got a tensor with ",
              self.dim(), " dimension", self.dim() == 1 ? "" : "s", " instead.");
  return nuclear_norm(self, {-2, -1}, keepdim);
}

Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(dim.size() == 2, "nuclear norm requires a 'dim' argument of size 2");
  EMBER_CHECK(self.dim() >= 2,
              "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  const int64_t d0 = detail::wrap_dim(dim[0], self.dim());
  const int64_t d1 = detail::wrap_dim(dim[1], self.dim());
  EMBER_CHECK(d0 != d1, "duplicate or invalid dimensions");
  Tensor r = linalg_svdvals(self.movedim(IntArrayRef({d0, d1}), IntArrayRef({-2, -1}))).sum({-1});
  if (keepdim) {
    r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
  }
  return r;
}

}  // namespace ember
