// Matrix products (linalg.h). Everything reduces to one strided GEMM
// (gemm below) over raw pointers plus row/column strides, so views
// (transposes, slices, expanded batch dims) reach BLAS without copies when
// BLAS can express their layout.

#include "tensor/autocast.h"
#include "tensor/autograd_hook.h"
#include "tensor/fallback.h"
#include "tensor/linalg.h"
#include "tensor/unsafe_view.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/iterator.h"
#include "tensor/blas.h"
#include "tensor/gemm.h"

namespace ember {
namespace detail {
EMBER_DEFINE_KERNEL_TABLE(gemm_kernel, GemmKernelFn);
}  // namespace detail

namespace {

// A view of t's storage with other sizes and strides (no copy).
Tensor as_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides,
                                             t.storage_offset()));
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", scalar_type_name(a.dtype()),
              " but found ", scalar_type_name(b.dtype()));
}

// The operand layout BLAS understands: row-major with leading dimension ld
// (trans = false), or the transpose of one (trans = true).
struct BlasLayout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 1;
};

BlasLayout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  BlasLayout l;
  if (rows >= INT_MAX || cols >= INT_MAX) return l;
  if (cs == 1 || cols == 1) {
    int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (ld >= std::max<int64_t>(cols, 1) && ld < INT_MAX) return {true, false, ld};
  }
  if (rs == 1 || rows == 1) {
    int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (ld >= std::max<int64_t>(rows, 1) && ld < INT_MAX) return {true, true, ld};
  }
  return l;
}

// A strided matrix operand.
template <typename T>
struct Mat {
  const T* p;
  int64_t rs, cs;
};

// Copies a strided rows x cols matrix into a row-major buffer.
template <typename T>
Mat<T> pack(Mat<T> m, int64_t rows, int64_t cols, std::vector<T>& buf) {
  buf.resize(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) buf[i * cols + j] = m.p[i * m.rs + j * m.cs];
  }
  return {buf.data(), cols, 1};
}

// m's BLAS layout, after packing it into buf (and pointing m there) when
// BLAS cannot express its strides.
template <typename T>
BlasLayout blas_operand(Mat<T>& m, int64_t rows, int64_t cols, std::vector<T>& buf) {
  const BlasLayout l = blas_layout(rows, cols, m.rs, m.cs);
  if (l.ok) return l;
  m = pack(m, rows, cols, buf);
  return {true, false, cols};
}

void blas_gemv(bool ta, int m, int n, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy) {
  cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, incx, beta,
              y, incy);
}
void blas_gemv(bool ta, int m, int n, double alpha, const double* a, int lda, const double* x,
               int incx, double beta, double* y, int incy) {
  cblas_dgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, incx, beta,
              y, incy);
}

// C[M,N] (row-major, leading dim ldc) = beta * C + alpha * A[M,K] B[K,N].
// beta == 0 overwrites C without reading it.
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, Mat<T> A, Mat<T> B, T beta, T* C,
          int64_t ldc) {
  if (M == 0 || N == 0) return;
  if constexpr (std::is_floating_point<T>::value) {
    if (K == 0) {
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == T(0) ? T(0) : beta * C[i * ldc + j];
      }
      return;
    }
    std::vector<T> abuf, bbuf;
    const BlasLayout la = blas_operand(A, M, K, abuf), lb = blas_operand(B, K, N, bbuf);
    if (N == 1) {
      // Matrix-vector: gemv with B's column as the vector.
      int64_t incx = K == 1 ? 1 : B.rs;
      if (incx > 0 && incx < INT_MAX) {
        blas_gemv(la.trans, la.trans ? K : M, la.trans ? M : K, alpha, A.p, la.ld, B.p, incx, beta,
                  C, ldc);
        return;
      }
    }
    detail::blas_gemm(la.trans, lb.trans, M, N, K, alpha, A.p, la.ld, B.p, lb.ld, beta, C, ldc);
  } else {
    // Exact integer product (wrapping like PyTorch's integer arithmetic):
    // i-k-j order so the inner loop runs along rows of B and C.
    using U = std::make_unsigned_t<T>;
    for (int64_t i = 0; i < M; ++i) {
      T* c = C + i * ldc;
      for (int64_t j = 0; j < N; ++j) c[j] = beta == T(0) ? T(0) : static_cast<T>(U(beta) * U(c[j]));
      for (int64_t k = 0; k < K; ++k) {
        const U aik = U(alpha) * U(A.p[i * A.rs + k * A.cs]);
        const T* b = B.p + k * B.rs;
        if (B.cs == 1) {
          for (int64_t j = 0; j < N; ++j) c[j] = static_cast<T>(U(c[j]) + aik * U(b[j]));
        } else {
          for (int64_t j = 0; j < N; ++j) c[j] = static_cast<T>(U(c[j]) + aik * U(b[j * B.cs]));
        }
      }
    }
  }
}

