// grid_sampler (2-D, 3-D) and affine_grid_generator (tensor/grid_sampler.h).
#include "tensor/grid_sampler.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/grid_sampler_kernels.h"
#include "tensor/linalg.h"
#include "tensor/parallel.h"
#include "tensor/record_function.h"

namespace ember {
namespace detail {

EMBER_DEFINE_KERNEL_TABLE(grid_sampler_forward_stub, GridSamplerForwardFn);
EMBER_DEFINE_KERNEL_TABLE(grid_sampler_backward_stub, GridSamplerBackwardFn);

}  // namespace detail

namespace {

using detail::grid_sampler_backward_stub;
using detail::grid_sampler_forward_stub;
using grid_sample::Geometry;

// --- the CPU kernels: grid_sampler_math.h's points, in parallel ------------

template <typename T>
void forward_cpu_impl(const Geometry& g, const Tensor& input, const Tensor& grid, Tensor& out) {
  const T* in = input.data_ptr<T>();
  const T* gr = grid.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const int64_t P = g.points();
  parallel_for(0, g.N * P, std::max<int64_t>(1, 4096 / std::max<int64_t>(g.C, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t i = b; i < e; ++i) {
                   const int64_t n = i / P, p = i % P;
                   const int64_t w = p % g.oW, h = (p / g.oW) % g.oH, d = p / (g.oW * g.oH);
                   const T* q = gr + n * g.gsN + d * g.gsD + h * g.gsH + w * g.gsW;
                   T* dst = o + n * g.C * P + p;
                   if (g.three_d) {
                     grid_sample::sample_3d<T>(g, in + n * g.isN, q[0], q[g.gsK], q[2 * g.gsK], dst,
                                               P);
                   } else {
                     grid_sample::sample_2d<T>(g, in + n * g.isN, q[0], q[g.gsK], dst, P);
                   }
                 }
               });
}

void grid_sampler_forward_cpu(const Geometry& g, const Tensor& input, const Tensor& grid,
                              Tensor& out) {
  EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "grid_sampler_cpu",
                              [&] { forward_cpu_impl<scalar_t>(g, input, grid, out); });
}

template <typename T>
void backward_cpu_impl(const Geometry& g, const Tensor& grad_output, const Tensor& input,
                       const Tensor& grid, Tensor& grad_input, Tensor& grad_grid) {
  const T* in = input.data_ptr<T>();
  const T* gr = grid.data_ptr<T>();
  const T* go = grad_output.data_ptr<T>();
  T* gi = grad_input.defined() ? grad_input.data_ptr<T>() : nullptr;
  T* gg = grad_grid.data_ptr<T>();
  const int64_t P = g.points(), K = g.three_d ? 3 : 2;
  const int64_t in_numel = g.C * g.D * g.H * g.W;
  auto add = [](T* p, T v) { *p += v; };
  // One batch element per task: its points scatter into its own grad_input.
  parallel_for(0, g.N, 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      T* gin = gi != nullptr ? gi + n * in_numel : nullptr;
      for (int64_t p = 0; p < P; ++p) {
        const int64_t w = p % g.oW, h = (p / g.oW) % g.oH, d = p / (g.oW * g.oH);
        const T* q = gr + n * g.gsN + d * g.gsD + h * g.gsH + w * g.gsW;
        const T* gop = go + n * g.C * P + p;
        T* ggp = gg + (n * P + p) * K;
        if (g.three_d) {
          grid_sample::sample_3d_backward<T>(g, in + n * g.isN, gop, P, gin, q[0], q[g.gsK],
                                             q[2 * g.gsK], ggp, add);
        } else {
          grid_sample::sample_2d_backward<T>(g, in + n * g.isN, gop, P, gin, q[0], q[g.gsK], ggp,
                                             add);
        }
      }
    }
  });
}

void grid_sampler_backward_cpu(const Geometry& g, const Tensor& grad_output, const Tensor& input,
                               const Tensor& grid, Tensor& grad_input, Tensor& grad_grid) {
  EMBER_DISPATCH_FLOAT_DOUBLE(input.dtype(), "grid_sampler_backward_cpu", [&] {
    backward_cpu_impl<scalar_t>(g, grad_output, input, grid, grad_input, grad_grid);
  });
}

EMBER_REGISTER_KERNEL(grid_sampler_forward_stub, kCPU, &grid_sampler_forward_cpu);
EMBER_REGISTER_KERNEL(grid_sampler_backward_stub, kCPU, &grid_sampler_backward_cpu);

