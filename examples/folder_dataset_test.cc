#include "examples/folder_dataset.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensor/creation.h"

namespace examples {
namespace {

class FolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/pgmXXXXXX";
    ASSERT_NE(mkdtemp(&tmpl[0]), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FolderTest, ListsSortedAndDecodesLazily) {
  write_demo_images(dir_, 5);
  PgmFolderDataset ds(dir_);
  ASSERT_EQ(ds.size(), 5);
  EXPECT_EQ(ds.files()[0], dir_ + "/0_0.pgm");
  // Listing read nothing: a file removed now fails only when asked for.
  unlink((dir_ + "/2_2.pgm").c_str());
  ember::data::Example<> e = ds.get(0);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(e.data[3][3].item<int64_t>(), 40);
  EXPECT_EQ(e.target.item<int64_t>(), 0);
  EXPECT_EQ(ds.get(1).target.item<int64_t>(), 0);  // 0_3.pgm sorts second
  EXPECT_THROW(ds.get(4), ember::Error);           // 2_2.pgm is gone
}

TEST_F(FolderTest, PgmRoundTrip) {
  const ember::Tensor img = ember::arange(12, ember::kByte).view({3, 4});
  write_pgm(dir_ + "/7_x.pgm", img);
  const ember::Tensor back = read_pgm(dir_ + "/7_x.pgm");
  EXPECT_EQ(back.sizes(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(back[2][3].item<int64_t>(), 11);
}

TEST_F(FolderTest, MalformedFilesNameTheProblem) {
  std::ofstream(dir_ + "/1_bad.pgm") << "P2\n2 2\n255\n";
  std::ofstream(dir_ + "/1_short.pgm", std::ios::binary) << "P5\n4 4\n255\nabc";
  try {
    read_pgm(dir_ + "/1_bad.pgm");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a binary PGM file (magic 'P2'"), std::string::npos);
  }
  try {
    read_pgm(dir_ + "/1_short.pgm");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated PGM (3 of 16 pixel bytes)"), std::string::npos);
  }
  std::ofstream(dir_ + "/nolabel.pgm") << "P5\n1 1\n255\nx";
  EXPECT_THROW(PgmFolderDataset{dir_}, ember::Error);
  EXPECT_THROW(PgmFolderDataset{dir_ + "/missing"}, ember::Error);
}

TEST_F(FolderTest, DemoBatchesThroughTheLoader) {
  write_demo_images(dir_, 10);
  std::ostringstream out;
  EXPECT_EQ(folder_dataset_main(dir_, out), 0);
  const std::string s = out.str();
  EXPECT_NE(s.find("10 images, 3 batches"), std::string::npos) << s;
  // Sorted names: 0_0 0_3 0_6 0_9 | 1_1 1_4 1_7 2_2 | 2_5 2_8.
  EXPECT_NE(s.find("batch 0: data [4, 1, 8, 8], labels 0 0 0 0"), std::string::npos) << s;
  EXPECT_NE(s.find("batch 2: data [2, 1, 8, 8], labels 2 2"), std::string::npos) << s;
}

}  // namespace
}  // namespace examples
