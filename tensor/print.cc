#include "tensor/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/dispatch.h"
#include "tensor/tensor.h"

// A port of torch/_tensor_str.py (PyTorch 1.13). The Python code formats
// numbers with str.format; the helpers below reproduce those strings with
// printf, whose rounding (exact binary value, ties to even) is Python's.

namespace ember {
namespace {

std::mutex& options_mutex() {
  static std::mutex mu;
  return mu;
}
PrintOptions& options_storage() {
  static PrintOptions opts;
  return opts;
}

// --- Python number formatting ---------------------------------------------

std::string c_format(const char* spec, int64_t precision, double v) {
  char buf[64];
  int p = static_cast<int>(precision);
  int n = std::snprintf(buf, sizeof(buf), spec, p, v);
  if (n < static_cast<int>(sizeof(buf))) return std::string(buf, n);
  // "%.4f" of 1e300 needs ~300 characters.
  std::string big(n + 1, '\0');
  std::snprintf(&big[0], big.size(), spec, p, v);
  big.resize(n);
  return big;
}

// Python never prints a sign on nan (printf writes "-nan").
bool format_nonfinite(double v, std::string* out) {
  if (std::isnan(v)) {
    *out = "nan";
    return true;
  }
  if (std::isinf(v)) {
    *out = v > 0 ? "inf" : "-inf";
    return true;
  }
  return false;
}

// '{:.{p}f}'.format(v)
std::string format_fixed(double v, int64_t precision) {
  std::string s;
  if (format_nonfinite(v, &s)) return s;
  return c_format("%.*f", precision, v);
}

// '{:.{p}e}'.format(v)
std::string format_sci(double v, int64_t precision) {
  std::string s;
  if (format_nonfinite(v, &s)) return s;
  return c_format("%.*e", precision, v);
}

// (width - len(s)) * " " + s: no padding when s is already wider.
void pad_left(std::string* s, int64_t width) {
  int64_t missing = width - static_cast<int64_t>(s->size());
  if (missing > 0) s->insert(0, static_cast<size_t>(missing), ' ');
}

// --- which elements are shown -----------------------------------------------

// Offsets (in elements, from element 0 of the view) of the elements that are
// printed, in print order. When summarizing, each dim longer than
// 2 * edgeitems keeps its first and last edgeitems entries; this is also the
// set get_summarized_data() hands to PyTorch's _Formatter, so the column
// width depends only on what is shown.
struct Shown {
  IntArrayRef sizes;
  IntArrayRef strides;
  bool summarize;
  int64_t edgeitems;

  // The kept index ranges of dim d: [0, head_end) and [tail_begin, n).
  // Python's 1-D path slices self[-edgeitems:], which for edgeitems == 0 is
  // the whole dim; the n-D path uses range(n - edgeitems, n).
  bool split(int64_t d, int64_t* head_end, int64_t* tail_begin) const {
    int64_t n = sizes[d];
    if (!summarize || n <= 2 * edgeitems) {
      *head_end = n;
      *tail_begin = n;
      return false;
    }
    bool last_dim = d + 1 == static_cast<int64_t>(sizes.size());
    *head_end = edgeitems;
    *tail_begin = (last_dim && edgeitems == 0) ? 0 : n - edgeitems;
    return true;
  }

