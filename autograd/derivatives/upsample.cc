// Derivatives of the upsample ops (tensor/upsample.h): each op is linear,
// so its gradient is its adjoint (the *_backward op), and the adjoint's
// gradient the op again; both recorded, so any order of backward works.
#include "autograd/derivatives.h"
#include "tensor/upsample.h"

namespace ember {
namespace autograd {
namespace {

using V = variable_list;
using C = BackwardCtx;

// The op back from its recorded arguments (tensor/upsample.cc's
// record_args: mode, dims, vec, align_corners, output size, input size,
// one scale per spatial dim).
detail::UpsampleOp op_of(const C& c) {
  detail::UpsampleOp op;
  op.mode = static_cast<detail::UpsampleMode>(c.int_arg(0));
  op.dims = c.int_arg(1);
  op.vec = c.bool_arg(2);
  op.align_corners = c.bool_arg(3);
  for (int64_t i = 0; i < op.dims; ++i) {
    op.scales.push_back(c.has_arg(6 + i) ? std::optional<double>(c.double_arg(6 + i))
                                         : std::nullopt);
  }
  return op;
}

V upsample_bw(const C& c, const V& g) {
  return {detail::upsample_backward(g[0], op_of(c), c.dims(4), c.dims(5))};
}

V upsample_backward_bw(const C& c, const V& g) {
  return {detail::upsample(g[0], op_of(c), c.dims(4))};
}

// One op's four entries: the op and its .vec overload, their backwards.
#define EMBER_UPSAMPLE_ENTRIES(op, node)                                            \
  {op, node "Backward0", 0, false, upsample_bw},                                    \
      {op ".vec", node "Backward1", 0, false, upsample_bw},                         \
      {op "_backward", node "BackwardBackward0", 0, false, upsample_backward_bw}, { \
    op "_backward.vec", node "BackwardBackward1", 0, false, upsample_backward_bw    \
  }

EMBER_REGISTER_DERIVATIVES(
    EMBER_UPSAMPLE_ENTRIES("upsample_nearest1d", "UpsampleNearest1D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_nearest2d", "UpsampleNearest2D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_nearest3d", "UpsampleNearest3D"),
    EMBER_UPSAMPLE_ENTRIES("_upsample_nearest_exact1d", "UpsampleNearestExact1D"),
    EMBER_UPSAMPLE_ENTRIES("_upsample_nearest_exact2d", "UpsampleNearestExact2D"),
    EMBER_UPSAMPLE_ENTRIES("_upsample_nearest_exact3d", "UpsampleNearestExact3D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_linear1d", "UpsampleLinear1D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_bilinear2d", "UpsampleBilinear2D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_bicubic2d", "UpsampleBicubic2D"),
    EMBER_UPSAMPLE_ENTRIES("upsample_trilinear3d", "UpsampleTrilinear3D"));

#undef EMBER_UPSAMPLE_ENTRIES

}  // namespace
}  // namespace autograd
}  // namespace ember
