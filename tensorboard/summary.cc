#include "tensorboard/summary.h"

#include <png.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/error.h"
#include "tensorboard/proto_encoder.h"

namespace ember {
namespace tensorboard {

namespace {

constexpr Presence kExplicit = Presence::kExplicit;

// Field numbers used in more than one place. Summary (summary.proto) and Summary.Value:
constexpr int kSummaryValue = 1;
constexpr int kValueTag = 1, kValueSimpleValue = 2, kValueImage = 4, kValueHisto = 5,
              kValueTensor = 8, kValueMetadata = 9;
// SummaryMetadata and its PluginData:
constexpr int kMetadataPluginData = 1, kPluginName = 1, kPluginContent = 2;
// TensorProto (tensor.proto), TensorShapeProto (tensor_shape.proto) and
// DataType (types.proto):
constexpr int kTensorDtype = 1, kTensorShape = 2, kTensorFloatVal = 5, kTensorStringVal = 8;
constexpr int kShapeDim = 2, kDimSize = 1;
constexpr int kDtFloat = 1, kDtString = 7;

// SummaryMetadata{plugin_data{plugin_name, content}}.
void add_plugin_metadata(ProtoEncoder& value, const std::string& plugin, const std::string& content) {
  value.add_message(kValueMetadata, [&](ProtoEncoder& metadata) {
    metadata.add_message(kMetadataPluginData, [&](ProtoEncoder& data) {
      data.add_bytes(kPluginName, plugin);
      data.add_bytes(kPluginContent, content);
    });
  });
}

// Summary{value{...}} with one value.
template <typename Fill>
std::string one_value_summary(Fill&& fill) {
  std::string out;
  ProtoEncoder(&out).add_message(kSummaryValue, fill);
  return out;
}

// TensorShapeProto{dim{size}...}.
void add_shape(ProtoEncoder& tensor, std::initializer_list<int64_t> dims) {
  tensor.add_message(kTensorShape, [&](ProtoEncoder& shape) {
    for (int64_t d : dims) {
      shape.add_message(kShapeDim, [&](ProtoEncoder& dim) { dim.add_varint(kDimSize, d); });
    }
  });
}

// A tensor's values as doubles (any device, dtype or layout).
std::vector<double> to_doubles(const Tensor& t) {
  Tensor c = t.detach().cpu().to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// The shape as numpy prints it: (3, 4), (3,).
std::string numpy_shape(const Tensor& t) {
  if (t.dim() == 1) return absl::StrCat("(", t.sizes()[0], ",)");
  return absl::StrCat("(", absl::StrJoin(t.sizes(), ", "), ")");
}

// np.linspace(start, stop, num) (endpoint included), computed as numpy
// computes it: start + i * step, the last value set to stop.
std::vector<double> linspace(double start, double stop, int64_t num) {
  std::vector<double> y(num);
  const double div = static_cast<double>(num - 1);
  const double delta = stop - start;
  const double step = delta / div;
  for (int64_t i = 0; i < num; ++i) {
    y[i] = step == 0 ? static_cast<double>(i) / div * delta + start
                     : static_cast<double>(i) * step + start;
  }
  if (num > 1) y[num - 1] = stop;
  return y;
}

// The bin of `v` among increasing `edges`, as np.histogram bins: [e_i,
// e_i+1), the last bin [e_n-1, e_n]; -1 outside (and for NaN).
int64_t bin_of(const std::vector<double>& edges, double v) {
  if (!(v >= edges.front() && v <= edges.back())) return -1;
  if (v == edges.back()) return static_cast<int64_t>(edges.size()) - 2;
  return (std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
}

// v[a:b] with Python's clipping.
std::vector<double> py_slice(const std::vector<double>& v, int64_t a, int64_t b) {
  const int64_t n = static_cast<int64_t>(v.size());
  a = std::min(std::max<int64_t>(a, 0), n);
  b = std::min(std::max<int64_t>(b, 0), n);
  if (a >= b) return {};
  return std::vector<double>(v.begin() + a, v.begin() + b);
}

uint8_t to_pixel(float v) {
  const float scaled = v * 255.0f;
  if (!(scaled > 0)) return 0;  // negative or NaN
  if (scaled >= 255) return 255;
  return static_cast<uint8_t>(scaled);  // truncated, as numpy's astype(uint8)
}

}  // namespace

// ---------------------------------------------------------------------------
// Scalars.

std::string scalar_summary(const std::string& tag, float value) {
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, tag);
    v.add_float(kValueSimpleValue, value, kExplicit);
  });
}

// ---------------------------------------------------------------------------
// Histograms.

const std::vector<double>& default_histogram_bins() {
  static const std::vector<double>* bins = [] {
    std::vector<double> pos;
    for (double v = 1e-12; v < 1e20; v *= 1.1) pos.push_back(v);
    auto* all = new std::vector<double>();
    for (auto it = pos.rbegin(); it != pos.rend(); ++it) all->push_back(-*it);
    all->push_back(0);
    all->insert(all->end(), pos.begin(), pos.end());
    return all;
  }();
  return *bins;
}

HistogramBins::HistogramBins(const std::string& name) {
  EMBER_CHECK_VALUE(name == "tensorflow", "bins='", name,
                    "' is not supported: use 'tensorflow' (the default), a number of bins or "
                    "the bin edges");
  kind_ = Kind::kTensorflow;
}

HistogramBins::HistogramBins(int64_t count) : kind_(Kind::kCount), count_(count) {
  EMBER_CHECK_VALUE(count > 0, "`bins` must be positive, when an integer");
}

HistogramBins::HistogramBins(std::vector<double> edges)
    : kind_(Kind::kEdges), edges_(std::move(edges)) {
  EMBER_CHECK_VALUE(edges_.size() >= 2, "`bins` must hold at least two edges, got ",
                    edges_.size());
  for (size_t i = 1; i < edges_.size(); ++i) {
    EMBER_CHECK_VALUE(edges_[i - 1] <= edges_[i], "`bins` must increase monotonically, when an array");
  }
}

std::vector<double> HistogramBins::edges(const std::vector<double>& values) const {
  switch (kind_) {
    case Kind::kTensorflow:
      return default_histogram_bins();
    case Kind::kEdges:
      return edges_;
    case Kind::kCount:
      break;
  }
  // np.histogram's range for a count: the values' own, widened by 0.5 on
  // each side when it is a single point.
  EMBER_CHECK_VALUE(!values.empty(), "The input has no element.");
  double first = values[0], last = values[0];
  for (double v : values) {
    if (std::isnan(v)) {
      first = last = v;
      break;
    }
    first = std::min(first, v);
    last = std::max(last, v);
  }
  EMBER_CHECK_VALUE(std::isfinite(first) && std::isfinite(last), "autodetected range of [",
                    first, ", ", last, "] is not finite");
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  return linspace(first, last, count_ + 1);
}

Histogram make_histogram(const std::vector<double>& values, const std::vector<double>& edges,
                         std::optional<int64_t> max_bins) {
  EMBER_CHECK_VALUE(!values.empty(), "The input has no element.");
  EMBER_CHECK_VALUE(edges.size() >= 2, "a histogram needs at least two bin edges");
  std::vector<double> counts(edges.size() - 1, 0.0);
  std::vector<double> limits = edges;
  Histogram h;
  h.min = h.max = values[0];
  for (double v : values) {
    const int64_t b = bin_of(edges, v);
    if (b >= 0) counts[b] += 1;
    // numpy's min and max propagate NaN.
    if (std::isnan(v) || std::isnan(h.min)) {
      h.min = h.max = std::numeric_limits<double>::quiet_NaN();
    } else {
      h.min = std::min(h.min, v);
      h.max = std::max(h.max, v);
    }
    h.sum += v;
    h.sum_squares += v * v;
  }
  h.num = static_cast<double>(values.size());

  const int64_t num_bins = static_cast<int64_t>(counts.size());
  if (max_bins.has_value() && num_bins > *max_bins) {
    EMBER_CHECK_VALUE(*max_bins > 0, "max_bins must be positive, got ", *max_bins);
    // Neighbours summed in groups of `sub`, the last group padded with
    // empty bins; the left edge of each group kept, and the last edge.
    const int64_t sub = num_bins / *max_bins;
    const int64_t groups = (num_bins + sub - 1) / sub;
    std::vector<double> c(groups, 0.0), l(groups + 1);
    for (int64_t i = 0; i < num_bins; ++i) c[i / sub] += counts[i];
    for (int64_t g = 0; g < groups; ++g) l[g] = limits[g * sub];
    l[groups] = limits.back();
    counts = std::move(c);
    limits = std::move(l);
  }

  // The support: from the first to the last non-empty bin (numpy's
  // searchsorted over the cumulative count of non-empty bins, kept as is
  // for the case of no non-empty bin).
  const int64_t n = static_cast<int64_t>(counts.size());
  int64_t start = n, last_nonzero = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (counts[i] > 0) {
      if (start == n) start = i;
      last_nonzero = i;
    }
  }
  const int64_t end = (last_nonzero >= 0 ? last_nonzero : 0) + 1;
  if (start > 0) {
    h.bucket = py_slice(counts, start - 1, end);
  } else {
    h.bucket = py_slice(counts, 0, end);
    h.bucket.insert(h.bucket.begin(), 0.0);
  }
  h.bucket_limit = py_slice(limits, start, end + 1);
  EMBER_CHECK_VALUE(!h.bucket.empty() && !h.bucket_limit.empty(),
                    "The histogram is empty, please file a bug report.");
  return h;
}