  void collect(int64_t d, int64_t base, std::vector<int64_t>* out) const {
    if (d == static_cast<int64_t>(sizes.size())) {
      out->push_back(base);
      return;
    }
    int64_t head_end, tail_begin;
    split(d, &head_end, &tail_begin);
    for (int64_t i = 0; i < head_end; ++i) collect(d + 1, base + i * strides[d], out);
    for (int64_t i = tail_begin; i < sizes[d]; ++i) collect(d + 1, base + i * strides[d], out);
  }
};

// The shown values: doubles for floating (and dequantized) tensors, int64
// for integral and bool ones.
struct Values {
  bool floating = false;
  bool boolean = false;
  std::vector<double> f;
  std::vector<int64_t> i;
};

template <typename T>
constexpr bool is_float_like() {
  return std::is_floating_point<T>::value || std::is_same<T, Half>::value ||
         std::is_same<T, BFloat16>::value;
}

template <typename Q>
void dequantize_values(const Tensor& t, const QuantParams& q, const std::vector<int64_t>& offsets,
                       Values* v) {
  // PyTorch's CPU dequantize computes (float(q) - float(zp)) * float(scale)
  // in float32, so the printed digits depend on it.
  const Q* p = static_cast<const Q*>(t.data_ptr());
  float scale = static_cast<float>(q.scale);
  float zp = static_cast<float>(q.zero_point);
  v->f.reserve(offsets.size());
  for (int64_t off : offsets) {
    float x = (static_cast<float>(p[off]) - zp) * scale;
    v->f.push_back(x);
  }
}

Values read_values(const Tensor& t, const QuantParams& q, const std::vector<int64_t>& offsets) {
  Values v;
  if (t.is_quantized()) {
    v.floating = true;
    if (t.dtype() == kQUInt8) {
      dequantize_values<uint8_t>(t, q, offsets, &v);
    } else {
      dequantize_values<int8_t>(t, q, offsets, &v);
    }
    return v;
  }
  v.floating = t.is_floating_point();
  v.boolean = t.dtype() == kBool;
  EMBER_DISPATCH_ALL_TYPES(t.dtype(), "print", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(t.data_ptr());
    if constexpr (is_float_like<scalar_t>()) {
      v.f.reserve(offsets.size());
      for (int64_t off : offsets) v.f.push_back(static_cast<double>(p[off]));
    } else {
      v.i.reserve(offsets.size());
      for (int64_t off : offsets) v.i.push_back(static_cast<int64_t>(p[off]));
    }
  });
  return v;
}

// --- _Formatter -----------------------------------------------------------------

class Formatter {
 public:
  Formatter(const Values& values, const PrintOptions& opts)
      : values_(values), precision_(opts.precision) {
    if (!values.floating) {
      for (size_t k = 0; k < values.i.size(); ++k) {
        max_width_ = std::max<int64_t>(max_width_, format_int(values.i[k]).size());
      }
      return;
    }
    std::vector<double> nonzero_finite;
    for (double x : values.f) {
      if (std::isfinite(x) && x != 0) nonzero_finite.push_back(x);
    }
    // PyTorch returns before applying the sci_mode option here.
    if (nonzero_finite.empty()) return;

    double min_abs = std::fabs(nonzero_finite[0]);
    double max_abs = min_abs;
    for (double x : nonzero_finite) {
      min_abs = std::min(min_abs, std::fabs(x));
      max_abs = std::max(max_abs, std::fabs(x));
      if (x != std::ceil(x)) int_mode_ = false;
    }
    bool wide_range = max_abs / min_abs > 1000.0 || max_abs > 1.0e8;
    // The width is measured in the automatic mode even when opts.sci_mode
    // overrides the mode below, as PyTorch does.
    if (int_mode_) {
      sci_mode_ = wide_range;
      for (double x : nonzero_finite) {
        int64_t len = sci_mode_ ? format_sci(x, precision_).size()
                                : format_fixed(x, 0).size() + 1;  // the trailing "."
        max_width_ = std::max(max_width_, len);
      }
    } else {
      sci_mode_ = wide_range || min_abs < 1.0e-4;
      for (double x : nonzero_finite) {
        int64_t len =
            sci_mode_ ? format_sci(x, precision_).size() : format_fixed(x, precision_).size();
        max_width_ = std::max(max_width_, len);
      }
    }
    if (opts.sci_mode.has_value()) sci_mode_ = *opts.sci_mode;
  }

  int64_t width() const { return max_width_; }

  // The k-th shown value, padded to the column width.
  std::string format(size_t k) const {
    std::string s;
    if (values_.floating) {
      double x = values_.f[k];
      if (sci_mode_) {
        s = format_sci(x, precision_);
      } else if (int_mode_) {
        s = format_fixed(x, 0);
        if (std::isfinite(x)) s += '.';
      } else {
        s = format_fixed(x, precision_);
      }
    } else {
      s = format_int(values_.i[k]);
    }
    pad_left(&s, max_width_);
    return s;
  }

 private:
  std::string format_int(int64_t x) const {
    if (values_.boolean) return x ? "True" : "False";
    return absl::StrCat(x);
  }

  const Values& values_;
  int64_t precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int64_t max_width_ = 1;
};

// --- _tensor_str_with_formatter ------------------------------------------------

class Printer {
 public:
  Printer(const Shown& shown, const std::vector<std::string>& items, int64_t width,
          const PrintOptions& opts)
      : shown_(shown), items_(items), width_(width), opts_(opts) {}