// --- checks (1.13's check_grid_sampler_common/_2d/_3d) ----------------------

void check_common(const Tensor& input, const Tensor& grid) {
  EMBER_CHECK(input.defined(), "grid_sampler(): expected input to not be undefined");
  EMBER_CHECK(grid.defined(), "grid_sampler(): expected grid to not be undefined");
  EMBER_CHECK(input.device() == grid.device(),
              "grid_sampler(): expected input and grid to be on same device, but input is on ",
              input.device().str(), " and grid is on ", grid.device().str());
  EMBER_CHECK(input.dim() >= 1 && grid.dim() >= 1 && input.size(0) == grid.size(0),
              "grid_sampler(): expected grid and input to have same batch size, but got input "
              "with sizes ",
              detail::sizes_str(input.sizes()), " and grid with sizes ",
              detail::sizes_str(grid.sizes()));
  EMBER_CHECK(grid.size(-1) == input.dim() - 2, "grid_sampler(): expected grid to have size ",
              input.dim() - 2, " in last dimension, but got grid with sizes ",
              detail::sizes_str(grid.sizes()));
  for (int64_t i = 2; i < input.dim(); ++i) {
    EMBER_CHECK(input.size(i) > 0,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                "has sizes ",
                detail::sizes_str(input.sizes()), " with dimension ", i, " being empty");
  }
}

void check_dims(const Tensor& input, const Tensor& grid, int64_t d, int64_t interpolation_mode,
                int64_t padding_mode) {
  EMBER_CHECK(input.dim() == d && input.dim() == grid.dim(), "grid_sampler(): expected ", d,
              "D input and grid with same number of dimensions, but got input with sizes ",
              detail::sizes_str(input.sizes()), " and grid with sizes ",
              detail::sizes_str(grid.sizes()));
  EMBER_CHECK(!(d == 5 && interpolation_mode == grid_sample::kBicubic),
              "grid_sampler(): bicubic interpolation only supports 4D input");
  // 1.13 passes other values through unchecked (undefined results).
  EMBER_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2,
              "grid_sampler(): expected interpolation_mode to be 0 (bilinear), 1 (nearest) or 2 "
              "(bicubic), but got: ",
              interpolation_mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2,
              "grid_sampler(): expected padding_mode to be 0 (zeros), 1 (border) or 2 "
              "(reflection), but got: ",
              padding_mode);
}

// 1.13's dtype errors: 2-D's TORCH_CHECK, 3-D's AT_DISPATCH, then the
// accessor's check that grid has input's dtype. CUDA also takes half, as
// 1.13's CUDA kernels do.
void check_dtypes(const Tensor& input, const Tensor& grid, bool three_d) {
  const ScalarType t = input.dtype();
  const bool cuda = input.device().is_cuda();
  if (t != kFloat && t != kDouble && !(cuda && t == kHalf)) {
    if (three_d) {
      throw Error(absl::StrCat("\"grid_sampler3d_", cuda ? "cuda" : "cpu",
                               "\" not implemented for '", scalar_type_name(t), "'"));
    }
    throw Error(absl::StrCat("grid_sampler_2d_", cuda ? "cuda" : "cpu", " not implemented for ",
                             scalar_type_name(t)));
  }
  EMBER_CHECK(grid.dtype() == t, "expected scalar type ", scalar_type_name(t), " but found ",
              scalar_type_name(grid.dtype()));
}

// Half (CUDA's only) computes in float: the operands converted, the
// results rounded back; 1.13's CUDA kernels compute each step in half's
// float opmath, so results agree to half's rounding.
Tensor in_compute_type(const Tensor& t) { return t.dtype() == kHalf ? t.to(kFloat) : t; }