Histogram make_histogram(const Tensor& values, const HistogramBins& bins,
                         std::optional<int64_t> max_bins) {
  const std::vector<double> v = to_doubles(values);
  EMBER_CHECK_VALUE(!v.empty(), "The input has no element.");
  return make_histogram(v, bins.edges(v), max_bins);
}

std::string histogram_summary(const std::string& tag, const Histogram& h) {
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, tag);
    v.add_message(kValueHisto, [&](ProtoEncoder& p) {
      p.add_double(1, h.min);
      p.add_double(2, h.max);
      p.add_double(3, h.num);
      p.add_double(4, h.sum);
      p.add_double(5, h.sum_squares);
      p.add_packed_doubles(6, h.bucket_limit);
      p.add_packed_doubles(7, h.bucket);
    });
  });
}

// ---------------------------------------------------------------------------
// Images.

Image to_hwc_image(const Tensor& tensor, const std::string& dataformats) {
  std::string fmt(dataformats);
  for (char& ch : fmt) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string sorted = fmt;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw Error(absl::StrCat("You can not use the same dimension shordhand twice. input_format: ",
                             dataformats));
  }
  EMBER_CHECK(tensor.dim() == static_cast<int64_t>(fmt.size()),
              "size of input tensor and input format are different. tensor shape: ",
              numpy_shape(tensor), ", input_format: ", dataformats);
  // The order the pixels are read in: NCHW for batches, else HWC / HW.
  const std::string target = fmt.size() == 4 ? "NCHW" : fmt.size() == 3 ? "HWC" : "HW";
  std::string letters = target;
  std::sort(letters.begin(), letters.end());
  EMBER_CHECK_VALUE(fmt.size() >= 2 && fmt.size() <= 4 && sorted == letters, "dataformats '",
                    dataformats, "' must be an order of HW, HWC or NCHW");
  std::vector<int64_t> order;
  for (char ch : target) order.push_back(static_cast<int64_t>(fmt.find(ch)));

  Tensor t = tensor.detach().cpu();
  // uint8 as is; anything else as float32 scaled by 255 (_calc_scale_factor).
  const bool as_is = t.dtype() == kByte;
  t = t.to(as_is ? kByte : kFloat).permute(order).contiguous();
  const int64_t n = fmt.size() == 4 ? t.sizes()[0] : 1;
  const int64_t c = fmt.size() == 4 ? t.sizes()[1] : fmt.size() == 3 ? t.sizes()[2] : 1;
  const int64_t h = t.sizes()[fmt.size() == 4 ? 2 : 0];
  const int64_t w = t.sizes()[fmt.size() == 4 ? 3 : 1];
  EMBER_CHECK_VALUE(n > 0 && h > 0 && w > 0, "cannot make an image of a tensor of shape ",
                    numpy_shape(tensor), ": it has no pixels");
  EMBER_CHECK_VALUE(c == 1 || c == 3 || c == 4, "an image has 1, 3 or 4 channels, got ", c,
                    " (tensor shape ", numpy_shape(tensor), ", dataformats ", dataformats, ")");
  std::vector<uint8_t> src(t.numel());
  if (as_is) {
    std::memcpy(src.data(), t.data_ptr<uint8_t>(), src.size());
  } else {
    const float* p = t.data_ptr<float>();
    for (size_t i = 0; i < src.size(); ++i) src[i] = to_pixel(p[i]);
  }

  // make_grid: up to 8 images a row, rows as needed, the rest left black.
  const int64_t cols = std::min<int64_t>(n, 8), rows = (n + cols - 1) / cols;
  Image img;
  img.channels = c == 1 ? 3 : c;
  img.height = h * rows;
  img.width = w * cols;
  img.pixels.assign(img.height * img.width * img.channels, 0);
  const bool planar = fmt.size() == 4;  // NCHW; otherwise HWC with c channels
  for (int64_t i = 0; i < n; ++i) {
    const int64_t y0 = (i / cols) * h, x0 = (i % cols) * w;
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        uint8_t* out = &img.pixels[((y0 + y) * img.width + x0 + x) * img.channels];
        for (int64_t k = 0; k < img.channels; ++k) {
          const int64_t ch = c == 1 ? 0 : k;
          out[k] = planar ? src[((i * c + ch) * h + y) * w + x] : src[(y * w + x) * c + ch];
        }
      }
    }
  }
  return img;
}

