#ifndef EMBER_TENSOR_INDEXING_H_
#define EMBER_TENSOR_INDEXING_H_

// Python-style indexing, spelled like libtorch's torch::indexing:
//
//   using namespace ember::indexing;
//   x.index({Slice(), 1})                  // x[:, 1]        (a view)
//   x.index({"...", None, Slice(1, None, 2)})  // x[..., None, 1::2] (a view)
//   x.index({x > 0})                       // x[x > 0]       (a copy)
//   x.index_put_({idx, Slice()}, 0.5)      // x[idx, :] = 0.5
//
// Integers, slices, None and Ellipsis give views that share storage;
// boolean masks and integer index tensors ("advanced indexing") give copies,
// with NumPy's rule for where the indexed dimensions go. A 0-dim integer
// tensor counts as an integer and a bool (or 0-dim bool tensor) as a
// one-element mask, as in PyTorch.

#include <cstdint>
#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace ember {
namespace indexing {

// Slice(start, stop, step): Python's start:stop:step. Missing bounds are
// std::nullopt (or None): Slice() is `:`, Slice(1, None) is `1:`.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

struct EllipsisIndexType {};
// `None` converts to a missing Slice bound and, as an index, inserts a dim.
constexpr std::nullopt_t None = std::nullopt;
constexpr EllipsisIndexType Ellipsis{};

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

}  // namespace indexing

// One element of an index list.
class TensorIndex {
 public:
  TensorIndex(std::nullopt_t) : type_(indexing::TensorIndexType::None) {}  // NOLINT
  TensorIndex(indexing::EllipsisIndexType)  // NOLINT
      : type_(indexing::TensorIndexType::Ellipsis) {}
  // "..." is Ellipsis; any other string is an error.
  TensorIndex(const char* str);  // NOLINT
  TensorIndex(int64_t integer)  // NOLINT
      : integer_(integer), type_(indexing::TensorIndexType::Integer) {}
  TensorIndex(int integer) : TensorIndex(static_cast<int64_t>(integer)) {}  // NOLINT
  TensorIndex(bool boolean) : boolean_(boolean), type_(indexing::TensorIndexType::Boolean) {}  // NOLINT
  TensorIndex(indexing::Slice slice)  // NOLINT
      : slice_(slice), type_(indexing::TensorIndexType::Slice) {}
  TensorIndex(Tensor tensor)  // NOLINT
      : tensor_(std::move(tensor)), type_(indexing::TensorIndexType::Tensor) {}

  indexing::TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == indexing::TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == indexing::TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == indexing::TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == indexing::TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == indexing::TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == indexing::TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  int64_t integer_ = 0;
  bool boolean_ = false;
  indexing::Slice slice_;
  Tensor tensor_;
  indexing::TensorIndexType type_;
};

// A TensorIndexList is a parameter type, like absl::Span: it points into the
// caller's braced list, which lives until the end of the full expression
// that contains the call. GCC warns about exactly that borrowing; it is the
// design, so the warning is silenced here alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
inline TensorIndexList::TensorIndexList(std::initializer_list<TensorIndex> l)
    : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
inline TensorIndexList::TensorIndexList(const std::vector<TensorIndex>& v)
    : data_(v.data()), size_(v.size()) {}
inline const TensorIndex* TensorIndexList::end() const { return data_ + size_; }
inline const TensorIndex& TensorIndexList::operator[](size_t i) const { return data_[i]; }

// torch.Tensor.index_put_ with a list of optional index tensors (undefined
// = the whole dimension), and accumulate=true adding into repeated places.
// As PyTorch's docs say: without accumulate, repeated indices leave one of
// their values, and which one is undefined (on CUDA it varies from run to
// run). With accumulate, the additions into one element run in the order of
// the index positions on every device (CUDA sorts the indices first, as
// PyTorch's CUDA kernel does), so results are the same from run to run and
// equal the CPU's. On CUDA both run on the device (index tensors on the
// CPU are copied there; a mask's coordinates come from nonzero), and an
// index out of range raises at the next synchronization (Note [Device-side
// index checks], tensor/cuda/index_ops.cc).
Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate = false);
// at::index: advanced indexing with a list of optional index tensors.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);

}  // namespace ember

#endif  // EMBER_TENSOR_INDEXING_H_
