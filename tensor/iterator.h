#ifndef EMBER_TENSOR_ITERATOR_H_
#define EMBER_TENSOR_ITERATOR_H_

// Note [Elementwise engine]: every elementwise op (unary, binary, ternary,
// comparisons, copies and casts) goes through TensorIterator. It computes,
// once: the broadcast shape (PyTorch's error if shapes do not broadcast), the
// common dtype by PyTorch's promotion rules (tensors with dims outrank 0-dim
// tensors, which outrank wrapped numbers, within a category), casts inputs
// to it, allocates or checks the output, and collapses the operands into as
// few dimensions as their strides allow. Kernels then see 1-D runs: the
// contiguous case is a plain loop the compiler vectorizes (loops.h). Outputs
// it allocates keep the inputs' layout and the loops walk memory in that
// order (Note [Result layout] in tensor/layout.h).

#include <cstdint>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace ember {

struct IterConfig {
  // Cast inputs to the common dtype (result_type of the inputs).
  bool promote_inputs = true;
  // A common dtype that is integral or bool becomes the default float dtype
  // (true division, sqrt, exp of an int tensor).
  bool promote_integer_inputs_to_float = false;
  // Use this dtype instead of promoting.
  std::optional<ScalarType> common_dtype;
  // dtype of an output the iterator allocates (default: the common dtype),
  // e.g. kBool for comparisons.
  std::optional<ScalarType> output_dtype;
  // Check that an existing output (in-place, out=) can hold the common
  // dtype: "result type Float can't be cast to the desired output type Long".
  bool check_output_cast = true;
  // An existing output's dtype differs from the compute dtype: compute into
  // a temporary and copy back in finish() (e.g. int8 += int16).
  bool allow_output_cast = true;
  // Inputs with a different dtype are left as they are (casting copy_).
  bool cast_inputs = true;
  // The shape is the (defined) output's, and inputs broadcast to it (copy_).
  bool shape_from_output = false;
  // Outputs the iterator allocates are row-major whatever the inputs'
  // layouts (ATen ops whose meta function allocates contiguously, such as
  // pow(Scalar, Tensor)).
  bool row_major_outputs = false;
};

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 6;
  using StrideVector = absl::InlinedVector<int64_t, 6>;

  explicit TensorIterator(IterConfig config = {}) : config_(config) {}

  // Outputs first, then inputs. An undefined output is allocated by build().
  TensorIterator& add_output(const Tensor& out);
  TensorIterator& add_input(const Tensor& in);
  TensorIterator& build();

  // Convenience builders for the common shapes of op.
  static TensorIterator binary_op(const Tensor& out, const Tensor& a, const Tensor& b,
                                  IterConfig config = {});
  static TensorIterator unary_op(const Tensor& out, const Tensor& a, IterConfig config = {});
  static TensorIterator comparison_op(const Tensor& out, const Tensor& a, const Tensor& b);
  static TensorIterator nullary_op(const Tensor& out);

  int ntensors() const { return static_cast<int>(operands_.size()); }
  int noutputs() const { return num_outputs_; }
  int ninputs() const { return ntensors() - num_outputs_; }
  ScalarType common_dtype() const { return common_dtype_; }
  // dtype of operand i as the kernel sees it (outputs first).
  ScalarType dtype(int i) const { return operands_[i].dtype(); }
  ScalarType input_dtype(int i = 0) const { return dtype(num_outputs_ + i); }
  const Tensor& operand(int i) const { return operands_[i]; }
  const Tensor& input(int i = 0) const { return operands_[num_outputs_ + i]; }
  IntArrayRef shape() const { return broadcast_shape_; }
  // The device the operands live on (the kernel table key). Note [Iterator
  // devices]: every operand must be on it, except 0-dim CPU tensors (wrapped
  // numbers, tensor(2.0)), which an op on CUDA tensors accepts as PyTorch
  // does; build() copies them to the device.
  Device device() const { return device_; }
  DeviceType device_type() const { return device_.type(); }
  int64_t numel() const { return numel_; }

  // Calls loop(char** data, const int64_t* strides, int64_t n) for runs of n
  // elements, where strides[i] is operand i's step in bytes. Runs in
  // parallel when numel() exceeds grain_size.
  template <typename Loop>
  void for_each(const Loop& loop, int64_t grain_size = kGrainSize) {
    if (numel_ == 0) return;
    if (numel_ <= grain_size) {
      serial_for_each(loop, 0, numel_);
      return;
    }
    parallel_for(0, numel_, grain_size, [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
  }

  template <typename Loop>
  void serial_for_each(const Loop& loop, int64_t begin, int64_t end) const {
    const int nt = ntensors();
    char* base[kMaxOperands];
    for (int i = 0; i < nt; ++i) base[i] = static_cast<char*>(operands_[i].data_ptr());
    const int nd = static_cast<int>(shape_.size());
    int64_t inner_strides[kMaxOperands];
    for (int i = 0; i < nt; ++i) inner_strides[i] = strides_[i][0];
    const int64_t inner = shape_[0];
    // Multi-index of `begin` over dims 1..nd-1.
    int64_t idx[16];
    int64_t rest = begin / inner;
    int64_t i0 = begin % inner;
    for (int d = 1; d < nd; ++d) {
      idx[d] = rest % shape_[d];
      rest /= shape_[d];
    }
    char* ptrs[kMaxOperands];
    int64_t pos = begin;
    while (pos < end) {
      for (int i = 0; i < nt; ++i) {
        char* p = base[i] + i0 * inner_strides[i];
        for (int d = 1; d < nd; ++d) p += idx[d] * strides_[i][d];
        ptrs[i] = p;
      }
      int64_t n = inner - i0;
      if (n > end - pos) n = end - pos;
      loop(ptrs, inner_strides, n);
      pos += n;
      i0 = 0;
      for (int d = 1; d < nd; ++d) {
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
    }
  }

  // The loop after coalescing, for kernels that index it themselves (the
  // CUDA backend): dim 0 is the fastest-moving; strides in bytes.
  IntArrayRef loop_shape() const { return shape_; }
  IntArrayRef loop_strides(int i) const { return strides_[i]; }

  // The result: output i, copied back into the caller's tensor when it was
  // computed in a temporary of another dtype.
  Tensor output(int i = 0);

 private:
  void compute_device();
  void compute_shape();
  void compute_types();
  void allocate_or_check_outputs();
  void compute_layout(ScalarType out_dtype);
  void coalesce();

  IterConfig config_;
  absl::InlinedVector<Tensor, kMaxOperands> operands_;
  absl::InlinedVector<Tensor, 2> original_outputs_;  // when computing into temporaries
  int num_outputs_ = 0;
  ScalarType common_dtype_ = ScalarType::Undefined;
  Device device_{kCPU};
  DimVector broadcast_shape_;
  bool same_shape_ = true;  // every input has the broadcast shape
  bool row_major_ = true;   // every operand is row-major: perm_ is unused
  DimVector perm_;  // the broadcast dims, innermost first (Note [Result layout])
  int64_t numel_ = 0;
  // After coalescing; dim 0 is the fastest-moving.
  DimVector shape_;
  StrideVector strides_[kMaxOperands];
};

// torch.result_type over tensors (wrapped numbers rank lowest).
ScalarType result_type(TensorList tensors);
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

// The shape two or more shapes broadcast to, with PyTorch's error.
DimVector infer_size(IntArrayRef a, IntArrayRef b);

}  // namespace ember

#endif  // EMBER_TENSOR_ITERATOR_H_