std::string encode_png(const Image& img) {
  EMBER_CHECK_VALUE(img.channels == 3 || img.channels == 4, "a PNG here is RGB or RGBA, got ",
                    img.channels, " channels");
  EMBER_CHECK_VALUE(img.height > 0 && img.width > 0 && img.height <= (1 << 24) &&
                        img.width * img.channels <= std::numeric_limits<int32_t>::max(),
                    "cannot encode a ", img.height, " x ", img.width, " image as PNG");
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(img.width);
  image.height = static_cast<png_uint_32>(img.height);
  image.format = img.channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  std::string out;
  // The first call measures, the second writes.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) out.resize(size);
    if (!png_image_write_to_memory(&image, pass == 0 ? nullptr : out.data(), &size,
                                   /*convert_to_8bit=*/0, img.pixels.data(), /*row_stride=*/0,
                                   /*colormap=*/nullptr)) {
      const std::string message = image.message;
      png_image_free(&image);
      throw Error(absl::StrCat("PNG encoding failed: ", message));
    }
  }
  out.resize(size);
  return out;
}

std::string image_summary(const std::string& tag, const Image& img) {
  const std::string png = encode_png(img);
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, tag);
    v.add_message(kValueImage, [&](ProtoEncoder& i) {
      i.add_varint(1, img.height);
      i.add_varint(2, img.width);
      i.add_varint(3, img.channels);
      i.add_bytes(4, png);
    });
  });
}

