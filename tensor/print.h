#ifndef EMBER_TENSOR_PRINT_H_
#define EMBER_TENSOR_PRINT_H_

// Printing: `std::cout << t` and `t.toString()` give exactly what PyTorch
// 1.13's `str(t)` gives for the same values (torch/_tensor_str.py), and the
// global print options work like `torch.set_printoptions`.

#include <cstdint>
#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace ember {

// torch._tensor_str.PRINT_OPTS.
struct PrintOptions {
  int64_t precision = 4;    // digits after the point (fixed or scientific)
  double threshold = 1000;  // more elements than this are summarized with "..."
  int64_t edgeitems = 3;    // items kept at each end of a summarized dim
  int64_t linewidth = 80;   // characters per line before a 1-D row wraps
  // true / false force scientific / fixed notation for floating tensors;
  // nullopt lets the formatter choose from the values (PyTorch's default).
  std::optional<bool> sci_mode;
};

// Like torch.set_printoptions: arguments left out keep their current value,
// except sci_mode, which (as in PyTorch) goes back to automatic when it is
// not given. threshold may be infinity (never summarize).
void set_printoptions(std::optional<int64_t> precision = std::nullopt,
                      std::optional<double> threshold = std::nullopt,
                      std::optional<int64_t> edgeitems = std::nullopt,
                      std::optional<int64_t> linewidth = std::nullopt,
                      std::optional<bool> sci_mode = std::nullopt);
// Replaces all options at once.
void set_printoptions(const PrintOptions& options);
// torch.set_printoptions(profile=...): "default", "short" or "full".
// Anything else raises ember::ValueError.
void set_printoptions_profile(const std::string& profile);
// Back to PyTorch's defaults (profile "default", automatic sci_mode).
void reset_printoptions();
PrintOptions get_printoptions();

// Python's repr() of a float ("0.1", "1.0", "1e-05", "inf"): the shortest
// digits that round-trip. Exposed because PyTorch prints scale= this way.
std::string python_float_repr(double v);

// What Python prints for a tensor's .shape: "torch.Size([2, 3])". PyTorch's
// error messages quote sizes this way too.
std::string size_repr(IntArrayRef sizes);

}  // namespace ember

#endif  // EMBER_TENSOR_PRINT_H_
