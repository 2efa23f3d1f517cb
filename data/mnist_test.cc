#include "data/mnist.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "data/datasets.h"
#include "data/transforms.h"
#include "tensor/reduce.h"

namespace ember {
namespace data {
namespace {

std::string be32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string images_idx(uint32_t n, uint32_t rows = 28, uint32_t cols = 28, uint32_t magic = 0x803) {
  std::string s = be32(magic) + be32(n) + be32(rows) + be32(cols);
  for (uint32_t i = 0; i < n * rows * cols; ++i) s.push_back(static_cast<char>(i * 7 % 251));
  return s;
}

std::string labels_idx(uint32_t n, uint32_t magic = 0x801) {
  std::string s = be32(magic) + be32(n);
  for (uint32_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i % 10));
  return s;
}

std::string gzip(const std::string& raw) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, raw.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = raw.size();
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = out.size();
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A fresh folder under the test's temporary directory, removed afterwards.
class MnistFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/mnistXXXXXX";
    ASSERT_NE(mkdtemp(&tmpl[0]), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : written_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  void write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    written_.push_back(path);
  }
  std::string error_of(bool train = true) {
    try {
      MNIST m(dir_, train);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  std::string dir_;
  std::vector<std::string> written_;
};

TEST_F(MnistFilesTest, ReadsRawFiles) {
  write("train-images-idx3-ubyte", images_idx(3));
  write("train-labels-idx1-ubyte", labels_idx(3));
  MNIST m(dir_, true);
  EXPECT_EQ(m.size(), 3);
  EXPECT_EQ(m.images().sizes(), (std::vector<int64_t>{3, 28, 28}));
  EXPECT_EQ(m.images().dtype(), kByte);
  EXPECT_EQ(m.targets().dtype(), kLong);
  Example<> e = m.get(2);
  EXPECT_EQ(e.target.item<int64_t>(), 2);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{28, 28}));
  // Pixel (2, 0, 5) is byte 2 * 784 + 5 of the payload.
  EXPECT_EQ(e.data[0][5].item<int64_t>(), (2 * 784 + 5) * 7 % 251);
}

// libtorch's datasets::MNIST: float32 N x 1 x 28 x 28 in [0, 1], int64
// labels, Mode::kTest reading the t10k files.
TEST_F(MnistFilesTest, LibtorchMnistIsFloatWithAChannel) {
  write("t10k-images-idx3-ubyte", images_idx(3));
  write("t10k-labels-idx1-ubyte", labels_idx(3));
  datasets::MNIST m(dir_, datasets::MNIST::Mode::kTest);
  EXPECT_FALSE(m.is_train());
  EXPECT_EQ(m.size().value(), 3u);
  EXPECT_EQ(m.images().sizes(), (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_EQ(m.images().dtype(), kFloat);
  Example<> e = m.get(2);
  EXPECT_EQ(e.target.item<int64_t>(), 2);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(e.data[0][0][5].item<float>(), static_cast<float>((2 * 784 + 5) * 7 % 251) / 255.0f);
  EXPECT_THROW(m.get(3), Error);
  EXPECT_THROW(datasets::MNIST train(dir_), Error);  // no train files
}

TEST_F(MnistFilesTest, ReadsGzipFilesAndAppliesTransforms) {
  write("t10k-images-idx3-ubyte.gz", gzip(images_idx(4)));
  write("t10k-labels-idx1-ubyte.gz", gzip(labels_idx(4)));
  MNIST m(dir_, false, transforms::ToTensor(),
          [](const Tensor& t) { return t + 100; });
  Example<> e = m.get(3);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(e.data.dtype(), kFloat);
  EXPECT_EQ(e.target.item<int64_t>(), 103);
  EXPECT_THROW(m.get(4), IndexError);
}

TEST_F(MnistFilesTest, MissingFileNamesBoth) {
  write("train-images-idx3-ubyte", images_idx(1));
  const std::string err = error_of();
  EXPECT_NE(err.find("Dataset not found"), std::string::npos) << err;
  EXPECT_NE(err.find("train-labels-idx1-ubyte.gz"), std::string::npos) << err;
}

TEST_F(MnistFilesTest, WrongMagicNumber) {
  write("train-images-idx3-ubyte", images_idx(2));
  write("train-labels-idx1-ubyte", labels_idx(2, 0x803));
  const std::string err = error_of();
  EXPECT_NE(err.find(dir_ + "/train-labels-idx1-ubyte: wrong magic number 2051"), std::string::npos)
      << err;
}

TEST_F(MnistFilesTest, WrongImageDims) {
  write("train-images-idx3-ubyte", images_idx(2, 32, 32));
  write("train-labels-idx1-ubyte", labels_idx(2));
  EXPECT_NE(error_of().find("train-images-idx3-ubyte: wrong image dims 32 x 32, expected 28 x 28"),
            std::string::npos);
}

TEST_F(MnistFilesTest, CountMismatch) {
  write("train-images-idx3-ubyte", images_idx(3));
  write("train-labels-idx1-ubyte", labels_idx(2));
  const std::string err = error_of();
  EXPECT_NE(err.find("2 labels for the 3 images"), std::string::npos) << err;
}

TEST_F(MnistFilesTest, TruncatedPayload) {
  std::string img = images_idx(2);
  img.resize(img.size() - 10);
  write("train-images-idx3-ubyte", img);
  write("train-labels-idx1-ubyte", labels_idx(2));
  const std::string err = error_of();
  EXPECT_NE(err.find("promises 1568 bytes of data but the file has 1558 (truncated)"),
            std::string::npos)
      << err;
}

TEST_F(MnistFilesTest, TruncatedGzip) {
  std::string gz = gzip(images_idx(5));
  gz.resize(gz.size() / 2);
  write("train-images-idx3-ubyte.gz", gz);
  write("train-labels-idx1-ubyte.gz", gzip(labels_idx(5)));
  const std::string err = error_of();
  EXPECT_NE(err.find("train-images-idx3-ubyte.gz: truncated gzip stream"), std::string::npos) << err;
}

TEST_F(MnistFilesTest, CorruptGzip) {
  std::string gz = gzip(labels_idx(50));
  // Flip bits in the compressed body (past the 10-byte gzip header): the
  // inflater or the CRC check must catch it.
  for (size_t i = 12; i < gz.size() - 8; i += 3) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  write("train-images-idx3-ubyte.gz", gzip(images_idx(50)));
  write("train-labels-idx1-ubyte.gz", gz);
  const std::string err = error_of();
  EXPECT_NE(err.find("train-labels-idx1-ubyte.gz: corrupt gzip data"), std::string::npos) << err;
}

TEST_F(MnistFilesTest, TooShortForAHeader) {
  write("train-images-idx3-ubyte", std::string("\x00\x00", 2));
  write("train-labels-idx1-ubyte", labels_idx(1));
  EXPECT_NE(error_of().find("shorter than the 4-byte magic number"), std::string::npos);
}

TEST_F(MnistFilesTest, ReadsEveryMemberOfAMultiMemberGzip) {
  // gzip -c a >x; gzip -c b >>x: one file, two members, the concatenation.
  const std::string img = images_idx(3);
  write("train-images-idx3-ubyte.gz", gzip(img.substr(0, 700)) + gzip(img.substr(700)));
  const std::string lab = labels_idx(3);
  write("train-labels-idx1-ubyte.gz", gzip(lab.substr(0, 5)) + gzip(lab.substr(5)) +
                                          std::string(16, '\0'));  // zero padding is fine
  MNIST m(dir_, true);
  ASSERT_EQ(m.size(), 3);
  EXPECT_EQ(m.targets()[2].item<int64_t>(), 2);
  EXPECT_EQ(m.images()[2][0][5].item<int64_t>(), (2 * 784 + 5) * 7 % 251);
}

TEST_F(MnistFilesTest, TrailingGarbageAfterGzipIsRefused) {
  write("train-images-idx3-ubyte.gz", gzip(images_idx(2)));
  write("train-labels-idx1-ubyte.gz", gzip(labels_idx(2)) + "garbage");
  const std::string err = error_of();
  EXPECT_NE(err.find("train-labels-idx1-ubyte.gz: trailing garbage after the gzip data (7 bytes"),
            std::string::npos)
      << err;
}

TEST_F(MnistFilesTest, GzipBombStopsAtTheSizeTheHeaderAnnounces) {
  // A header announcing 2 labels followed by 64 MiB of zeros: it must fail
  // without inflating all of it.
  std::string bomb = labels_idx(2);
  bomb.append(size_t{64} << 20, '\0');
  write("train-images-idx3-ubyte.gz", gzip(images_idx(2)));
  write("train-labels-idx1-ubyte.gz", gzip(bomb));
  const std::string err = error_of();
  EXPECT_NE(err.find("train-labels-idx1-ubyte.gz: the gzip data decompresses to more than the 10 "
                     "bytes its IDX header announces"),
            std::string::npos)
      << err;
}

TEST_F(MnistFilesTest, DirectoryNamedLikeAnIdxFileIsADirectory) {
  write("train-images-idx3-ubyte", images_idx(1));
  const std::string d = dir_ + "/train-labels-idx1-ubyte";
  ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
  const std::string err = error_of();
  rmdir(d.c_str());
  EXPECT_EQ(err, "cannot read '" + d + "': it is a directory");
}

TEST_F(MnistFilesTest, FifoInTheDataFolderIsRefusedWithoutBlocking) {
  write("train-images-idx3-ubyte", images_idx(1));
  const std::string f = dir_ + "/train-labels-idx1-ubyte";
  ASSERT_EQ(mkfifo(f.c_str(), 0644), 0);
  written_.push_back(f);
  EXPECT_EQ(error_of(), "cannot read '" + f + "': it is a FIFO, not a regular file");
}

// Debian's dataset-fashion-mnist (installed by ./bazelw).
TEST(FashionMnistTest, ReadsTheInstalledTestSet) {
  std::ifstream probe(std::string(kDefaultMnistRoot) + "/t10k-labels-idx1-ubyte.gz");
  if (!probe.good()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  MNIST m(kDefaultMnistRoot, false);
  EXPECT_EQ(m.size(), 10000);
  EXPECT_EQ(m.images().sizes(), (std::vector<int64_t>{10000, 28, 28}));
  // torchvision.datasets.FashionMNIST(train=False): the first two labels
  // are 9 (ankle boot) and 2 (pullover); labels span 0..9.
  EXPECT_EQ(m.targets()[0].item<int64_t>(), 9);
  EXPECT_EQ(m.targets()[1].item<int64_t>(), 2);
  EXPECT_EQ(m.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(m.targets().max().item<int64_t>(), 9);
}

}  // namespace
}  // namespace data
}  // namespace ember