// ---------------------------------------------------------------------------
// Text.

std::string text_summary(const std::string& tag, const std::string& text) {
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, absl::StrCat(tag, "/text_summary"));
    v.add_message(kValueTensor, [&](ProtoEncoder& t) {
      t.add_varint(kTensorDtype, kDtString);
      add_shape(t, {1});
      t.add_bytes(kTensorStringVal, text, kExplicit);
    });
    // TextPluginData{version: 0} serializes to nothing.
    add_plugin_metadata(v, "text", "");
  });
}

// ---------------------------------------------------------------------------
// Hyperparameters (the hparams plugin's plugin_data.proto and api.proto,
// google.protobuf.Value / ListValue from struct.proto).

namespace {

// google.protobuf.Value{number_value 2 | string_value 3}.
void add_struct_value(ProtoEncoder& e, int field, const HParamValue& v) {
  e.add_message(field, [&](ProtoEncoder& value) {
    if (v.kind() == HParamValue::Kind::kString) {
      value.add_bytes(3, v.string(), kExplicit);
    } else {
      value.add_double(2, v.number(), kExplicit);
    }
  });
}

// Summary{value{tag, metadata{plugin "hparams", HParamsPluginData{version 0,
// <field>: data}}}}.
std::string hparams_summary(const std::string& tag, int field, const std::string& data) {
  std::string content;
  ProtoEncoder(&content).add_message(field, data);
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, tag);
    add_plugin_metadata(v, "hparams", content);
  });
}

}  // namespace

