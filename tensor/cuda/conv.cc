// Convolution on CUDA (conv_kernels.h): cuDNN when it takes the case (Note
// [cuDNN convolution] in cudnn_conv.cc), else im2col into a device buffer laid out
// [c*kh*kw, samples, L] (L = oh*ow), so that one matrix product through
// ember's matmul (cuBLAS, blas.cc) covers a whole chunk of samples per group,
// with the chunk's samples side by side in its columns:
//   forward  out_g[:, n, :]  = W_g [cog, kg] @ col_g [kg, nb*L]    (+ bias)
//   gw_g                   += gy_g [cog, nb*L] @ col_g^T
//   gcol_g                  = W_g^T @ gy_g, then col2im (a gather, no atomics)
// where gy_g is gy's chunk transposed to [co, nb, L] once. Large products
// keep the GPU busy where a batched product per sample did not (at batch
// 512 the per-sample weight gradients and their sum over the batch cost more
// than the convolution). The batch is processed in chunks so that the column
// buffer stays under kColBytes. Ops called here run below autograd (the
// caller records the convolution itself).

#include <algorithm>

#include "tensor/conv_kernels.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cudnn_conv.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/empty.h"
#include "tensor/linalg.h"
#include "tensor/math.h"
#include "tensor/reduce.h"
#include "tensor/shape.h"

