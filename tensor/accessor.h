#ifndef EMBER_TENSOR_ACCESSOR_H_
#define EMBER_TENSOR_ACCESSOR_H_

// libtorch's TensorAccessor: element access to a CPU tensor of known dtype
// and rank through its strides, without a Tensor per index.
//
//   auto a = t.accessor<float, 2>();   // t: a float CPU tensor of 2 dims
//   for (int64_t i = 0; i < a.size(0); ++i)
//     for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
//
// An accessor points into the tensor's data, sizes and strides: it is valid
// while the tensor lives and keeps its shape (hence accessor() on a
// temporary does not compile, as in libtorch).

#include <cstddef>
#include <cstdint>

#include "tensor/tensor.h"

namespace ember {

template <typename T, size_t N>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <typename T, size_t N>
class TensorAccessor : public TensorAccessorBase<T, N> {
 public:
  using TensorAccessorBase<T, N>::TensorAccessorBase;
  // The sub-accessor of index i along the first dim (no bounds check, as in
  // libtorch).
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                    this->strides_ + 1);
  }
};

template <typename T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T, 1> {
 public:
  using TensorAccessorBase<T, 1>::TensorAccessorBase;
  T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

namespace detail {
[[noreturn]] void throw_accessor_dims(size_t expected, int64_t actual);
[[noreturn]] void throw_accessor_device(const Device& device);
}  // namespace detail

template <typename T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
  if (dim() != static_cast<int64_t>(N)) detail::throw_accessor_dims(N, dim());
  if (!device().is_cpu()) detail::throw_accessor_device(device());
  T* data = data_ptr<T>();  // checks the dtype
  return TensorAccessor<T, N>(data, sizes().data(), strides().data());
}

}  // namespace ember

#endif  // EMBER_TENSOR_ACCESSOR_H_