HParamsSummaries hparams_summaries(const HParamDict& hparams, const MetricDict& metrics,
                                   const HParamDomains& domain_discrete) {
  for (const auto& [key, values] : domain_discrete) {
    auto it = std::find_if(hparams.begin(), hparams.end(),
                           [&](const auto& kv) { return kv.first == key; });
    const bool ok = it != hparams.end() &&
                    std::all_of(values.begin(), values.end(), [&](const HParamValue& d) {
                      return d.kind() == it->second.kind();
                    });
    EMBER_CHECK_TYPE(ok, "parameter: hparam_domain_discrete[", key,
                     "] should be a list of same type as hparam_dict[", key, "].");
  }
  constexpr int kStringType = 1, kFloat64Type = 3, kStatusSuccess = 1;
  std::string experiment, start, end;
  ProtoEncoder exp(&experiment), ssi(&start);
  for (const auto& [name, value] : hparams) {
    // SessionStartInfo.hparams (1): map entries {key 1, value 2}.
    ssi.add_message(1, [&](ProtoEncoder& entry) {
      entry.add_bytes(1, name, kExplicit);
      add_struct_value(entry, 2, value);
    });
    // Experiment.hparam_infos (4): HParamInfo{name 1, type 4, domain_discrete 5}.
    exp.add_message(4, [&](ProtoEncoder& info) {
      info.add_bytes(1, name);
      info.add_varint(4, value.kind() == HParamValue::Kind::kString ? kStringType : kFloat64Type);
      auto domain = domain_discrete.find(name);
      if (domain != domain_discrete.end()) {
        info.add_message(5, [&](ProtoEncoder& list) {
          for (const HParamValue& d : domain->second) add_struct_value(list, 1, d);
        });
      }
    });
  }
  // Experiment.metric_infos (5): MetricInfo{name 1: MetricName{tag 2}}.
  for (const auto& metric : metrics) {
    exp.add_message(5, [&](ProtoEncoder& info) {
      info.add_message(1, [&](ProtoEncoder& name) { name.add_bytes(2, metric.first); });
    });
  }
  // SessionEndInfo{status 1}.
  ProtoEncoder(&end).add_varint(1, kStatusSuccess);
  // HParamsPluginData: experiment 2, session_start_info 3, session_end_info 4.
  return {hparams_summary("_hparams_/experiment", 2, experiment),
          hparams_summary("_hparams_/session_start_info", 3, start),
          hparams_summary("_hparams_/session_end_info", 4, end)};
}

// ---------------------------------------------------------------------------
// PR curves.

