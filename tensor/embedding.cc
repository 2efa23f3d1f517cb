// embedding: rows of weight picked by an index tensor (EmbeddingBackward0).
#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/record_function.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  EMBER_CHECK(indices.dtype() == kLong || indices.dtype() == kInt,
              "Expected tensor for argument #1 'indices' to have one of the following scalar "
              "types: Long, Int; but got ",
              scalar_type_name(indices.dtype()),
              " instead (while checking arguments for embedding)");
  profiler::RecordFunction prof_range("embedding", profiler::RangeKind::kOp, weight);
  detail::OpScope scope(weight);
  DimVector sizes(indices.sizes().begin(), indices.sizes().end());
  sizes.push_back(weight.size(1));
  Tensor out = weight.index_select(0, indices.reshape({-1})).reshape(sizes);
  if (scope.active()) scope.record("embedding", {weight, indices}, {out}, {Scalar(padding_idx)});
  return out;
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx) {
  const int64_t d = grad.size(-1);
  Tensor flat = indices.reshape({-1}).to(kLong);
  Tensor g = grad.reshape({-1, d});
  if (padding_idx >= 0) g = g * (flat != padding_idx).unsqueeze(1).to(grad.dtype());
  Tensor out = zeros({num_weights, d}, grad.options());
  out.index_add_(0, flat, g);
  return out;
}

}  // namespace ember
