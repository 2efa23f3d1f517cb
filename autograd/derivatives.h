#ifndef EMBER_AUTOGRAD_DERIVATIVES_H_
#define EMBER_AUTOGRAD_DERIVATIVES_H_
// The derivative table: one entry per recorded op name (Note [Op recording]
// in tensor/autograd_hook.h), defined in autograd/derivatives/*.cc by
// family. Each formula is written with public tensor ops, so that under
// create_graph the backward itself is recorded (double backward).
//
// A formula returns one gradient per forward input (undefined where not
// needed or not differentiable). The node then reduces each gradient to its
// input's shape (broadcasting: sum_to) and casts it to the input's dtype,
// so formulas need not.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "autograd/node.h"

namespace ember {
namespace autograd {

class BackwardCtx {
 public:
  struct InputInfo {
    DimVector sizes;
    ScalarType dtype = kFloat;
    bool defined = false;
  };
  BackwardCtx(const variable_list& inputs, const variable_list& outputs,
              const std::vector<InputInfo>& info, absl::Span<const OpArg> args,
              const std::vector<bool>& needs)
      : inputs_(inputs), outputs_(outputs), info_(info), args_(args), needs_(needs) {}

  // Saved inputs / outputs (undefined unless the entry saves them).
  const Tensor& input(size_t i) const { return inputs_[i]; }
  const Tensor& output(size_t i) const { return outputs_[i]; }
  size_t num_inputs() const { return info_.size(); }
  IntArrayRef input_sizes(size_t i) const { return info_[i].sizes; }
  ScalarType input_dtype(size_t i) const { return info_[i].dtype; }
  bool needs(size_t i) const { return i < needs_.size() && needs_[i]; }

  const OpArg& arg(size_t i) const { return args_[i]; }
  bool has_arg(size_t i) const {
    return i < args_.size() && !std::holds_alternative<std::monostate>(args_[i]);
  }
  Scalar scalar(size_t i) const { return std::get<Scalar>(args_[i]); }
  int64_t int_arg(size_t i) const { return std::get<Scalar>(args_[i]).toLong(); }
  double double_arg(size_t i) const { return std::get<Scalar>(args_[i]).toDouble(); }
  bool bool_arg(size_t i) const { return std::get<Scalar>(args_[i]).toBool(); }
  const DimVector& dims(size_t i) const { return std::get<DimVector>(args_[i]); }
  const std::string& str(size_t i) const { return std::get<std::string>(args_[i]); }

 private:
  const variable_list& inputs_;
  const variable_list& outputs_;
  const std::vector<InputInfo>& info_;
  absl::Span<const OpArg> args_;
  const std::vector<bool>& needs_;
};

using Formula = variable_list (*)(const BackwardCtx& ctx, const variable_list& grads);

// Bits of Derivative::save_inputs.
constexpr uint32_t kSaveSelf = 1;
constexpr uint32_t kSaveOther = 2;
constexpr uint32_t kSaveThird = 4;
constexpr uint32_t kSaveFourth = 8;
constexpr uint32_t kSaveAll = 0xffffffffu;

struct Derivative {
  const char* op;         // the recorded op name: "mul"
  const char* node_name;  // PyTorch's node: "MulBackward0"
  uint32_t save_inputs;   // which inputs the formula reads (bit i: input i)
  bool save_outputs;      // whether it reads the outputs
  Formula formula;
  // The node passes outputs whose gradient nobody computed as undefined
  // instead of zeros: for formulas where a zero gradient would cost whole
  // kernels (convolution_backward's double backward, where a gradient
  // penalty on the input leaves the weight's and bias's gradients unused).
  bool undefined_grads = false;
  // Outputs the formula never reads (bit j: output j), left unsaved when
  // save_outputs is set, so that modifying them in place later is allowed:
  // native_batch_norm/native_layer_norm read their statistics, not their
  // result, as PyTorch's nodes (torchvision's `out = bn(x); out += identity`).
  uint32_t unsaved_outputs = 0;
  // Floating outputs that are not differentiable (bit j: output j): they
  // get no grad_fn, as PyTorch's output_differentiability: False (the
  // permutation P of linalg_lu and lu_unpack).
  uint32_t nondifferentiable_outputs = 0;
};

void register_derivatives(std::initializer_list<Derivative> entries);
const Derivative* find_derivative(const std::string& op);
// Every registered op name, sorted (the registry test walks them).
std::vector<std::string> registered_derivatives();

// --- helpers for formulas ---------------------------------------------------------

// The formula of a node PyTorch records without a derivative
// (derivatives.yaml's not_implemented("name")): backward through it raises
// PyTorch's message. kOp is a namespace-scope `constexpr char[]`:
//   constexpr char kGeqrf[] = "geqrf";
//   {"geqrf", "GeqrfBackward0", 0, false, not_implemented<kGeqrf>}
template <const char* kOp>
variable_list not_implemented(const BackwardCtx&, const variable_list&) {
  throw Error(std::string("the derivative for '") + kOp + "' is not implemented.");
}

// Sums `grad` down to `sizes` (the inverse of broadcasting).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
// A reduced gradient re-expanded over the reduced dims (`dims` empty: all).
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef dims, IntArrayRef input_sizes,
                    bool keepdim);
// Wraps dims into [0, ndim).
DimVector wrap_dims(IntArrayRef dims, int64_t ndim);

}  // namespace autograd
}  // namespace ember

#define EMBER_CONCAT_INNER(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_INNER(a, b)
// Registers derivative entries at static-initialization time.
#define EMBER_REGISTER_DERIVATIVES(...)                                              \
  static const bool EMBER_CONCAT(ember_derivatives_, __LINE__) = [] {                \
    ::ember::autograd::register_derivatives({__VA_ARGS__});                          \
    return true;                                                                     \
  }()

#endif  // EMBER_AUTOGRAD_DERIVATIVES_H_
