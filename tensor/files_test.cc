#include "tensor/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tensor/testing/golden.h"

namespace ember {
namespace {

using testing::error_of;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ember_files_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string dir_;
};

TEST_F(FilesTest, ReadsARegularFileAndASymlinkToOne) {
  const std::string path = dir_ + "/a.bin";
  std::ofstream(path, std::ios::binary) << std::string("ab\0cd", 5);
  EXPECT_EQ(read_regular_file(path), std::string("ab\0cd", 5));
  ASSERT_EQ(symlink(path.c_str(), (dir_ + "/link").c_str()), 0);
  EXPECT_EQ(read_regular_file(dir_ + "/link"), std::string("ab\0cd", 5));
  EXPECT_EQ(describe_file_type(path), "a regular file");
}

TEST_F(FilesTest, MissingFileNamesThePathAndTheReason) {
  EXPECT_EQ(error_of([&] { open_regular_file(dir_ + "/none"); }),
            "cannot open '" + dir_ + "/none': No such file or directory");
  EXPECT_EQ(describe_file_type(dir_ + "/none"), "");
}

TEST_F(FilesTest, DirectoryIsRefusedAsADirectory) {
  const std::string d = dir_ + "/train-images-idx3-ubyte";
  ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
  EXPECT_EQ(error_of([&] { read_regular_file(d); }), "cannot read '" + d + "': it is a directory");
}

TEST_F(FilesTest, FifoIsRefusedAtOnceInsteadOfBlocking) {
  const std::string f = dir_ + "/ckpt.safetensors";
  ASSERT_EQ(mkfifo(f.c_str(), 0644), 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of([&] { open_regular_file(f); }),
            "cannot read '" + f + "': it is a FIFO, not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(describe_file_type(f), "a FIFO");
}

TEST_F(FilesTest, CharacterDeviceIsRefused) {
  EXPECT_EQ(error_of([] { read_regular_file("/dev/zero"); }),
            "cannot read '/dev/zero': it is a character device, not a regular file");
}

}  // namespace
}  // namespace ember