  std::string str(int64_t d, int64_t indent) {
    int64_t ndim = static_cast<int64_t>(shown_.sizes.size());
    if (ndim == 0) return items_[next_++];
    int64_t head_end, tail_begin;
    bool summarized = shown_.split(d, &head_end, &tail_begin);
    int64_t n = shown_.sizes[d];
    std::vector<std::string> parts;
    if (d + 1 == ndim) {
      // _vector_str: " ..." counts as one element of a line.
      for (int64_t i = 0; i < head_end; ++i) parts.push_back(items_[next_++]);
      if (summarized) parts.push_back(" ...");
      for (int64_t i = tail_begin; i < n; ++i) parts.push_back(items_[next_++]);
      int64_t element_length = width_ + 2;
      int64_t per_line = std::max<int64_t>(
          1, static_cast<int64_t>(std::floor(static_cast<double>(opts_.linewidth - indent) /
                                             static_cast<double>(element_length))));
      std::vector<std::string> lines;
      for (size_t i = 0; i < parts.size(); i += per_line) {
        size_t end = std::min(parts.size(), i + static_cast<size_t>(per_line));
        lines.push_back(absl::StrJoin(parts.begin() + i, parts.begin() + end, ", "));
      }
      return absl::StrCat(
          "[", absl::StrJoin(lines, absl::StrCat(",\n", std::string(indent + 1, ' '))), "]");
    }
    for (int64_t i = 0; i < head_end; ++i) parts.push_back(str(d + 1, indent + 1));
    if (summarized) parts.push_back("...");
    for (int64_t i = tail_begin; i < n; ++i) parts.push_back(str(d + 1, indent + 1));
    std::string sep =
        absl::StrCat(",", std::string(ndim - d - 1, '\n'), std::string(indent + 1, ' '));
    return absl::StrCat("[", absl::StrJoin(parts, sep), "]");
  }

 private:
  const Shown& shown_;
  const std::vector<std::string>& items_;
  int64_t width_;
  const PrintOptions& opts_;
  size_t next_ = 0;
};

// _tensor_str: the bracketed values of a CPU tensor.
std::string values_str(const Tensor& t, const QuantParams& q, int64_t indent,
                       const PrintOptions& opts) {
  if (t.numel() == 0) return "[]";
  Shown shown{t.sizes(), t.strides(), static_cast<double>(t.numel()) > opts.threshold,
              opts.edgeitems};
  std::vector<int64_t> offsets;
  shown.collect(0, 0, &offsets);
  Values values = read_values(t, q, offsets);
  Formatter formatter(values, opts);
  std::vector<std::string> items;
  items.reserve(offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k) items.push_back(formatter.format(k));
  Printer printer(shown, items, formatter.width(), opts);
  return printer.str(0, indent);
}

// str(tuple(shape)): "(2, 3)", "(3,)", "()".
std::string shape_tuple(IntArrayRef sizes) {
  if (sizes.size() == 1) return absl::StrCat("(", sizes[0], ",)");
  return absl::StrCat("(", absl::StrJoin(sizes, ", "), ")");
}

std::string dtype_str(ScalarType t) { return absl::StrCat("torch.", dtype_name(t)); }

// _add_suffixes.
std::string add_suffixes(const std::string& tensor_str, const std::vector<std::string>& suffixes,
                         int64_t indent, const PrintOptions& opts) {
  std::string out = tensor_str;
  size_t nl = tensor_str.rfind('\n');
  int64_t rfind = nl == std::string::npos ? -1 : static_cast<int64_t>(nl);
  int64_t last_line_len = static_cast<int64_t>(tensor_str.size()) - rfind + 1;
  for (const std::string& suffix : suffixes) {
    int64_t suffix_len = static_cast<int64_t>(suffix.size());
    if (last_line_len + suffix_len + 2 > opts.linewidth) {
      absl::StrAppend(&out, ",\n", std::string(indent, ' '), suffix);
      last_line_len = indent + suffix_len;
    } else {
      absl::StrAppend(&out, ", ", suffix);
      last_line_len += suffix_len + 2;
    }
  }
  out += ')';
  return out;
}

}  // namespace

// --- options ----------------------------------------------------------------------

void set_printoptions(std::optional<int64_t> precision, std::optional<double> threshold,
                      std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                      std::optional<bool> sci_mode) {
  std::lock_guard<std::mutex> lock(options_mutex());
  PrintOptions& o = options_storage();
  if (precision) o.precision = *precision;
  if (threshold) o.threshold = *threshold;
  if (edgeitems) o.edgeitems = *edgeitems;
  if (linewidth) o.linewidth = *linewidth;
  o.sci_mode = sci_mode;
}

