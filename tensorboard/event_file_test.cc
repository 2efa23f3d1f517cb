#include "tensorboard/event_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>

#include "tensor/error.h"
#include "tensorboard/testing/event_reader.h"

namespace ember {
namespace tensorboard {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/event_file_test-" + std::to_string(::getpid()) +
                          "-" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(EventFileNameTest, IsTensorboardsFormat) {
  EXPECT_EQ(event_file_name(1700000000.9, "myhost", 4242, 3, ""),
            "events.out.tfevents.1700000000.myhost.4242.3");
  EXPECT_EQ(event_file_name(5.5, "h", 1, 0, ".suffix"), "events.out.tfevents.0000000005.h.1.0.suffix");
}

TEST(RecordTest, FramingMatchesAnIndependentReader) {
  std::mt19937 rng(7);
  std::string framed;
  std::vector<std::string> data;
  for (int n : {0, 1, 7, 8, 100, 5000}) {
    std::string d(n, '\0');
    for (char& c : d) c = static_cast<char>(rng());
    EXPECT_EQ(masked_crc32c(d), testing::mask_crc(testing::crc32c_bitwise(d)));
    append_record(&framed, d);
    data.push_back(d);
  }
  const std::string path = temp_dir("records");
  std::ofstream(path, std::ios::binary) << framed;
  EXPECT_EQ(testing::read_records(path), data);
  std::remove(path.c_str());
}

TEST(EventFileTest, CreatesTheFolderAndStartsWithTheFileVersion) {
  const std::string dir = temp_dir("create") + "/a/b";
  const double before = wall_time_now();
  EventFile file(dir, ".sfx");
  const double after = wall_time_now();
  EXPECT_EQ(file.log_dir(), dir);
  const std::regex name(R"(events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.sfx)");
  std::smatch m;
  const std::string base = fs::path(file.path()).filename().string();
  ASSERT_TRUE(std::regex_match(base, m, name)) << base;
  EXPECT_GE(std::stoll(m[1]), static_cast<long long>(before));
  EXPECT_LE(std::stoll(m[1]), static_cast<long long>(after));
  EXPECT_EQ(m[2], host_name());
  EXPECT_EQ(std::stoll(m[3]), ::getpid());
  EXPECT_EQ(fs::path(file.path()).parent_path(), fs::path(dir));

  // Written at once, before anything else is added.
  const auto events = testing::read_events(file.path());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  EXPECT_GE(events[0].wall_time, before);
  EXPECT_LE(events[0].wall_time, after);
  EXPECT_EQ(events[0].step, 0);

  file.append(session_start_event(12.5, 7));
  EXPECT_EQ(file.write_buffered(), "");
  EXPECT_EQ(file.close(), "");
  const auto all = testing::read_events(file.path());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].session_log_status, 1);
  EXPECT_EQ(all[1].step, 7);
  EXPECT_EQ(all[1].wall_time, 12.5);
  fs::remove_all(temp_dir("create"));
}

TEST(EventFileTest, NumbersFilesInOpeningOrder) {
  const std::string dir = temp_dir("numbers");
  EventFile a(dir, ""), b(dir, "");
  auto uid = [](const std::string& path) { return std::stoll(path.substr(path.rfind('.') + 1)); };
  EXPECT_EQ(uid(b.path()), uid(a.path()) + 1);
  fs::remove_all(dir);
}

TEST(EventFileTest, UnusableFolderIsAnErrorNamingIt) {
  const std::string file = temp_dir("plain-file");
  std::ofstream(file) << "x";
  try {
    EventFile f(file + "/logs", "");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create log_dir '" + file + "/logs'"),
              std::string::npos)
        << e.what();
  }
  std::remove(file.c_str());
}

TEST(EventFileTest, RemovedFileIsReportedOnceAndNothingMoreIsWritten) {
  const std::string dir = temp_dir("removed");
  EventFile file(dir, "");
  fs::remove_all(dir);
  file.append(session_start_event(1, 1));
  const std::string error = file.write_buffered();
  EXPECT_NE(error.find("was removed"), std::string::npos) << error;
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  file.append(session_start_event(1, 2));
  EXPECT_EQ(file.write_buffered(), "");
  EXPECT_FALSE(file.has_buffered());
  EXPECT_EQ(file.close(), "");
}

}  // namespace
}  // namespace tensorboard
}  // namespace ember
