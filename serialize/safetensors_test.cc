#include "serialize/safetensors.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "serialize/interop_sample.h"
#include "serialize/test_util.h"
#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/quantize.h"
#include "tensor/shape.h"

namespace ember {
namespace safetensors {
namespace {

using serialize_testing::interop_sample;
using serialize_testing::interop_sample_metadata;
using serialize_testing::read_bytes;
using serialize_testing::same_tensor;
using serialize_testing::TempDir;
using serialize_testing::write_bytes;

// A safetensors file: the header length (little-endian u64), header, data.
std::string file_bytes(const std::string& header, const std::string& data = "",
                       uint64_t header_length = UINT64_MAX) {
  uint64_t n = header_length == UINT64_MAX ? header.size() : header_length;
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

// The message load(bytes) throws ("" when it loads).
std::string load_error(const std::string& bytes) {
  try {
    load(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_LOAD_ERROR(bytes, text)                                        \
  do {                                                                        \
    std::string msg_ = load_error(bytes);                                     \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_;     \
    EXPECT_EQ(msg_.rfind("invalid safetensors file: ", 0), 0u) << msg_;       \
  } while (0)

TEST(SafetensorsTest, RoundTripsEveryDtypeInOrderWithMetadata) {
  NamedTensors sample = interop_sample();
  Contents c = load(save(sample, interop_sample_metadata()));
  ASSERT_EQ(c.tensors.size(), sample.size());
  for (size_t i = 0; i < sample.size(); ++i) {
    EXPECT_EQ(c.tensors[i].first, sample[i].first);
    EXPECT_TRUE(same_tensor(c.tensors[i].second, sample[i].second)) << sample[i].first;
  }
  EXPECT_EQ(c.metadata, interop_sample_metadata());
}

TEST(SafetensorsTest, WritesCompactHeaderPaddedToEightBytes) {
  std::string bytes = save({{"a", tensor({1.0f, 2.0f})}}, {{"k", "v"}});
  std::string header =
      R"({"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  header += std::string((8 - header.size() % 8) % 8, ' ');
  float data[2] = {1.0f, 2.0f};
  EXPECT_EQ(bytes, file_bytes(header, std::string(reinterpret_cast<char*>(data), 8)));
}

TEST(SafetensorsTest, LaysDataOutLargestElementFirstSoEveryTensorIsAligned) {
  NamedTensors t = {{"u8", tensor({1, 2, 3}, kByte)},
                    {"f16", tensor({1.0}, kDouble).to(kHalf)},
                    {"f64", tensor({1.0, 2.0}, kDouble)},
                    {"i32", tensor({5}, kInt)}};
  std::string bytes = save(t);
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  std::string header = bytes.substr(8, n);
  EXPECT_NE(header.find(R"("f64":{"dtype":"F64","shape":[2],"data_offsets":[0,16]})"),
            std::string::npos);
  EXPECT_NE(header.find(R"("i32":{"dtype":"I32","shape":[1],"data_offsets":[16,20]})"),
            std::string::npos);
  EXPECT_NE(header.find(R"("f16":{"dtype":"F16","shape":[1],"data_offsets":[20,22]})"),
            std::string::npos);
  EXPECT_NE(header.find(R"("u8":{"dtype":"U8","shape":[3],"data_offsets":[22,25]})"),
            std::string::npos);
  // The header keeps the caller's order.
  EXPECT_LT(header.find("\"u8\""), header.find("\"f16\""));
  EXPECT_LT(header.find("\"f16\""), header.find("\"f64\""));
}

TEST(SafetensorsTest, SavesNonContiguousAndSharedTensorsByValue) {
  Tensor base = arange(24, TensorOptions(kFloat)).reshape({4, 6});
  NamedTensors t = {{"t", base.t()},
                    {"strided", base.slice(1, 0, 6, 2)},
                    {"expanded", tensor({1, 2, 3}, kLong).expand({2, 3})},
                    {"base", base},
                    {"row", base[1]}};
  Contents c = load(save(t));
  ASSERT_EQ(c.tensors.size(), 5u);
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_TRUE(same_tensor(c.at(t[i].first), t[i].second.contiguous())) << t[i].first;
    EXPECT_TRUE(c.at(t[i].first).is_contiguous());
  }
  // Loaded tensors own their memory: changing one leaves the others alone.
  Tensor loaded_base = c.at("base");
  loaded_base.fill_(0);
  EXPECT_EQ(c.at("row")[0].item<float>(), 6.0f);
}

TEST(SafetensorsTest, EmptyFileHasJustTheHeader) {
  std::string bytes = save({});
  EXPECT_EQ(bytes, file_bytes("{}      "));
  Contents c = load(bytes);
  EXPECT_TRUE(c.tensors.empty());
  EXPECT_TRUE(c.metadata.empty());
}

TEST(SafetensorsTest, LoadsTheFilePythonMade) {
  // Made by tools/safetensors_interop.py make (safetensors.torch's layout:
  // data ordered by dtype, then name).
  Contents c = load_file("serialize/testdata/python_made.safetensors");
  NamedTensors want = interop_sample();
  ASSERT_EQ(c.tensors.size(), want.size());
  EXPECT_EQ(c.tensors[0].first, "i64");  // header order is the file's
  for (const auto& kv : want) {
    EXPECT_TRUE(same_tensor(c.at(kv.first), kv.second)) << kv.first;
  }
  EXPECT_EQ(c.metadata, interop_sample_metadata());
}

TEST(SafetensorsTest, SaveFileThenLoadFile) {
  TempDir dir;
  std::string path = dir.file("a.safetensors");
  save_file(interop_sample(), path, interop_sample_metadata());
  EXPECT_EQ(read_bytes(path), save(interop_sample(), interop_sample_metadata()));
  Contents c = load_file(path);
  EXPECT_TRUE(same_tensor(c.at("i64"), interop_sample()[4].second));
  // Overwriting replaces the file and leaves no temporary file behind.
  save_file({{"x", tensor({7}, kLong)}}, path);
  EXPECT_EQ(load_file(path).tensors.size(), 1u);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"a.safetensors"});
}

TEST(SafetensorsTest, SaveFileThroughASymlinkReplacesItsTarget) {
  TempDir dir;
  std::string target = dir.file("ckpt_10.safetensors");
  std::string link = dir.file("latest.safetensors");
  save_file({{"x", tensor({1}, kLong)}}, target);
  ASSERT_EQ(::symlink("ckpt_10.safetensors", link.c_str()), 0);
  save_file({{"x", tensor({2}, kLong)}}, link);
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(load_file(target).at("x").item<int64_t>(), 2);
  EXPECT_EQ(dir.files().size(), 2u);
}

TEST(SafetensorsTest, LoadMetadataReadsOnlyTheHeader) {
  TempDir dir;
  std::string path = dir.file("m.safetensors");
  save_file(interop_sample(), path, interop_sample_metadata());
  EXPECT_EQ(load_metadata(path), interop_sample_metadata());
  EXPECT_TRUE(load_metadata("serialize/testdata/python_made.safetensors") ==
              interop_sample_metadata());
  // The header is still validated: here the data is one byte short.
  std::string bytes = read_bytes(path);
  write_bytes(path, bytes.substr(0, bytes.size() - 1));
  try {
    load_metadata(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": invalid safetensors file: "),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(load_metadata(dir.file("missing")), Error);
}

TEST(SafetensorsTest, SaveFileMakesAnOrdinaryFile) {
  TempDir dir;
  std::string path = dir.file("m.safetensors");
  mode_t mask = ::umask(022);
  save_file({{"x", tensor({1}, kLong)}}, path);
  ::umask(mask);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(SafetensorsTest, SaveRejectsWhatTheFormatCannotHold) {
  auto err = [](const NamedTensors& t, const Metadata& m = {}) -> std::string {
    try {
      save(t, m);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  Tensor x = tensor({1.0f});
  EXPECT_EQ(err({{"a", x}, {"a", x}}), "safetensors: duplicate tensor name 'a'");
  EXPECT_EQ(err({{"__metadata__", x}}), "safetensors: a tensor cannot be called '__metadata__'");
  EXPECT_EQ(err({{"u", Tensor()}}), "safetensors: tensor 'u' is undefined");
  EXPECT_EQ(err({{"q", quantize_per_tensor(x, 0.1, 0, kQInt8)}}),
            "safetensors cannot store tensors of dtype qint8");
}

TEST(SafetensorsTest, SaveFileIntoMissingDirectoryFails) {
  TempDir dir;
  std::string path = dir.file("no/such/dir/a.safetensors");
  try {
    save_file({{"x", tensor({1}, kLong)}}, path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot save to '" + path + "'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
  }
  EXPECT_TRUE(dir.files().empty());
}

TEST(SafetensorsTest, LoadFileErrorsNameThePath) {
  TempDir dir;
  try {
    load_file(dir.file("missing.safetensors"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open '" + dir.file("missing.safetensors") + "': No such file or directory");
  }
  try {
    load_file(dir.path());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read '" + dir.path() + "': it is a directory");
  }
  std::string bytes = save(interop_sample());
  write_bytes(dir.file("cut.safetensors"), bytes.substr(0, bytes.size() - 1));
  try {
    load_file(dir.file("cut.safetensors"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir.file("cut.safetensors") + ": invalid safetensors", 0),
              0u)
        << e.what();
  }
}

TEST(SafetensorsTest, EveryTruncationIsAnErrorInMemoryAndOnDisk) {
  TempDir dir;
  std::string bytes = save(interop_sample(), interop_sample_metadata());
  std::string path = dir.file("t.safetensors");
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::string cut = bytes.substr(0, len);
    EXPECT_NE(load_error(cut), "") << "length " << len;
    write_bytes(path, cut);
    EXPECT_THROW(load_file(path), Error) << "length " << len;
  }
}

TEST(SafetensorsTest, RejectsTooShortFile) {
  EXPECT_LOAD_ERROR(std::string("\x02\0\0", 3), "it has 3 bytes, fewer than the 8");
}

TEST(SafetensorsTest, RejectsAbsurdHeaderLength) {
  EXPECT_LOAD_ERROR(file_bytes("{}", "", UINT64_MAX - 1),
                    "header length 18446744073709551614 is larger than the limit of 100000000");
  EXPECT_LOAD_ERROR(file_bytes("{}", "", 100000001), "is larger than the limit");
  EXPECT_LOAD_ERROR(file_bytes("{}", "", 1000),
                    "header length 1000 goes past the end of the file (10 bytes)");
}

TEST(SafetensorsTest, RejectsHeaderNotAnObject) {
  EXPECT_LOAD_ERROR(file_bytes(""), "the header does not start with '{'");
  EXPECT_LOAD_ERROR(file_bytes("[1]"), "the header does not start with '{'");
  EXPECT_LOAD_ERROR(file_bytes(" {}"), "the header does not start with '{'");
}

TEST(SafetensorsTest, RejectsBadJson) {
  EXPECT_LOAD_ERROR(file_bytes("{\"a\":"), "header: invalid JSON at byte 5");
  EXPECT_LOAD_ERROR(file_bytes("{\"a\":{},}"), "invalid JSON at byte 8: expected a string key");
  EXPECT_LOAD_ERROR(file_bytes("{\"\xff\":{}}"), "invalid UTF-8");
  EXPECT_LOAD_ERROR(file_bytes("{} x"), "unexpected trailing characters");
  // Padding other than whitespace.
  EXPECT_LOAD_ERROR(file_bytes(std::string("{}\0\0\0\0\0\0", 8)), "unexpected trailing");
}

TEST(SafetensorsTest, RejectsDuplicateKeys) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                               R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                               "xy"),
                    "duplicate key \"a\"");
}

TEST(SafetensorsTest, RejectsUnknownAndUnsupportedDtypes) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"F99","shape":[1],"data_offsets":[0,4]}})",
                               "abcd"),
                    "tensor 'a': unknown dtype 'F99'");
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U16","shape":[1],"data_offsets":[0,2]}})",
                               "ab"),
                    "tensor 'a': dtype U16 is not supported by ember");
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":3,"shape":[1],"data_offsets":[0,2]}})", "ab"),
                    "tensor 'a': dtype must be a string");
}