namespace ember {
namespace cuda {
namespace {

using ember::detail::ConvGeometry;

constexpr int64_t kColBytes = int64_t{256} << 20;

kernels::ConvWindow window_of(const ConvGeometry& g) {
  return {g.c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// Samples per chunk.
int64_t chunk_of(const ConvGeometry& g, int64_t element_size) {
  const int64_t per_sample = std::max<int64_t>(1, g.ckk() * g.l() * element_size);
  return std::max<int64_t>(1, std::min<int64_t>(g.n, kColBytes / per_sample));
}

// col [ckk, nb * L] of samples [n0, n0 + nb) of x.
Tensor im2col(const ConvGeometry& g, const Tensor& x, int64_t n0, int64_t nb) {
  Tensor col = empty({g.ckk(), nb * g.l()}, x.options());
  const char* base = static_cast<const char*>(x.data_ptr()) + n0 * g.c * g.h * g.w * x.element_size();
  detail::check_launch(kernels::launch_im2col(detail::kernel_dtype(x.dtype()), base, col.data_ptr(),
                                              nb, window_of(g)),
                       "im2col", x.dtype());
  return col;
}

// out [n, co, L] = the convolution of x with w, without bias, by im2col.
void conv_forward_im2col(const ConvGeometry& g, const Tensor& x, const Tensor& w,
                         const Tensor& out3) {
  const int64_t G = g.groups, cog = g.co / G, kg = g.ckk() / G, L = g.l();
  Tensor wm = w.view({G, cog, kg});
  const int64_t chunk = chunk_of(g, x.element_size());
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.n - n0);
    Tensor col = im2col(g, x, n0, nb);
    Tensor dst = out3.narrow(0, n0, nb);
    for (int64_t gr = 0; gr < G; ++gr) {
      Tensor y = wm.select(0, gr).mm(col.narrow(0, gr * kg, kg));  // [cog, nb * L]
      dst.narrow(1, gr * cog, cog).copy_(y.view({cog, nb, L}).transpose(0, 1));
    }
  }
}

// im2col's kernels take float and double: float16 and bfloat16 that cuDNN
// does not take are convolved in float and rounded once.
bool via_float(const Tensor& t) { return t.dtype() == kHalf || t.dtype() == kBFloat16; }
Tensor float_like(const Tensor& t) {
  return t.defined() ? empty(t.sizes(), t.options().dtype(kFloat)) : Tensor();
}
Tensor to_float(const Tensor& t) { return t.defined() ? t.to(kFloat) : t; }

void conv_forward_cuda(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                       Tensor& out) {
  detail::DeviceGuard guard(x.device().index());
  Tensor out3 = out.view({g.n, g.co, g.l()});
  if (!detail::cudnn_conv_forward(g, x, w, out)) {
    if (via_float(x)) {
      Tensor out_f = float_like(out);
      conv_forward_cuda(g, x.to(kFloat), w.to(kFloat), Tensor(), out_f);
      out.copy_(out_f);
    } else {
      conv_forward_im2col(g, x, w, out3);
    }
  }
  if (b.defined()) out3.add_(b.view({1, g.co, 1}));
}

// The gradients (of those defined) that cuDNN did not take, by im2col.
void conv_backward_im2col(const ConvGeometry& g, const Tensor& gy3, const Tensor& x,
                          const Tensor& w, Tensor gx, Tensor gw) {
  const int64_t G = g.groups, cog = g.co / G, kg = g.ckk() / G, L = g.l();
  Tensor wm = w.view({G, cog, kg});
  Tensor gwm;
  if (gw.defined()) {
    gw.zero_();
    gwm = gw.view({G, cog, kg});
  }
  const int64_t chunk = chunk_of(g, gy3.element_size());
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.n - n0);
    // [co, nb * L]: the chunk's samples side by side, as in col.
    Tensor gyt = gy3.narrow(0, n0, nb).transpose(0, 1).contiguous().view({g.co, nb * L});
    if (gw.defined()) {
      Tensor col = im2col(g, x, n0, nb);
      for (int64_t gr = 0; gr < G; ++gr) {
        gwm.select(0, gr).add_(
            gyt.narrow(0, gr * cog, cog).mm(col.narrow(0, gr * kg, kg).t()));  // [cog, kg]
      }
    }
    if (gx.defined()) {
      Tensor gcol;
      if (G == 1) {
        gcol = wm.select(0, 0).t().mm(gyt);  // [ckk, nb * L]
      } else {
        gcol = empty({g.ckk(), nb * L}, gy3.options());
        for (int64_t gr = 0; gr < G; ++gr) {
          gcol.narrow(0, gr * kg, kg).copy_(wm.select(0, gr).t().mm(gyt.narrow(0, gr * cog, cog)));
        }
      }
      char* dst = static_cast<char*>(gx.data_ptr()) + n0 * g.c * g.h * g.w * gx.element_size();
      detail::check_launch(kernels::launch_col2im(detail::kernel_dtype(gy3.dtype()), gcol.data_ptr(),
                                                  dst, nb, window_of(g)),
                           "col2im", gy3.dtype());
    }
  }
}

void conv_backward_cuda(const ConvGeometry& g, const Tensor& gy, const Tensor& x, const Tensor& w,
                        Tensor& gx, Tensor& gw, Tensor& gb) {
  detail::DeviceGuard guard(gy.device().index());
  Tensor gy3 = gy.view({g.n, g.co, g.l()});
  if (gb.defined()) gb.copy_(gy3.sum({0, 2}));
  // What cuDNN computes is done; im2col computes the rest.
  Tensor gx_left = gx, gw_left = gw;
  if (gx_left.defined() && detail::cudnn_conv_backward_input(g, gy, w, gx)) gx_left = Tensor();
  if (gw_left.defined() && detail::cudnn_conv_backward_weight(g, gy, x, gw)) gw_left = Tensor();
  if (!gx_left.defined() && !gw_left.defined()) return;
  if (via_float(gy)) {
    Tensor gx_f = float_like(gx_left), gw_f = float_like(gw_left), gb_none;
    conv_backward_cuda(g, gy.to(kFloat), to_float(x), w.to(kFloat), gx_f, gw_f, gb_none);
    if (gx_f.defined()) gx_left.copy_(gx_f);
    if (gw_f.defined()) gw_left.copy_(gw_f);
    return;
  }
  conv_backward_im2col(g, gy3, x, w, gx_left, gw_left);
}

}  // namespace
}  // namespace cuda

namespace detail {
EMBER_REGISTER_KERNEL(conv_forward_stub, kCUDA, &cuda::conv_forward_cuda);
EMBER_REGISTER_KERNEL(conv_backward_stub, kCUDA, &cuda::conv_backward_cuda);
}  // namespace detail

}  // namespace ember