using detail::BatchGeometry;

// Calls fn(bi, a_offset, b_offset) for each matrix of g's batch (in order;
// the output's matrices are contiguous, bi * M * N).
template <typename Fn>
void for_each_matrix(const BatchGeometry& g, Fn fn) {
  int64_t nbatch = 1;
  for (int64_t s : g.batch) nbatch *= s;
  const int nd = static_cast<int>(g.batch.size());
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    int64_t rest = bi, aoff = 0, boff = 0;
    for (int d = nd - 1; d >= 0; --d) {
      int64_t idx = rest % g.batch[d];
      rest /= g.batch[d];
      aoff += idx * g.a_bstrides[d];
      boff += idx * g.b_bstrides[d];
    }
    fn(bi, aoff, boff);
  }
}

template <typename scalar_t>
void batched_gemm_typed(const BatchGeometry& g, const Tensor& a, const Tensor& b, Tensor& out,
                        const Scalar& alpha, const Scalar& beta) {
  const scalar_t* ap = a.data_ptr<scalar_t>();
  const scalar_t* bp = b.data_ptr<scalar_t>();
  scalar_t* cp = out.data_ptr<scalar_t>();
  const scalar_t al = alpha.to<scalar_t>();
  const scalar_t be = beta.to<scalar_t>();
  for_each_matrix(g, [&](int64_t bi, int64_t aoff, int64_t boff) {
    gemm<scalar_t>(g.M, g.N, g.K, al, {ap + aoff, g.a_rs, g.a_cs}, {bp + boff, g.b_rs, g.b_cs}, be,
                   cp + bi * g.M * g.N, g.N);
  });
}

// Note [bfloat16 CPU GEMM]: bfloat16 operands as they are, each product
// accumulated in a float32 matrix (beta * C added by the GEMM) and rounded to
// bfloat16 once, as PyTorch's CPU bfloat16 GEMM. Operands BLAS cannot
// express are packed first, as gemm() does.
void batched_gemm_bf16(const BatchGeometry& g, const Tensor& a, const Tensor& b, Tensor& out,
                       const Scalar& alpha, const Scalar& beta) {
  const BFloat16* ap = a.data_ptr<BFloat16>();
  const BFloat16* bp = b.data_ptr<BFloat16>();
  BFloat16* cp = out.data_ptr<BFloat16>();
  const float al = alpha.to<float>(), be = beta.to<float>();
  const int64_t M = g.M, N = g.N, K = g.K;
  if (M == 0 || N == 0) return;
  std::vector<float> acc(M * N);
  std::vector<BFloat16> abuf, bbuf;
  for_each_matrix(g, [&](int64_t bi, int64_t aoff, int64_t boff) {
    BFloat16* c = cp + bi * M * N;
    // C is read only when beta asks for it (the GEMM scales it).
    if (be != 0) {
      for (int64_t i = 0; i < M * N; ++i) acc[i] = static_cast<float>(c[i]);
    }
    if (K > 0) {
      Mat<BFloat16> A{ap + aoff, g.a_rs, g.a_cs}, B{bp + boff, g.b_rs, g.b_cs};
      const BlasLayout la = blas_operand(A, M, K, abuf), lb = blas_operand(B, K, N, bbuf);
      detail::blas_gemm(la.trans, lb.trans, M, N, K, al, A.p, la.ld, B.p, lb.ld, be, acc.data(), N);
    } else {
      for (int64_t i = 0; i < M * N; ++i) acc[i] = be == 0 ? 0.f : be * acc[i];
    }
    for (int64_t i = 0; i < M * N; ++i) c[i] = BFloat16(acc[i]);
  });
}

