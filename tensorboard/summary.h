#ifndef EMBER_TENSORBOARD_SUMMARY_H_
#define EMBER_TENSORBOARD_SUMMARY_H_

// The Summary messages of a TensorBoard event file, serialized as PyTorch's
// torch.utils.tensorboard.summary builds them (field numbers from
// tensorboard's event.proto, summary.proto, tensor.proto and the text,
// pr_curve and hparams plugins' protos). SummaryWriter (summary_writer.h)
// calls these; they are public for tests and for callers who frame their
// own files.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace tensorboard {

// ---- Summary (summary.proto).

// add_scalar: Value{tag, simple_value} (PyTorch's default, new_style=False).
std::string scalar_summary(const std::string& tag, float value);

// add_histogram's bins: "tensorflow" (the default: TensorBoard's bucket
// limits, SummaryWriter.default_bins: 0 and +-1e-12 * 1.1^k up to 1e20), a
// number of equal bins between the smallest and the largest value
// (np.histogram's bins=N), or explicit increasing bin edges. numpy's
// estimators ("auto", "fd", ...) are not offered.
class HistogramBins {
 public:
  HistogramBins(const char* name) : HistogramBins(std::string(name)) {}  // NOLINT
  HistogramBins(const std::string& name);                                // NOLINT
  HistogramBins(int count) : HistogramBins(static_cast<int64_t>(count)) {}  // NOLINT
  HistogramBins(int64_t count);                                           // NOLINT
  HistogramBins(std::vector<double> edges);                               // NOLINT
  HistogramBins(std::initializer_list<double> edges)                      // NOLINT
      : HistogramBins(std::vector<double>(edges)) {}

  // The bin edges for `values` (numpy's linspace over their range for a
  // count); throws ValueError as np.histogram does.
  std::vector<double> edges(const std::vector<double>& values) const;

 private:
  enum class Kind { kTensorflow, kCount, kEdges };
  Kind kind_ = Kind::kTensorflow;
  int64_t count_ = 0;
  std::vector<double> edges_;
};

// SummaryWriter.default_bins: -1e20.. -1e-12, 0, 1e-12 .. 1e20 (1549 edges).
const std::vector<double>& default_histogram_bins();

// HistogramProto: min 1, max 2, num 3, sum 4, sum_squares 5, bucket_limit
// 6, bucket 7.
struct Histogram {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit;  // right edges
  std::vector<double> bucket;        // counts
};

// PyTorch's make_histogram: np.histogram(values, bins=edges) (bins closed
// on the left, the last on both sides; values outside are not counted),
// at most max_bins bins by summing neighbours, then trimmed to the bins
// from the first to the last non-empty one, with one empty bin in front
// (TensorBoard reads only right edges). ValueError for no values or an
// empty histogram, as PyTorch.
Histogram make_histogram(const std::vector<double>& values, const std::vector<double>& edges,
                         std::optional<int64_t> max_bins = std::nullopt);
// The same for a tensor's values (any dtype or device), with `bins`
// resolved for them.
Histogram make_histogram(const Tensor& values, const HistogramBins& bins = "tensorflow",
                         std::optional<int64_t> max_bins = std::nullopt);
std::string histogram_summary(const std::string& tag, const Histogram& histogram);

// An image as TensorBoard gets it: height x width x channels bytes (3: RGB,
// 4: RGBA), row-major.
struct Image {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

// PyTorch's summary.image before PNG: the tensor in `dataformats` (CHW,
// HWC, HW, NCHW, NHWC... any order of those letters, case-insensitive) to
// height x width x channels; 4-d batches laid out by make_grid (8 columns,
// no padding), one channel repeated into three, uint8 kept as is and any
// other dtype scaled by 255 in float32, clipped to [0, 255] and truncated.
// Errors are PyTorch's (a repeated letter, a size mismatch) and ValueError
// for what PIL would refuse (2 or more than 4 channels, an empty image).
Image to_hwc_image(const Tensor& tensor, const std::string& dataformats);

// A PNG of `image` (libpng; 8-bit RGB or RGBA).
std::string encode_png(const Image& image);

// Value{tag, image{height 1, width 2, colorspace 3, encoded_image_string 4}}.
std::string image_summary(const std::string& tag, const Image& image);

// add_text: Value{tag + "/text_summary", a DT_STRING tensor of shape [1],
// metadata plugin "text"}.
std::string text_summary(const std::string& tag, const std::string& text);

// A hyperparameter: a number, a string or a bool. Bools are written as the
// numbers 1 and 0, as PyTorch writes them (it tests for int, which bool is,
// before bool); they keep their kind for hparam_domain_discrete's check.
class HParamValue {
 public:
  enum class Kind { kNumber, kString, kBool };
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                                         int> = 0>
  HParamValue(T v) : kind_(Kind::kNumber), number_(static_cast<double>(v)) {}  // NOLINT
  HParamValue(bool v) : kind_(Kind::kBool), number_(v ? 1 : 0) {}             // NOLINT
  HParamValue(const char* v) : kind_(Kind::kString), string_(v) {}            // NOLINT
  HParamValue(std::string v) : kind_(Kind::kString), string_(std::move(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  double number() const { return number_; }
  const std::string& string() const { return string_; }

 private:
  Kind kind_;
  double number_ = 0;
  std::string string_;
};

// Ordered as given, as a Python dict.
using HParamDict = std::vector<std::pair<std::string, HParamValue>>;
using MetricDict = std::vector<std::pair<std::string, double>>;
using HParamDomains = std::map<std::string, std::vector<HParamValue>>;

// The three summaries of PyTorch's summary.hparams (plugin "hparams"):
// the experiment (tag _hparams_/experiment: each hparam's name, type and
// discrete domain, each metric's tag), the session start (the values) and
// the session end (STATUS_SUCCESS). TypeError for a domain whose key is not
// an hparam or whose values are not of the hparam's kind.
struct HParamsSummaries {
  std::string experiment, session_start, session_end;
};
HParamsSummaries hparams_summaries(const HParamDict& hparams, const MetricDict& metrics,
                                   const HParamDomains& domain_discrete = {});

// PyTorch's compute_curve: a 6 x num_thresholds row-major table of true
// positives, false positives, true negatives, false negatives, precision
// and recall, predictions in [0, 1] bucketed by floor(p * (n - 1)).
// `weights` undefined: 1 for every example.
std::vector<double> compute_pr_curve(const Tensor& labels, const Tensor& predictions,
                                     int64_t num_thresholds, const Tensor& weights = Tensor());
// Value{tag, tensor (DT_FLOAT, [6, n]), metadata plugin "pr_curves" with
// PrCurvePluginData{num_thresholds}}. num_thresholds is capped at 127, as
// PyTorch caps it.
std::string pr_curve_summary(const std::string& tag, const Tensor& labels,
                             const Tensor& predictions, int64_t num_thresholds = 127,
                             const Tensor& weights = Tensor());

}  // namespace tensorboard
}  // namespace ember

#endif  // EMBER_TENSORBOARD_SUMMARY_H_
