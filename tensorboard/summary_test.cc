// The Summary messages against PyTorch 1.13's summary.py on the same inputs
// (tools/golden/tensorboard.py): histogram bins, counting and trimming,
// image conversion, make_grid and the PNG's pixels, PR curves; and the
// field layout of each message, decoded by the test-only reader.
#include "tensorboard/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/testing/golden.h"
#include "tensorboard/event_file.h"
#include "tensorboard/testing/event_reader.h"

namespace ember {
namespace tensorboard {
namespace {

using ember::testing::find_golden;
using ember::testing::golden_tensor;
using ember::testing::GoldenEntry;
using testing::WireMessage;

const GoldenEntry kGolden[] = {
#include "tensorboard/testdata/tensorboard_golden.inc"
};

const std::vector<double>& golden(const std::string& name) {
  return find_golden(kGolden, name).values;
}

// The one Value of a serialized Summary, as the test-only reader sees it.
testing::Value only_value(const std::string& summary) {
  const testing::Event e = testing::decode_event(summary_event(1, 0, summary));
  EXPECT_TRUE(e.summary.has_value());
  EXPECT_EQ(e.summary->size(), 1u);
  return e.summary->at(0);
}

TEST(HistogramTest, DefaultBinsArePyTorchs) {
  EXPECT_EQ(default_histogram_bins(), golden("default_bins"));
  EXPECT_EQ(default_histogram_bins().size(), 1549u);
}

struct HistogramCase {
  const char* name;
  HistogramBins bins;
  std::optional<int64_t> max_bins;
};

TEST(HistogramTest, MatchesPyTorchsMakeHistogram) {
  const HistogramCase cases[] = {
      {"randn", "tensorflow", std::nullopt},
      {"randn_max_bins", "tensorflow", 50},
      {"edges", "tensorflow", std::nullopt},
      {"zero", "tensorflow", std::nullopt},
      {"count10", 10, std::nullopt},
      {"count_single_value", 3, std::nullopt},
      {"explicit_edges", {0.0, 0.5, 1.0, 2.0}, std::nullopt},
      {"int_values", "tensorflow", std::nullopt},
  };
  for (const HistogramCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string name = c.name;
    const Histogram h =
        make_histogram(golden_tensor(find_golden(kGolden, name + "/input")), c.bins, c.max_bins);
    const std::vector<double>& stats = golden(name + "/stats");
    EXPECT_EQ(h.min, stats[0]);
    EXPECT_EQ(h.max, stats[1]);
    EXPECT_EQ(h.num, stats[2]);
    EXPECT_NEAR(h.sum, stats[3], 1e-12 * std::abs(stats[3]));  // numpy sums pairwise
    EXPECT_NEAR(h.sum_squares, stats[4], 1e-12 * std::abs(stats[4]));
    EXPECT_EQ(h.bucket_limit, golden(name + "/bucket_limit"));
    EXPECT_EQ(h.bucket, golden(name + "/bucket"));
  }
}

TEST(HistogramTest, ErrorsArePyTorchsAndNumpys) {
  EXPECT_THROW(make_histogram(empty({0}, kFloat)), ValueError);
  EXPECT_THROW(HistogramBins("auto"), ValueError);
  EXPECT_THROW(HistogramBins(0), ValueError);
  EXPECT_THROW(HistogramBins({1.0, 0.0}), ValueError);
  // Nothing inside the edges: PyTorch's "The histogram is empty".
  try {
    make_histogram(tensor({5.0, 6.0}), HistogramBins({0.0, 1.0, 2.0}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "The histogram is empty, please file a bug report.");
  }
  // A count over a non-finite range.
  EXPECT_THROW(make_histogram(tensor({1.0, NAN}), 4), ValueError);
}

TEST(HistogramTest, SummaryFields) {
  Histogram h;
  h.min = -1;
  h.max = 2;
  h.num = 3;
  h.sum = 1.5;
  h.sum_squares = 5.25;
  h.bucket_limit = {-1, 0, 2};
  h.bucket = {0, 1, 2};
  const testing::Value v = only_value(histogram_summary("w/hist", h));
  EXPECT_EQ(v.tag, "w/hist");
  EXPECT_FALSE(v.has_metadata);
  ASSERT_TRUE(v.histo.has_value());
  EXPECT_EQ(v.histo->min, -1);
  EXPECT_EQ(v.histo->max, 2);
  EXPECT_EQ(v.histo->num, 3);
  EXPECT_EQ(v.histo->sum, 1.5);
  EXPECT_EQ(v.histo->sum_squares, 5.25);
  EXPECT_EQ(v.histo->bucket_limit, h.bucket_limit);
  EXPECT_EQ(v.histo->bucket, h.bucket);
}

struct ImageCase {
  const char* name;
  const char* dataformats;
};

TEST(ImageTest, MatchesPyTorchsImagePixelForPixel) {
  for (const ImageCase& c : {ImageCase{"chw_float", "CHW"}, ImageCase{"chw_double_ramp", "CHW"},
                             ImageCase{"hwc_uint8_gray", "HWC"}, ImageCase{"hw_float", "HW"},
                             ImageCase{"whc_rgba", "WHC"}, ImageCase{"nchw_grid", "NCHW"},
                             ImageCase{"nhwc_uint8", "nhwc"}}) {
    SCOPED_TRACE(c.name);
    const std::string name = c.name;
    const GoldenEntry& want = find_golden(kGolden, name + "/pixels");
    const Image img = to_hwc_image(golden_tensor(find_golden(kGolden, name + "/input")),
                                   c.dataformats);
    EXPECT_EQ(img.height, want.sizes[0]);
    EXPECT_EQ(img.width, want.sizes[1]);
    EXPECT_EQ(img.channels, want.sizes[2]);
    EXPECT_EQ(std::vector<double>(img.pixels.begin(), img.pixels.end()), want.values);

    // The summary's PNG decodes (libpng) to the same pixels.
    const testing::Value v = only_value(image_summary("img", img));
    ASSERT_TRUE(v.image.has_value());
    EXPECT_EQ(v.tag, "img");
    EXPECT_EQ(v.image->height, img.height);
    EXPECT_EQ(v.image->width, img.width);
    EXPECT_EQ(v.image->colorspace, img.channels);
    const testing::DecodedPng png = testing::decode_png(v.image->encoded);
    EXPECT_EQ(png.height, img.height);
    EXPECT_EQ(png.width, img.width);
    EXPECT_EQ(png.channels, img.channels);
    EXPECT_EQ(png.pixels, img.pixels);
  }
}

TEST(ImageTest, ClipsOutOfRangeValues) {
  // Later PyTorch clips before the cast (1.13 wrapped 1.2 around to 50).
  const Image img = to_hwc_image(tensor({{1.2, -0.1, NAN, INFINITY}}), "HW");
  EXPECT_EQ(img.pixels, (std::vector<uint8_t>{255, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255}));
}

TEST(ImageTest, GridLaysOutEightColumnsAndLeavesTheRestBlack) {
  // 9 one-pixel gray images: two rows of 8 columns.
  const Image img = to_hwc_image(full({9, 1, 1, 1}, 1.0), "NCHW");
  EXPECT_EQ(img.height, 2);
  EXPECT_EQ(img.width, 8);
  for (int64_t x = 0; x < 8; ++x) EXPECT_EQ(img.pixels[x * 3], 255);
  EXPECT_EQ(img.pixels[8 * 3], 255);       // row 2, column 1
  EXPECT_EQ(img.pixels[9 * 3], 0);         // row 2, column 2: empty
}

TEST(ImageTest, ErrorsNameTheProblem) {
  auto message = [](const Tensor& t, const char* fmt) {
    try {
      to_hwc_image(t, fmt);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(zeros({3, 2, 2}), "CHC"),
            "You can not use the same dimension shordhand twice. input_format: CHC");
  EXPECT_EQ(message(zeros({3, 2}), "CHW"),
            "size of input tensor and input format are different. tensor shape: (3, 2), "
            "input_format: CHW");
  EXPECT_NE(message(zeros({2, 4, 4}), "CHW").find("1, 3 or 4 channels, got 2"), std::string::npos);
  EXPECT_NE(message(zeros({3, 4, 4}), "NHW").find("must be an order of"), std::string::npos);
  EXPECT_NE(message(zeros({3, 0, 4}), "CHW").find("no pixels"), std::string::npos);
  EXPECT_NE(message(zeros({5}), "C").find("must be an order of"), std::string::npos);
}

TEST(PrCurveTest, MatchesPyTorchsComputeCurve) {
  struct Case {
    const char* name;
    int64_t num_thresholds;
    bool weighted;
  };
  for (const Case& c : {Case{"pr_random", 127, false}, Case{"pr_weighted", 10, true},
                        Case{"pr_edges", 5, false}}) {
    SCOPED_TRACE(c.name);
    const std::string name = c.name;
    const Tensor weights =
        c.weighted ? golden_tensor(find_golden(kGolden, name + "/weights")) : Tensor();
    const std::vector<double> table =
        compute_pr_curve(golden_tensor(find_golden(kGolden, name + "/labels")),
                         golden_tensor(find_golden(kGolden, name + "/predictions")),
                         c.num_thresholds, weights);
    const std::vector<double>& want = golden(name + "/table");
    ASSERT_EQ(table.size(), want.size());
    for (size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(static_cast<float>(table[i]), static_cast<float>(want[i])) << i;
    }
  }
}

TEST(PrCurveTest, SummaryFields) {
  const std::string name = "pr_random";
  const testing::Value v =
      only_value(pr_curve_summary("pr", golden_tensor(find_golden(kGolden, name + "/labels")),
                                  golden_tensor(find_golden(kGolden, name + "/predictions")), 500));
  EXPECT_EQ(v.tag, "pr");
  EXPECT_EQ(v.plugin_name, "pr_curves");
  // PrCurvePluginData{version: 0, num_thresholds: 127 (capped)}.
  WireMessage content(v.plugin_content);
  content.expect_only({1, 2}, "PrCurvePluginData");
  EXPECT_EQ(content.varint(1), 0u);
  EXPECT_EQ(content.varint(2), 127u);
  ASSERT_TRUE(v.tensor.has_value());
  EXPECT_EQ(v.tensor->dtype, 1);  // DT_FLOAT
  EXPECT_EQ(v.tensor->shape, (std::vector<int64_t>{6, 127}));
  const std::vector<double>& want = golden(name + "/table");
  EXPECT_EQ(v.tensor->float_val, std::vector<float>(want.begin(), want.end()));
}

TEST(TextTest, SummaryFields) {
  const testing::Value v = only_value(text_summary("notes", "**bold** é"));
  EXPECT_EQ(v.tag, "notes/text_summary");
  EXPECT_TRUE(v.has_metadata);
  EXPECT_EQ(v.plugin_name, "text");
  EXPECT_EQ(v.plugin_content, "");  // TextPluginData{version: 0}
  ASSERT_TRUE(v.tensor.has_value());
  EXPECT_EQ(v.tensor->dtype, 7);  // DT_STRING
  EXPECT_EQ(v.tensor->shape, std::vector<int64_t>{1});
  EXPECT_EQ(v.tensor->string_val, std::vector<std::string>{"**bold** é"});
  // An empty text is still one (empty) string.
  EXPECT_EQ(only_value(text_summary("t", "")).tensor->string_val, std::vector<std::string>{""});
}

TEST(ScalarTest, SummaryFields) {
  const testing::Value v = only_value(scalar_summary("loss", 0.0f));
  EXPECT_EQ(v.tag, "loss");
  EXPECT_FALSE(v.has_metadata);
  EXPECT_EQ(v.simple_value, 0.0f);  // written although 0: a oneof member
  EXPECT_EQ(only_value(scalar_summary("x", -2.5f)).simple_value, -2.5f);
}

// HParamsPluginData{version 1, experiment 2 | session_start_info 3 |
// session_end_info 4} of a Value.
WireMessage hparams_data(const std::string& summary, const char* tag, int field) {
  const testing::Value v = only_value(summary);
  EXPECT_EQ(v.tag, tag);
  EXPECT_EQ(v.plugin_name, "hparams");
  EXPECT_FALSE(v.simple_value || v.tensor || v.histo || v.image);
  WireMessage data(v.plugin_content);
  data.expect_only({1, 2, 3, 4}, "HParamsPluginData");
  EXPECT_EQ(data.varint(1), 0u);  // version 0
  EXPECT_EQ(data.count(field), 1);
  return data.message(field);
}

TEST(HParamsTest, SummaryFields) {
  const HParamsSummaries s = hparams_summaries(
      {{"lr", 0.1}, {"batch", 64}, {"optim", "sgd"}, {"nesterov", true}},
      {{"hparam/accuracy", 90.5}, {"hparam/loss", 0.3}},
      {{"optim", {"sgd", "adam"}}, {"batch", {32, 64}}});

  // Experiment{hparam_infos 4, metric_infos 5}.
  const WireMessage exp = hparams_data(s.experiment, "_hparams_/experiment", 2);
  exp.expect_only({4, 5}, "Experiment");
  const auto infos = exp.messages(4);
  ASSERT_EQ(infos.size(), 4u);
  const char* names[] = {"lr", "batch", "optim", "nesterov"};
  const uint64_t types[] = {3, 3, 1, 3};  // FLOAT64, FLOAT64, STRING, FLOAT64 (bool as PyTorch)
  for (size_t i = 0; i < 4; ++i) {
    infos[i].expect_only({1, 4, 5}, "HParamInfo");
    EXPECT_EQ(infos[i].bytes(1), names[i]);
    EXPECT_EQ(infos[i].varint(4), types[i]) << names[i];
  }
  EXPECT_FALSE(infos[0].has(5));
  // domain_discrete: ListValue{values: Value{number_value 2 | string_value 3}}.
  const auto batch_domain = infos[1].message(5).messages(1);
  ASSERT_EQ(batch_domain.size(), 2u);
  EXPECT_EQ(batch_domain[0].fixed_double(2), 32);
  EXPECT_EQ(batch_domain[1].fixed_double(2), 64);
  const auto optim_domain = infos[2].message(5).messages(1);
  ASSERT_EQ(optim_domain.size(), 2u);
  EXPECT_EQ(optim_domain[0].bytes(3), "sgd");
  EXPECT_EQ(optim_domain[1].bytes(3), "adam");
  const auto metrics = exp.messages(5);
  ASSERT_EQ(metrics.size(), 2u);
  metrics[0].expect_only({1}, "MetricInfo");
  EXPECT_EQ(metrics[0].message(1).bytes(2), "hparam/accuracy");
  EXPECT_EQ(metrics[1].message(1).bytes(2), "hparam/loss");

  // SessionStartInfo{hparams 1: map entries {key 1, value 2}}.
  const WireMessage start = hparams_data(s.session_start, "_hparams_/session_start_info", 3);
  start.expect_only({1}, "SessionStartInfo");
  const auto entries = start.messages(1);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].bytes(1), "lr");
  EXPECT_EQ(entries[0].message(2).fixed_double(2), 0.1);
  EXPECT_EQ(entries[1].message(2).fixed_double(2), 64);
  EXPECT_EQ(entries[2].message(2).bytes(3), "sgd");
  EXPECT_EQ(entries[3].bytes(1), "nesterov");
  EXPECT_EQ(entries[3].message(2).fixed_double(2), 1.0);
  EXPECT_TRUE(entries[3].message(2).has(2));

  // SessionEndInfo{status: STATUS_SUCCESS}.
  const WireMessage end = hparams_data(s.session_end, "_hparams_/session_end_info", 4);
  end.expect_only({1}, "SessionEndInfo");
  EXPECT_EQ(end.varint(1), 1u);
}

TEST(HParamsTest, DomainOfAnotherKindIsPyTorchsTypeError) {
  try {
    hparams_summaries({{"lr", 0.1}}, {}, {{"lr", {"fast"}}});
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(),
                 "parameter: hparam_domain_discrete[lr] should be a list of same type as "
                 "hparam_dict[lr].");
  }
  EXPECT_THROW(hparams_summaries({{"lr", 0.1}}, {}, {{"momentum", {0.9}}}), TypeError);
}

}  // namespace
}  // namespace tensorboard
}  // namespace ember