// The CPU GEMM; bool is rejected like PyTorch ("addmm_impl_cpu_" not
// implemented for 'Bool').
void gemm_cpu(const BatchGeometry& g, const Tensor& a, const Tensor& b, Tensor& out,
              const Scalar& alpha, const Scalar& beta) {
  // Integers, float/double and bfloat16 where oneDNN takes it (else half
  // and bfloat16 were converted to float: computes_via_float).
  if (out.dtype() == kBFloat16) return batched_gemm_bf16(g, a, b, out, alpha, beta);
#define EMBER_GEMM_CASE [&] { batched_gemm_typed<scalar_t>(g, a, b, out, alpha, beta); }
  EMBER_PRIVATE_SWITCH(out.dtype(), "addmm_impl_cpu_",
                       EMBER_PRIVATE_INTEGRAL_CASES(EMBER_GEMM_CASE)
                           EMBER_PRIVATE_CASE(Float, float, EMBER_GEMM_CASE)
                               EMBER_PRIVATE_CASE(Double, double, EMBER_GEMM_CASE));
#undef EMBER_GEMM_CASE
}

// out = beta * out + alpha * a @ b for the geometry g, on the operands'
// device.
void run_gemm(const BatchGeometry& g, const Tensor& a, const Tensor& b, Tensor& out,
              const Scalar& alpha = 1, const Scalar& beta = 0) {
  detail::gemm_kernel(detail::common_device({a, b, out}))(g, a, b, out, alpha, beta);
}

// The 2-D geometry of a @ b for matrices a [M, K], b [K, N].
BatchGeometry matrix_geometry(const Tensor& a, const Tensor& b) {
  BatchGeometry g;
  g.M = a.sizes()[0];
  g.K = a.sizes()[1];
  g.N = b.sizes()[1];
  g.a_rs = a.strides()[0];
  g.a_cs = a.strides()[1];
  g.b_rs = b.strides()[0];
  g.b_cs = b.strides()[1];
  return g;
}

void check_mm_shapes(int64_t m1r, int64_t m1c, int64_t m2r, int64_t m2c) {
  EMBER_CHECK(m1c == m2r, "mat1 and mat2 shapes cannot be multiplied (", m1r, "x", m1c, " and ",
              m2r, "x", m2c, ")");
}

// Views t [..., K] as [M', K] when its leading dims merge into one
// strided dim; otherwise folds a contiguous copy.
Tensor fold_leading(const Tensor& t) {
  const int64_t nd = t.dim();
  const int64_t k = t.sizes()[nd - 1];
  int64_t rows = 1, rs = std::max<int64_t>(k, 1), expected = -1;
  for (int64_t d = nd - 2; d >= 0; --d) {
    const int64_t sz = t.sizes()[d];
    rows *= sz;
    if (sz == 1) continue;
    if (expected == -1) {
      rs = t.strides()[d];
    } else if (t.strides()[d] != expected) {
      return fold_leading(t.contiguous());
    }
    expected = t.strides()[d] * sz;
  }
  return as_view(t, {rows, k}, {rs, t.strides()[nd - 1]});
}

// float16 products on the CPU compute in float and round once, and so do
// bfloat16 ones unless oneDNN's bfloat16 matmul takes them (Note [bfloat16
// CPU GEMM]); cuBLAS takes both as they are (tensor cores, float
// accumulation).
bool computes_via_float(const Tensor& t) {
  if (!t.is_cpu()) return false;
  return t.dtype() == kHalf || (t.dtype() == kBFloat16 && !detail::use_bf16_gemm());
}

// PyTorch's early exits of a product with nothing to multiply: an empty
// result, or a sum over an empty inner dim (zeros), is returned before the
// dtype checks, in the dtype of the operand ATen allocates it like (mm:
// self; bmm: batch2; mv: vec). Undefined when there is work to do.
Tensor empty_product(IntArrayRef sizes, int64_t inner, const Tensor& like) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n != 0 && inner != 0) return Tensor();
  Tensor out = empty(sizes, like.options());
  if (n != 0) out.zero_();
  return out;
}

}  // namespace