void set_printoptions(const PrintOptions& options) {
  std::lock_guard<std::mutex> lock(options_mutex());
  options_storage() = options;
}

void set_printoptions_profile(const std::string& profile) {
  PrintOptions o;
  if (profile == "short") {
    o.precision = 2;
    o.edgeitems = 2;
  } else if (profile == "full") {
    o.threshold = std::numeric_limits<double>::infinity();
  } else {
    EMBER_CHECK_VALUE(profile == "default", "Unknown print profile '", profile,
                      "': expected 'default', 'short' or 'full'");
  }
  set_printoptions(o);
}

void reset_printoptions() { set_printoptions(PrintOptions()); }

PrintOptions get_printoptions() {
  std::lock_guard<std::mutex> lock(options_mutex());
  return options_storage();
}

std::string size_repr(IntArrayRef sizes) {
  std::string s = "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "])";
}

std::string python_float_repr(double v) {
  std::string s;
  if (format_nonfinite(v, &s)) return s;
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The fewest significant digits that read back as v (repr's 'r' mode).
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string sci(buf);
  bool negative = sci[0] == '-';
  size_t e_pos = sci.find('e');
  int exponent = std::atoi(sci.c_str() + e_pos + 1);
  std::string mantissa;
  for (size_t k = negative ? 1 : 0; k < e_pos; ++k) {
    if (sci[k] != '.') mantissa += sci[k];
  }
  while (mantissa.size() > 1 && mantissa.back() == '0') mantissa.pop_back();

  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      absl::StrAppend(&out, "0.", std::string(-exponent - 1, '0'), mantissa);
    } else {
      size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (mantissa.size() <= int_digits) {
        absl::StrAppend(&out, mantissa, std::string(int_digits - mantissa.size(), '0'), ".0");
      } else {
        absl::StrAppend(&out, mantissa.substr(0, int_digits), ".", mantissa.substr(int_digits));
      }
    }
  } else {
    out += mantissa[0];
    if (mantissa.size() > 1) absl::StrAppend(&out, ".", mantissa.substr(1));
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    out += exp_buf;
  }
  return out;
}

// _str_intern for strided tensors (dense, quantized, any device).
std::string Tensor::toString() const {
  if (!defined()) return "[ Tensor (undefined) ]";
  const PrintOptions opts = get_printoptions();
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;

  // Note [Print tensor device]: the device is shown when it is not the
  // default (CPU) one; the values are read from a CPU copy.
  if (!is_cpu()) suffixes.push_back(absl::StrCat("device='", device().str(), "'"));
  const Tensor cpu_self = is_cpu() ? *this : to(Device(kCPU));
  const QuantParams& q = impl()->quant_params();

  const ScalarType default_dtype = get_default_dtype();
  const bool has_default_dtype = dtype() == default_dtype || dtype() == kLong || dtype() == kBool;
  std::string tensor_str;
  if (is_quantized()) {
    suffixes.push_back("size=" + shape_tuple(sizes()));
    if (!has_default_dtype) suffixes.push_back("dtype=" + dtype_str(dtype()));
    suffixes.push_back("quantization_scheme=torch.per_tensor_affine");
    suffixes.push_back("scale=" + python_float_repr(q.scale));
    suffixes.push_back(absl::StrCat("zero_point=", q.zero_point));
    tensor_str = values_str(cpu_self, q, indent, opts);
  } else if (numel() == 0) {
    // NumPy-style: the shape is spelled out unless it is (0,), and the dtype
    // always unless it is the default one (nothing else shows it).
    if (dim() != 1) suffixes.push_back("size=" + shape_tuple(sizes()));
    if (dtype() != default_dtype) suffixes.push_back("dtype=" + dtype_str(dtype()));
    tensor_str = "[]";
  } else {
    if (!has_default_dtype) suffixes.push_back("dtype=" + dtype_str(dtype()));
    tensor_str = values_str(cpu_self, q, indent, opts);
  }

  if (const AutogradMetaInterface* meta = impl()->autograd_meta()) {
    std::string grad_fn = meta->grad_fn_name();
    if (!grad_fn.empty()) {
      suffixes.push_back(absl::StrCat("grad_fn=<", grad_fn, ">"));
    } else if (meta->requires_grad()) {
      suffixes.push_back("requires_grad=True");
    }
  }
  return add_suffixes(prefix + tensor_str, suffixes, indent, opts);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.toString(); }

}  // namespace ember