std::vector<double> compute_pr_curve(const Tensor& labels, const Tensor& predictions,
                                     int64_t num_thresholds, const Tensor& weights) {
  EMBER_CHECK_VALUE(num_thresholds >= 2, "num_thresholds must be at least 2, got ",
                    num_thresholds);
  EMBER_CHECK_VALUE(labels.numel() == predictions.numel(), "labels (", labels.numel(),
                    " elements) and predictions (", predictions.numel(),
                    " elements) must have the same size");
  EMBER_CHECK_VALUE(!weights.defined() || weights.numel() == predictions.numel() ||
                        weights.numel() == 1,
                    "weights must have one element or as many as predictions");
  const int64_t n = num_thresholds;
  const std::vector<double> label = to_doubles(labels);
  const std::vector<double> pred = to_doubles(predictions);
  const std::vector<double> weight = weights.defined() ? to_doubles(weights) : std::vector<double>{1.0};
  // np.floor(predictions * (n - 1)) runs in float32 for float32 predictions.
  const bool single = predictions.dtype() == kFloat;
  // np.histogram(bins=n, range=(0, n - 1)) of the bucket indices, weighted,
  // summed block by block as numpy's bincount does (65536 at a time).
  const std::vector<double> edges = linspace(0, static_cast<double>(n - 1), n + 1);
  std::vector<double> tp_b(n, 0.0), fp_b(n, 0.0);
  constexpr size_t kBlock = 65536;
  for (size_t b0 = 0; b0 < pred.size(); b0 += kBlock) {
    std::vector<double> tp_blk(n, 0.0), fp_blk(n, 0.0);
    for (size_t i = b0; i < std::min(pred.size(), b0 + kBlock); ++i) {
      const double scaled =
          single ? std::floor(static_cast<float>(pred[i]) * static_cast<float>(n - 1))
                 : std::floor(pred[i] * static_cast<double>(n - 1));
      if (!(scaled >= 0 && scaled <= static_cast<double>(n - 1))) continue;
      const int64_t bin = bin_of(edges, scaled);
      const double w = weight.size() == 1 ? weight[0] : weight[i];
      tp_blk[bin] += label[i] * w;
      fp_blk[bin] += (1.0 - label[i]) * w;
    }
    for (int64_t k = 0; k < n; ++k) {
      tp_b[k] += tp_blk[k];
      fp_b[k] += fp_blk[k];
    }
  }
  // Reverse cumulative sums, then the rest follows from them.
  std::vector<double> tp(n), fp(n);
  double acc_tp = 0, acc_fp = 0;
  for (int64_t k = n - 1; k >= 0; --k) {
    tp[k] = acc_tp += tp_b[k];
    fp[k] = acc_fp += fp_b[k];
  }
  constexpr double kMinimumCount = 1e-7;
  std::vector<double> table(6 * n);
  for (int64_t k = 0; k < n; ++k) {
    const double tn = fp[0] - fp[k], fn = tp[0] - tp[k];
    table[k] = tp[k];
    table[n + k] = fp[k];
    table[2 * n + k] = tn;
    table[3 * n + k] = fn;
    table[4 * n + k] = tp[k] / std::max(kMinimumCount, tp[k] + fp[k]);
    table[5 * n + k] = tp[k] / std::max(kMinimumCount, tp[k] + fn);
  }
  return table;
}

std::string pr_curve_summary(const std::string& tag, const Tensor& labels, const Tensor& predictions,
                             int64_t num_thresholds, const Tensor& weights) {
  const int64_t n = std::min<int64_t>(num_thresholds, 127);
  const std::vector<double> table = compute_pr_curve(labels, predictions, n, weights);
  const std::vector<float> values(table.begin(), table.end());
  // PrCurvePluginData{version 1: 0, num_thresholds 2}.
  std::string content;
  ProtoEncoder(&content).add_varint(2, n);
  return one_value_summary([&](ProtoEncoder& v) {
    v.add_bytes(kValueTag, tag);
    v.add_message(kValueTensor, [&](ProtoEncoder& t) {
      t.add_varint(kTensorDtype, kDtFloat);
      add_shape(t, {6, n});
      t.add_packed_floats(kTensorFloatVal, values);
    });
    add_plugin_metadata(v, "pr_curves", content);
  });
}

}  // namespace tensorboard
}  // namespace ember