namespace detail {
EMBER_REGISTER_KERNEL(gemm_kernel, kCPU, &gemm_cpu);
}  // namespace detail

static Tensor mm_nograd(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 2, "self must be a matrix");
  EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  check_mm_shapes(self.sizes()[0], self.sizes()[1], mat2.sizes()[0], mat2.sizes()[1]);
  if (Tensor z = empty_product({self.sizes()[0], mat2.sizes()[1]}, self.sizes()[1], self);
      z.defined()) {
    return z;
  }
  check_same_dtype(self, mat2);
  if (computes_via_float(self)) return mm(self.to(kFloat), mat2.to(kFloat)).to(self.dtype());
  Tensor out = empty({self.sizes()[0], mat2.sizes()[1]}, self.options());
  run_gemm(matrix_geometry(self, mat2), self, mat2, out);
  return out;
}

static Tensor addmm_nograd(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  EMBER_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes(mat1.sizes()[0], mat1.sizes()[1], mat2.sizes()[0], mat2.sizes()[1]);
  EMBER_CHECK(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
  EMBER_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
  const int64_t M = mat1.sizes()[0], N = mat2.sizes()[1];
  // self broadcasts to [M, N] (expand's rule and message).
  const int64_t target[2] = {M, N};
  EMBER_CHECK(self.dim() <= 2, "expand(", detail::sizes_str(self.sizes()),
              ", size=[", M, ", ", N, "]): the number of sizes provided (2) must be greater or "
              "equal to the number of dimensions in the tensor (", self.dim(), ")");
  for (int64_t i = 0; i < self.dim(); ++i) {
    int64_t d = 2 - self.dim() + i;
    int64_t s = self.sizes()[i];
    EMBER_CHECK(s == 1 || s == target[d], "The expanded size of the tensor (", target[d],
                ") must match the existing size (", s, ") at non-singleton dimension ", i,
                ".  Target sizes: [", M, ", ", N, "].  Tensor sizes: ", detail::sizes_str(self.sizes()));
  }
  if (computes_via_float(mat1)) {
    return addmm(self.to(kFloat), mat1.to(kFloat), mat2.to(kFloat), beta, alpha).to(mat1.dtype());
  }
  Tensor out = empty({M, N}, mat1.options());
  const bool beta_zero = beta.toDouble() == 0;
  if (beta_zero) {
    run_gemm(matrix_geometry(mat1, mat2), mat1, mat2, out, alpha, 0);
  } else {
    out.copy_(self);  // broadcasting copy
    run_gemm(matrix_geometry(mat1, mat2), mat1, mat2, out, alpha, beta);
  }
  return out;
}

static Tensor bmm_nograd(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t B = self.sizes()[0], K = self.sizes()[2];
  EMBER_CHECK(mat2.sizes()[0] == B && mat2.sizes()[1] == K,
              "Expected size for first two dimensions of batch2 tensor to be: [", B, ", ", K,
              "] but got: [", mat2.sizes()[0], ", ", mat2.sizes()[1], "].");
  if (Tensor z = empty_product({B, self.sizes()[1], mat2.sizes()[2]}, K, mat2); z.defined()) {
    return z;
  }
  check_same_dtype(self, mat2);
  if (computes_via_float(self)) return bmm(self.to(kFloat), mat2.to(kFloat)).to(self.dtype());
  BatchGeometry g;
  g.batch = {B};
  g.a_bstrides = {self.strides()[0]};
  g.b_bstrides = {mat2.strides()[0]};
  g.M = self.sizes()[1];
  g.K = K;
  g.N = mat2.sizes()[2];
  g.a_rs = self.strides()[1];
  g.a_cs = self.strides()[2];
  g.b_rs = mat2.strides()[1];
  g.b_cs = mat2.strides()[2];
  Tensor out = empty({B, g.M, g.N}, self.options());
  run_gemm(g, self, mat2, out);
  return out;
}

static Tensor mv_nograd(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got 1, ",
              self.dim(), ", ", vec.dim());
  EMBER_CHECK(self.sizes()[1] == vec.sizes()[0], "size mismatch, got ", self.sizes()[0], ", ",
              self.sizes()[0], "x", self.sizes()[1], ",", vec.sizes()[0]);
  if (Tensor z = empty_product({self.sizes()[0]}, self.sizes()[1], vec); z.defined()) return z;
  check_same_dtype(self, vec);
  if (computes_via_float(self)) return mv(self.to(kFloat), vec.to(kFloat)).to(self.dtype());
  Tensor col = as_view(vec, {vec.sizes()[0], 1}, {vec.strides()[0], 1});
  Tensor out = empty({self.sizes()[0]}, self.options());
  run_gemm(matrix_geometry(self, col), self, col, out);
  return out;
}