TEST(SafetensorsTest, RejectsShapeBytesMismatch) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
                               std::string(20, 'x')),
                    "tensor 'a': shape [2, 3] with dtype F32 needs 24 bytes but data_offsets "
                    "[0, 20] hold 20");
}

TEST(SafetensorsTest, RejectsBadShapes) {
  auto with_shape = [](const std::string& shape) {
    return file_bytes(R"({"a":{"dtype":"U8","shape":)" + shape + R"(,"data_offsets":[0,0]}})");
  };
  EXPECT_LOAD_ERROR(with_shape("[-1]"),
                    "tensor 'a': shape entries must be non-negative integers, got -1");
  EXPECT_LOAD_ERROR(with_shape("[1.5]"), "got 1.5");
  EXPECT_LOAD_ERROR(with_shape("[\"2\"]"), "got string");
  EXPECT_LOAD_ERROR(with_shape("3"), "tensor 'a': shape must be an array");
  EXPECT_LOAD_ERROR(with_shape("[4294967296,4294967296]"),
                    "tensor 'a': shape [4294967296, 4294967296] is too large");
  // numel fits, bytes do not.
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"F64","shape":[2305843009213693952],)"
                               R"("data_offsets":[0,0]}})"),
                    "is too large");
}

TEST(SafetensorsTest, RejectsBadDataOffsets) {
  auto with = [](const std::string& offsets, const std::string& data) {
    return file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":)" + offsets + "}}",
                      data);
  };
  EXPECT_LOAD_ERROR(with("[0]", "ab"), "data_offsets must be two non-negative integers");
  EXPECT_LOAD_ERROR(with("[0,2,4]", "ab"), "data_offsets must be two non-negative integers");
  EXPECT_LOAD_ERROR(with("[-2,0]", "ab"), "data_offsets must be two non-negative integers");
  EXPECT_LOAD_ERROR(with("[4,2]", "ab"), "data_offsets [4, 2] end before they begin");
  EXPECT_LOAD_ERROR(with("[0,2]", "a"),
                    "tensor 'a': data_offsets [0, 2] go past the end of the data (1 bytes)");
  EXPECT_LOAD_ERROR(with("[9223372036854775805,9223372036854775807]", "ab"),
                    "go past the end of the data");
}