Geometry make_geometry(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners, bool three_d) {
  Geometry g;
  g.three_d = three_d;
  g.interp = interpolation_mode;
  g.padding = padding_mode;
  g.align_corners = align_corners;
  g.N = input.size(0);
  g.C = input.size(1);
  g.isN = input.stride(0);
  g.isC = input.stride(1);
  g.gsN = grid.stride(0);
  if (three_d) {
    g.D = input.size(2);
    g.H = input.size(3);
    g.W = input.size(4);
    g.isD = input.stride(2);
    g.isH = input.stride(3);
    g.isW = input.stride(4);
    g.oD = grid.size(1);
    g.oH = grid.size(2);
    g.oW = grid.size(3);
    g.gsD = grid.stride(1);
    g.gsH = grid.stride(2);
    g.gsW = grid.stride(3);
    g.gsK = grid.stride(4);
  } else {
    g.D = 1;
    g.H = input.size(2);
    g.W = input.size(3);
    g.isD = 0;
    g.isH = input.stride(2);
    g.isW = input.stride(3);
    g.oD = 1;
    g.oH = grid.size(1);
    g.oW = grid.size(2);
    g.gsD = 0;
    g.gsH = grid.stride(1);
    g.gsW = grid.stride(2);
    g.gsK = grid.stride(3);
  }
  return g;
}

DimVector output_sizes(const Geometry& g) {
  if (g.three_d) return {g.N, g.C, g.oD, g.oH, g.oW};
  return {g.N, g.C, g.oH, g.oW};
}

Tensor sampler_forward(const char* name, const Tensor& input, const Tensor& grid,
                       int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                       bool three_d) {
  check_common(input, grid);
  check_dims(input, grid, three_d ? 5 : 4, interpolation_mode, padding_mode);
  check_dtypes(input, grid, three_d);
  profiler::RecordFunction prof_range(name, profiler::RangeKind::kOp, input);
  detail::OpScope scope(input, grid);
  const Tensor x = in_compute_type(input), gr = in_compute_type(grid);
  const Geometry g = make_geometry(x, gr, interpolation_mode, padding_mode, align_corners, three_d);
  Tensor out = empty(output_sizes(g), x.options());
  if (out.numel() > 0) detail::grid_sampler_forward_stub(input.device())(g, x, gr, out);
  out = out.to(input.dtype());
  if (scope.active()) {
    scope.record(name, {input, grid}, {out},
                 {Scalar(interpolation_mode), Scalar(padding_mode), Scalar(align_corners)});
  }
  return out;
}

std::tuple<Tensor, Tensor> sampler_backward(const char* name, const Tensor& grad_output,
                                            const Tensor& input, const Tensor& grid,
                                            int64_t interpolation_mode, int64_t padding_mode,
                                            bool align_corners, std::array<bool, 2> output_mask,
                                            bool three_d) {
  check_common(input, grid);
  check_dims(input, grid, three_d ? 5 : 4, interpolation_mode, padding_mode);
  check_dtypes(input, grid, three_d);
  const Tensor x = in_compute_type(input), gr = in_compute_type(grid);
  const Geometry g = make_geometry(x, gr, interpolation_mode, padding_mode, align_corners, three_d);
  const DimVector out_sizes = output_sizes(g);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(out_sizes), name,
              ": expected grad_output of sizes ", detail::sizes_str(out_sizes), ", but got ",
              detail::sizes_str(grad_output.sizes()));
  EMBER_CHECK(grad_output.dtype() == input.dtype(), "expected scalar type ",
              scalar_type_name(input.dtype()), " but found ",
              scalar_type_name(grad_output.dtype()));
  profiler::RecordFunction prof_range(name, profiler::RangeKind::kOp, input);
  detail::OpScope scope(grad_output, input, grid);
  Tensor gi = output_mask[0] ? zeros(x.sizes(), x.options()) : Tensor();
  // grad_grid is always computed by the kernel (it costs the same reads).
  Tensor gg = empty(gr.sizes(), gr.options());
  const Tensor go = in_compute_type(grad_output).contiguous();
  if (go.numel() > 0) {
    detail::grid_sampler_backward_stub(input.device())(g, go, x, gr, gi, gg);
  } else {
    gg.zero_();
  }
  if (gi.defined()) gi = gi.to(input.dtype());
  Tensor gg_out = output_mask[1] ? gg.to(grid.dtype()) : Tensor();
  if (scope.active()) {
    scope.record(name, {grad_output, input, grid}, {gi, gg_out},
                 {Scalar(interpolation_mode), Scalar(padding_mode), Scalar(align_corners)});
  }
  return {gi, gg_out};
}

}  // namespace

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  return sampler_forward("grid_sampler_2d", input, grid, interpolation_mode, padding_mode,
                         align_corners, /*three_d=*/false);
}

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  return sampler_forward("grid_sampler_3d", input, grid, interpolation_mode, padding_mode,
                         align_corners, /*three_d=*/true);
}

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                    int64_t padding_mode, bool align_corners) {
  if (input.defined() && input.dim() == 4) {
    return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
  }
  return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& grid, int64_t interpolation_mode,
                                                    int64_t padding_mode, bool align_corners,
                                                    std::array<bool, 2> output_mask) {
  return sampler_backward("grid_sampler_2d_backward", grad_output, input, grid, interpolation_mode,
                          padding_mode, align_corners, output_mask, false);
}