static Tensor dot_nograd(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(),
              "D and ", other.dim(), "D tensors");
  EMBER_CHECK(self.dtype() == other.dtype(),
              "dot : expected both vectors to have same dtype, but found ",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(other.dtype()));
  EMBER_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [",
              self.numel(), "] and src [", other.numel(),
              "] to have the same number of elements, but got ", self.numel(), " and ",
              other.numel(), " elements respectively");
  if (self.dtype() == kBool) detail::throw_not_implemented("dot", kBool);
  if (computes_via_float(self)) return dot(self.to(kFloat), other.to(kFloat)).to(self.dtype());
  // A [1, n] x [n, 1] product: BLAS gemv for float and double (the dot
  // product of a strided row with a strided column).
  Tensor row = as_view(self, {1, self.numel()}, {self.numel(), self.strides()[0]});
  Tensor col = as_view(other, {other.numel(), 1}, {other.strides()[0], 1});
  Tensor out = empty({}, self.options());
  run_gemm(matrix_geometry(row, col), row, col, out);
  return out;
}

// outer is a composite, as PyTorch's at::outer: self[:, None] * vec2, so that
// grad_fn shows PyTorch's MulBackward0 <- ReshapeAliasBackward0 (and type
// promotion and devices are mul's).
Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return self.reshape({self.size(0), 1}) * vec2;
}
// Recorded forms (Note [Op recording]).
Tensor mm(const Tensor& self, const Tensor& mat2) {
  EMBER_AUTOCAST(mm, ::ember::mm, self, mat2);
  return detail::record_out_op(
      "mm", Tensor(), {self, mat2}, [&] { return mm_nograd(self, mat2); }, detail::no_args);
}
Tensor bmm(const Tensor& self, const Tensor& mat2) {
  EMBER_AUTOCAST(bmm, ::ember::bmm, self, mat2);
  return detail::record_out_op(
      "bmm", Tensor(), {self, mat2}, [&] { return bmm_nograd(self, mat2); }, detail::no_args);
}
Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_AUTOCAST(mv, ::ember::mv, self, vec);
  return detail::record_out_op(
      "mv", Tensor(), {self, vec}, [&] { return mv_nograd(self, vec); }, detail::no_args);
}
Tensor dot(const Tensor& self, const Tensor& other) {
  EMBER_AUTOCAST(dot, ::ember::dot, self, other);
  return detail::record_out_op(
      "dot", Tensor(), {self, other}, [&] { return dot_nograd(self, other); }, detail::no_args);
}
namespace detail {
Tensor unsafe_view(const Tensor& t, IntArrayRef sizes) {
  return detail::record_out_op(
      "unsafe_view", Tensor(), {t},
      [&] {
        // t's view with `sizes` and the strides a view gets (a copy where
        // no view exists), as a tensor of its own.
        const Tensor v = t.reshape(sizes);
        if (v.impl()->storage() != t.impl()->storage()) return v;
        return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes,
                                                   v.strides(), v.storage_offset()));
      },
      detail::no_args);
}
}  // namespace detail