TEST(SafetensorsTest, RejectsOverlappingTensors) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                               R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                               "abc"),
                    "tensors 'a' [0, 2) and 'b' [1, 3) overlap");
  // Two names for the same bytes.
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                               R"("b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
                               "ab"),
                    "overlap");
}

TEST(SafetensorsTest, RejectsDataNotCoveredByTensors) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                               "abc"),
                    "bytes [0, 1) of the data belong to no tensor");
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
                               "abcd"),
                    "the data has 4 bytes but the tensors cover 2");
  EXPECT_LOAD_ERROR(file_bytes("{}", "x"), "the data has 1 bytes but the tensors cover 0");
}

TEST(SafetensorsTest, RejectsMalformedEntries) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":[1]})"), "tensor 'a': expected an object, got array");
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[0]}})"),
                    "tensor 'a': missing field 'data_offsets'");
  EXPECT_LOAD_ERROR(file_bytes(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],)"
                               R"("x":1}})"),
                    "tensor 'a': unexpected field 'x'");
  EXPECT_LOAD_ERROR(file_bytes(R"({"__metadata__":{"k":1}})"),
                    "__metadata__ value of 'k' must be a string, got number");
  EXPECT_LOAD_ERROR(file_bytes(R"({"__metadata__":"x"})"),
                    "__metadata__ must be an object of strings");
}