std::tuple<Tensor, Tensor> grid_sampler_3d_backward(const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& grid, int64_t interpolation_mode,
                                                    int64_t padding_mode, bool align_corners,
                                                    std::array<bool, 2> output_mask) {
  return sampler_backward("grid_sampler_3d_backward", grad_output, input, grid, interpolation_mode,
                          padding_mode, align_corners, output_mask, true);
}

// --- affine_grid_generator: 1.13's composite ------------------------------

namespace {

Tensor linspace_from_neg_one(const Tensor& like, int64_t steps, bool align_corners) {
  if (steps <= 1) return zeros(IntArrayRef{}, like.options());
  Tensor range = linspace(-1, 1, steps, like.options());
  if (!align_corners) range = range * (steps - 1) / steps;
  return range;
}

// [N, (D,) H, W, dims + 1]: (x, y[, z], 1) at each point.
Tensor base_grid(const Tensor& like, IntArrayRef size, bool align_corners) {
  const bool three_d = size.size() == 5;
  const int64_t N = size[0];
  if (!three_d) {
    const int64_t H = size[2], W = size[3];
    Tensor b = empty({N, H, W, 3}, like.options());
    b.select(-1, 0).copy_(linspace_from_neg_one(like, W, align_corners));
    b.select(-1, 1).copy_(linspace_from_neg_one(like, H, align_corners).unsqueeze(-1));
    b.select(-1, 2).fill_(1);
    return b;
  }
  const int64_t D = size[2], H = size[3], W = size[4];
  Tensor b = empty({N, D, H, W, 4}, like.options());
  b.select(-1, 0).copy_(linspace_from_neg_one(like, W, align_corners));
  b.select(-1, 1).copy_(linspace_from_neg_one(like, H, align_corners).unsqueeze(-1));
  b.select(-1, 2).copy_(linspace_from_neg_one(like, D, align_corners).unsqueeze(-1).unsqueeze(-1));
  b.select(-1, 3).fill_(1);
  return b;
}

void check_affine_size(IntArrayRef size) {
  EMBER_CHECK(size.size() == 4 || size.size() == 5,
              "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
}

}  // namespace

Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  check_affine_size(size);
  profiler::RecordFunction prof_range("affine_grid_generator", profiler::RangeKind::kOp, theta);
  detail::OpScope scope(theta);
  const int64_t N = size[0];
  Tensor out;
  if (size.size() == 4) {
    const int64_t H = size[2], W = size[3];
    out = base_grid(theta, size, align_corners)
              .view({N, H * W, 3})
              .bmm(theta.transpose(1, 2))
              .view({N, H, W, 2});
  } else {
    const int64_t D = size[2], H = size[3], W = size[4];
    out = base_grid(theta, size, align_corners)
              .view({N, D * H * W, 4})
              .bmm(theta.transpose(1, 2))
              .view({N, D, H, W, 3});
  }
  if (scope.active()) {
    scope.record("affine_grid_generator", {theta}, {out},
                 {DimVector(size.begin(), size.end()), Scalar(align_corners)});
  }
  return out;
}

Tensor affine_grid_generator_backward(const Tensor& grad, IntArrayRef size, bool align_corners) {
  check_affine_size(size);
  const int64_t N = size[0];
  const int64_t points = size.size() == 4 ? size[2] * size[3] : size[2] * size[3] * size[4];
  const int64_t k = size.size() == 4 ? 2 : 3;
  const DimVector expect = size.size() == 4 ? DimVector{N, size[2], size[3], 2}
                                            : DimVector{N, size[2], size[3], size[4], 3};
  EMBER_CHECK(grad.sizes() == IntArrayRef(expect),
              "affine_grid_generator_backward: expected grad of sizes ", detail::sizes_str(expect),
              ", but got ", detail::sizes_str(grad.sizes()));
  Tensor base = base_grid(grad, size, align_corners);
  return base.view({N, points, k + 1})
      .transpose(1, 2)
      .bmm(grad.reshape({N, points, k}))
      .transpose(1, 2);
}

}  // namespace ember