// PyTorch 1.13's should_fold: a batch of matrices times a matrix or vector
// can fold the batch into the rows and make one mm / mv, unless the batch is
// the slowest dim of a [B, M, K] whose last two dims are transposed (bmm
// handles that without a copy).
static bool should_fold(const Tensor& t1, int64_t dim2) {
  if (t1.dim() < 3 || (dim2 != 1 && dim2 != 2)) return false;
  if (t1.dim() == 3 && dim2 == 2 && t1.strides()[2] != 1 &&
      t1.strides()[0] == t1.sizes()[1] * t1.sizes()[2]) {
    return false;
  }
  return true;
}

// Note [matmul is a composite]: as PyTorch's at::matmul, a product of dot,
// mv, mm or bmm and views, each recorded as itself, so that grad_fn shows
// PyTorch's nodes (MmBackward0, UnsafeViewBackward0 <- BmmBackward0...) and
// error messages come from the product that fails, as PyTorch's do.
Tensor matmul(const Tensor& self, const Tensor& other) {
  EMBER_AUTOCAST(matmul, ::ember::matmul, self, other);
  const int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 >= 1 && d2 >= 1, "both arguments to matmul need to be at least 1D, but they are ",
              d1, "D and ", d2, "D");
  if (d1 == 1 && d2 == 1) return dot(self, other);
  if (d1 == 2 && d2 == 1) return mv(self, other);
  if (d1 == 1 && d2 == 2) return mm(self.unsqueeze(0), other).squeeze_(0);
  if (d1 == 2 && d2 == 2) return mm(self, other);
  if (should_fold(self, d2) || should_fold(other, d1)) {
    // The bigger operand's batch folded into rows; a bigger second operand
    // is transposed into first place.
    const bool transpose = d2 > d1;
    const Tensor t1 = transpose ? other.transpose(-1, -2) : self;
    const Tensor t2 = !transpose ? other : d1 == 2 ? self.t() : self;
    DimVector shape(t1.sizes().begin(), t1.sizes().end() - 1);
    int64_t rows = 1;
    for (int64_t s : shape) rows *= s;
    const Tensor folded = t1.reshape({rows, t1.sizes().back()});
    if (t2.dim() == 2) {
      shape.push_back(t2.sizes()[1]);
      Tensor out = detail::unsafe_view(folded.mm(t2), shape);
      return transpose ? out.transpose(-1, -2).contiguous() : out;
    }
    return detail::unsafe_view(folded.mv(t2), shape);
  }
  // Batched: both broadcast to one batch, flattened, one bmm.
  const int64_t n = d1 > 1 ? self.sizes()[d1 - 2] : 1;
  const int64_t m1 = self.sizes()[d1 - 1];
  const int64_t m2 = d2 > 1 ? other.sizes()[d2 - 2] : other.sizes()[0];
  const int64_t p = d2 > 1 ? other.sizes()[d2 - 1] : 1;
  IntArrayRef batch1 = self.sizes().subspan(0, std::max<int64_t>(d1 - 2, 0));
  IntArrayRef batch2 = other.sizes().subspan(0, std::max<int64_t>(d2 - 2, 0));
  const DimVector batch = infer_size(batch1, batch2);
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  DimVector size1 = batch, size2 = batch;
  size1.push_back(n);
  size1.push_back(m1);
  size2.push_back(m2);
  size2.push_back(p);
  Tensor a = self.expand(size1).reshape({nbatch, n, m1});
  Tensor b = other.expand(size2).reshape({nbatch, m2, p});
  DimVector shape = batch;
  if (d1 > 1) shape.push_back(n);
  if (d2 > 1) shape.push_back(p);
  return detail::unsafe_view(a.bmm(b), shape);
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  EMBER_AUTOCAST(addmm, ::ember::addmm, self, mat1, mat2, beta, alpha);
  return detail::record_out_op(
      "addmm", Tensor(), {self, mat1, mat2},
      [&] { return addmm_nograd(self, mat1, mat2, beta, alpha); },
      [&] { return OpArgs{beta, alpha}; });
}

Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& mat2) const { return ember::mm(*this, mat2); }
Tensor Tensor::bmm(const Tensor& mat2) const { return ember::bmm(*this, mat2); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor& Tensor::addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha) const {
  return assign_result_(ember::addmm(mut(), mat1, mat2, beta, alpha), "addmm_");
}

}  // namespace ember