TEST(SafetensorsTest, RejectsBoolBytesOtherThanZeroOrOne) {
  EXPECT_LOAD_ERROR(file_bytes(R"({"b":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
                               std::string("\x01\x00\x02", 3)),
                    "tensor 'b': BOOL element 2 is 2, not 0 or 1");
}

TEST(SafetensorsTest, CorruptedBytesNeverCrash) {
  // Every byte of a real file, flipped three ways: each variant either loads
  // or throws ember::Error (never crashes or reads out of bounds; the asan
  // and fuzz configs check the latter).
  std::string good = save(interop_sample(), interop_sample_metadata());
  int errors = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char x : {0x01, 0x20, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ x);
      if (!load_error(bad).empty()) ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(SafetensorsTest, LoadsOntoTheRequestedDevice) {
  std::string bytes = save({{"x", tensor({1.0f, 2.0f})}});
  EXPECT_TRUE(load(bytes, Device("cpu")).at("x").is_cpu());
  if (cuda::is_available()) {
    Tensor x = load(bytes, Device("cuda")).at("x");
    EXPECT_TRUE(x.is_cuda());
    EXPECT_TRUE(same_tensor(x.cpu(), tensor({1.0f, 2.0f})));
  } else {
    EXPECT_THROW(load(bytes, Device("cuda")), Error);
  }
}

TEST(SafetensorsTest, AtNamesTheMissingTensor) {
  Contents c = load(save({{"x", tensor({1.0f})}}));
  try {
    c.at("y");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "no tensor named 'y' in the safetensors file");
  }
}

}  // namespace
}  // namespace safetensors
}  // namespace ember
