#include "tensor/view_copy.h"

#include <limits>

#include "tensor/autograd_hook.h"
#include "tensor/dim.h"
#include "tensor/record_function.h"
#include "tensor/shape.h"

namespace ember {
namespace {

// Note [View copies] in view_copy.h: the view is made and cloned below
// autograd (neither records), then the copy is recorded under `name` with
// the args the view's derivative reads.
template <typename View, typename Args>
Tensor copy_of_view(const char* name, const Tensor& self, View&& view, Args&& args) {
  profiler::RecordFunction range(name, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  Tensor r = view().clone();
  if (scope.active()) scope.record(name, {self}, {r}, args());
  return r;
}

template <typename View, typename Args>
std::vector<Tensor> copies_of_views(const char* name, const Tensor& self, View&& views,
                                    Args&& args) {
  profiler::RecordFunction range(name, profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  std::vector<Tensor> out = views();
  for (Tensor& t : out) t = t.clone();
  if (scope.active()) scope.record_list(name, {self}, out, args());
  return out;
}

OpArgs no_args() { return {}; }

}  // namespace

Tensor as_strided_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  return copy_of_view(
      "as_strided_copy", self, [&] { return self.as_strided(size, stride, storage_offset); },
      [&] {
        // as_strided's args: the view's geometry, then self's.
        return OpArgs{DimVector(size.begin(), size.end()), DimVector(stride.begin(), stride.end()),
                      Scalar(storage_offset.value_or(self.storage_offset())),
                      DimVector(self.strides().begin(), self.strides().end()),
                      Scalar(self.storage_offset())};
      });
}

Tensor diagonal_copy(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return copy_of_view(
      "diagonal_copy", self, [&] { return self.diagonal(offset, dim1, dim2); },
      [&] {
        return OpArgs{Scalar(offset), Scalar(detail::wrap_dim(dim1, self.dim())),
                      Scalar(detail::wrap_dim(dim2, self.dim()))};
      });
}

Tensor expand_copy(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  return copy_of_view(
      "expand_copy", self, [&] { return self.expand(size); }, no_args);
}

Tensor permute_copy(const Tensor& self, IntArrayRef dims) {
  return copy_of_view(
      "permute_copy", self, [&] { return self.permute(dims); },
      [&] { return OpArgs{DimVector(dims.begin(), dims.end())}; });
}

Tensor select_copy(const Tensor& self, int64_t dim, int64_t index) {
  return copy_of_view(
      "select_copy", self, [&] { return self.select(dim, index); },
      [&] {
        const int64_t d = detail::wrap_dim(dim, self.dim());
        return OpArgs{Scalar(d), Scalar(index < 0 ? index + self.size(d) : index)};
      });
}

Tensor slice_copy(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                  std::optional<int64_t> end, int64_t step) {
  // slice's backward clamps the bounds against self's sizes again.
  return copy_of_view(
      "slice_copy", self, [&] { return self.slice(dim, start, end, step); },
      [&] {
        return OpArgs{Scalar(detail::wrap_dim(dim, self.dim())), Scalar(start.value_or(0)),
                      Scalar(end.value_or(std::numeric_limits<int64_t>::max())), Scalar(step)};
      });
}

std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim) {
  return copies_of_views(
      "split_copy", self, [&] { return self.split(split_size, dim); },
      [&] { return OpArgs{Scalar(detail::wrap_dim(dim, self.dim()))}; });
}

std::vector<Tensor> split_with_sizes_copy(const Tensor& self, IntArrayRef split_sizes,
                                          int64_t dim) {
  return copies_of_views(
      "split_with_sizes_copy", self, [&] { return self.split_with_sizes(split_sizes, dim); },
      [&] { return OpArgs{Scalar(detail::wrap_dim(dim, self.dim()))}; });
}

Tensor squeeze_copy(const Tensor& self) {
  return copy_of_view(
      "squeeze_copy", self, [&] { return self.squeeze(); }, no_args);
}

Tensor squeeze_copy(const Tensor& self, int64_t dim) {
  return copy_of_view(
      "squeeze_copy_dim", self, [&] { return self.squeeze(dim); }, no_args);
}

Tensor t_copy(const Tensor& self) {
  return copy_of_view(
      "t_copy", self, [&] { return self.t(); },
      [&] {
        return OpArgs{Scalar(int64_t{0}), Scalar(int64_t{self.dim() < 2 ? 0 : 1})};
      });
}

Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1) {
  return copy_of_view(
      "transpose_copy", self, [&] { return self.transpose(dim0, dim1); },
      [&] {
        if (self.dim() == 0) return OpArgs{Scalar(int64_t{0}), Scalar(int64_t{0})};
        return OpArgs{Scalar(detail::wrap_dim(dim0, self.dim())),
                      Scalar(detail::wrap_dim(dim1, self.dim()))};
      });
}

std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim) {
  return copies_of_views(
      "unbind_copy", self, [&] { return self.unbind(dim); },
      [&] { return OpArgs{Scalar(detail::wrap_dim(dim, self.dim()))}; });
}

Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return copy_of_view(
      "unfold_copy", self, [&] { return self.unfold(dimension, size, step); },
      [&] {
        return OpArgs{Scalar(detail::wrap_dim(dimension, self.dim())), Scalar(size), Scalar(step)};
      });
}

Tensor unsqueeze_copy(const Tensor& self, int64_t dim) {
  return copy_of_view(
      "unsqueeze_copy", self, [&] { return self.unsqueeze(dim); }, no_args);
}

Tensor view_copy(const Tensor& self, IntArrayRef size) {
  // reshape is a view when one exists and a contiguous copy otherwise; the
  // copy is not cloned again.
  profiler::RecordFunction range("view_copy", profiler::RangeKind::kOp, self);
  detail::OpScope scope(self);
  DimVector strides;
  const bool viewable = detail::compute_view_strides(
      self.sizes(), self.strides(), detail::infer_view_size(size, self.numel()), &strides);
  Tensor r = viewable ? self.view(size).clone() : self.reshape(size);
  if (scope.active()) scope.record("view_copy", {self}, {r});
  return r;
}

Tensor view_copy(const Tensor& self, ScalarType dtype) { return self.detach().view(dtype).clone(); }

Tensor alias_copy(const Tensor& self) {
  return copy_of_view(
      "alias_copy", self, [&] { return self; }, no_args);
}

Tensor detach_copy(const Tensor& self) {
  return copy_of_view(
      "detach_copy", self, [&] { return self.detach(); }, no_args);
}

}  // namespace ember
