// SummaryWriter end to end: what it writes, read back by the test-only
// reader (tensorboard/testing/event_reader.h), and how it behaves when
// closed, destroyed, exiting, failing to write or forked.
#include "tensorboard/summary_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <thread>

#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensorboard/event_file.h"
#include "tensorboard/testing/event_reader.h"

namespace ember {
namespace tensorboard {
namespace {

namespace fs = std::filesystem;
using testing::Event;
using testing::read_events;

class SummaryWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/summary_writer_test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }

  // The events of the only event file directly in `dir`.
  std::vector<Event> only_file_events(const std::string& dir) {
    const auto files = testing::event_files(dir);
    EXPECT_EQ(files.size(), 1u) << dir;
    return files.empty() ? std::vector<Event>{} : read_events(files[0]);
  }

  std::string dir_;
};

// Wall times of events logged between `before` and now.
void expect_now(double wall_time, double before) {
  EXPECT_GE(wall_time, before);
  EXPECT_LE(wall_time, wall_time_now());
}

TEST_F(SummaryWriterTest, ScalarsCarryTagValueStepAndWallTime) {
  const double before = wall_time_now();
  {
    SummaryWriter w(dir_);
    EXPECT_EQ(w.get_logdir(), dir_);
    w.add_scalar("train/loss", 0.25, 10);
    w.add_scalar("train/loss", 0.0, 11, 1234.5);
    w.add_scalar("lr", full({}, 0.01, kDouble), 12);
    w.add_scalar("no_step", -3);
  }
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  expect_now(events[0].wall_time, before);
  struct Want {
    const char* tag;
    float value;
    int64_t step;
  };
  const Want want[] = {{"train/loss", 0.25f, 10}, {"train/loss", 0.0f, 11}, {"lr", 0.01f, 12},
                       {"no_step", -3.0f, 0}};
  for (int i = 0; i < 4; ++i) {
    const Event& e = events[i + 1];
    ASSERT_TRUE(e.summary.has_value());
    ASSERT_EQ(e.summary->size(), 1u);
    EXPECT_EQ(e.summary->at(0).tag, want[i].tag);
    EXPECT_EQ(e.summary->at(0).simple_value, want[i].value);
    EXPECT_EQ(e.step, want[i].step);
    if (i == 1) {
      EXPECT_EQ(e.wall_time, 1234.5);
    } else {
      expect_now(e.wall_time, before);
    }
  }
  EXPECT_THROW(SummaryWriter(dir_).add_scalar("x", zeros({2})), ValueError);
}

TEST_F(SummaryWriterTest, FileNameIsTensorboardsAndSuffixed) {
  SummaryWriter w(SummaryWriterOptions().log_dir(dir_).filename_suffix(".rank0"));
  const std::string name = fs::path(w.event_file_path()).filename().string();
  const std::regex pattern(R"(events\.out\.tfevents\.\d{10}\.)" + host_name() + R"(\.)" +
                           std::to_string(::getpid()) + R"(\.\d+\.rank0)");
  EXPECT_TRUE(std::regex_match(name, pattern)) << name;
  EXPECT_EQ(fs::path(w.event_file_path()).parent_path(), fs::path(dir_));
}

TEST_F(SummaryWriterTest, DefaultLogDirIsRunsDateHostComment) {
  const std::string dir = default_log_dir("_lr0.1");
  const std::regex pattern(R"(runs/(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\d\d_\d\d-\d\d-\d\d_)" +
                           host_name() + "_lr0\\.1");
  EXPECT_TRUE(std::regex_match(dir, pattern)) << dir;
}

TEST_F(SummaryWriterTest, HistogramImageTextAndPrCurveEvents) {
  {
    SummaryWriter w(dir_);
    w.add_histogram("w", tensor({-1.0, 0.0, 0.5, 0.5}), 3);
    w.add_image("img", full({3, 2, 4}, 0.5), 4);  // CHW, float
    w.add_images("batch", zeros({10, 1, 3, 2}, kByte), 5);
    w.add_image("hwc", full({2, 2, 4}, 200, kByte), 6, std::nullopt, "HWC");
    w.add_text("notes", "hello", 7);
    w.add_pr_curve("pr", tensor({1, 0, 1}), tensor({0.9f, 0.2f, 0.6f}), 8, 3);
  }
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 7u);
  for (int i = 1; i < 7; ++i) EXPECT_EQ(events[i].step, i + 2);

  const auto& histo = events[1].summary->at(0);
  EXPECT_EQ(histo.tag, "w");
  ASSERT_TRUE(histo.histo.has_value());
  EXPECT_EQ(histo.histo->min, -1);
  EXPECT_EQ(histo.histo->max, 0.5);
  EXPECT_EQ(histo.histo->num, 4);
  EXPECT_EQ(histo.histo->sum, 0);
  EXPECT_EQ(histo.histo->sum_squares, 1.5);
  // The counts sit in the buckets ending right after -1, 0 and 0.5.
  double total = 0;
  for (double c : histo.histo->bucket) total += c;
  EXPECT_EQ(total, 4);
  EXPECT_EQ(histo.histo->bucket.front(), 0);
  EXPECT_EQ(histo.histo->bucket.back(), 2);
  EXPECT_GT(histo.histo->bucket_limit.back(), 0.5);
  EXPECT_LT(histo.histo->bucket_limit.back(), 0.5 * 1.1 + 1e-12);

  const auto& img = events[2].summary->at(0);
  EXPECT_EQ(img.tag, "img");
  ASSERT_TRUE(img.image.has_value());
  EXPECT_EQ(img.image->height, 2);
  EXPECT_EQ(img.image->width, 4);
  EXPECT_EQ(img.image->colorspace, 3);
  const testing::DecodedPng png = testing::decode_png(img.image->encoded);
  EXPECT_EQ(png.width, 4);
  EXPECT_EQ(png.height, 2);
  EXPECT_EQ(png.channels, 3);
  EXPECT_EQ(png.pixels, std::vector<uint8_t>(2 * 4 * 3, 127));  // 0.5 * 255, truncated

  const auto& grid = events[3].summary->at(0).image;
  ASSERT_TRUE(grid.has_value());
  EXPECT_EQ(grid->height, 6);  // two rows of 3
  EXPECT_EQ(grid->width, 16);  // eight columns of 2
  EXPECT_EQ(testing::decode_png(grid->encoded).pixels, std::vector<uint8_t>(6 * 16 * 3, 0));

  const auto& rgba = events[4].summary->at(0).image;
  ASSERT_TRUE(rgba.has_value());
  EXPECT_EQ(rgba->colorspace, 4);
  const testing::DecodedPng rgba_png = testing::decode_png(rgba->encoded);
  EXPECT_EQ(rgba_png.channels, 4);
  EXPECT_EQ(rgba_png.pixels, std::vector<uint8_t>(2 * 2 * 4, 200));

  const auto& text = events[5].summary->at(0);
  EXPECT_EQ(text.tag, "notes/text_summary");
  EXPECT_EQ(text.plugin_name, "text");
  EXPECT_EQ(text.tensor->string_val, std::vector<std::string>{"hello"});

  const auto& pr = events[6].summary->at(0);
  EXPECT_EQ(pr.plugin_name, "pr_curves");
  EXPECT_EQ(pr.tensor->shape, (std::vector<int64_t>{6, 3}));
  // Thresholds 0, 0.5, 1: tp 2, 2, 0 (the 0.9 lands in the middle bucket).
  EXPECT_EQ(std::vector<float>(pr.tensor->float_val.begin(), pr.tensor->float_val.begin() + 3),
            (std::vector<float>{2, 2, 0}));
}

TEST_F(SummaryWriterTest, BadArgumentsThrowAtOnceAndWriteNothing) {
  SummaryWriter w(dir_);
  EXPECT_THROW(w.add_histogram("h", empty({0})), ValueError);
  EXPECT_THROW(w.add_image("i", zeros({2, 2})), Error);  // CHW expected
  EXPECT_THROW(w.add_images("i", zeros({1, 2, 2, 2})), ValueError);
  EXPECT_THROW(w.add_hparams({{"a", 1}}, {}, {{"a", {"x"}}}), TypeError);
  w.close();
  EXPECT_EQ(only_file_events(dir_).size(), 1u);
}

TEST_F(SummaryWriterTest, AddScalarsWritesOneRunPerTag) {
  {
    SummaryWriter w(dir_);
    w.add_scalars("run/loss", {{"train", 1.5}, {"test", 2.5}}, 1);
    w.add_scalars("run/loss", {{"train", 1.0}, {"test", 2.0}}, 2);
  }
  EXPECT_EQ(only_file_events(dir_).size(), 1u);
  EXPECT_EQ(testing::subdirectories(dir_),
            (std::vector<std::string>{dir_ + "/run_loss_test", dir_ + "/run_loss_train"}));
  const auto train = only_file_events(dir_ + "/run_loss_train");
  ASSERT_EQ(train.size(), 3u);
  EXPECT_EQ(train[0].file_version, "brain.Event:2");
  EXPECT_EQ(train[1].summary->at(0).tag, "run/loss");
  EXPECT_EQ(train[1].summary->at(0).simple_value, 1.5f);
  EXPECT_EQ(train[1].step, 1);
  EXPECT_EQ(train[2].summary->at(0).simple_value, 1.0f);
  const auto test = only_file_events(dir_ + "/run_loss_test");
  ASSERT_EQ(test.size(), 3u);
  EXPECT_EQ(test[2].summary->at(0).simple_value, 2.0f);
  EXPECT_EQ(test[2].step, 2);
}

TEST_F(SummaryWriterTest, HParamsGoToTheirOwnRun) {
  {
    SummaryWriter w(dir_);
    w.add_hparams({{"lr", 0.1}, {"optimizer", "sgd"}}, {{"hparam/accuracy", 0.9}}, {}, "trial1");
    w.add_hparams({{"lr", 0.2}}, {{"hparam/accuracy", 0.8}});  // named by the time
  }
  const auto runs = testing::subdirectories(dir_);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(std::regex_match(fs::path(runs[0]).filename().string(), std::regex(R"(\d+\.\d+)")))
      << runs[0];
  EXPECT_EQ(runs[1], dir_ + "/trial1");
  const auto events = only_file_events(dir_ + "/trial1");
  ASSERT_EQ(events.size(), 5u);
  const char* tags[] = {"_hparams_/experiment", "_hparams_/session_start_info",
                        "_hparams_/session_end_info", "hparam/accuracy"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(events[i + 1].summary->at(0).tag, tags[i]);
    if (i < 3) {
      EXPECT_EQ(events[i + 1].summary->at(0).plugin_name, "hparams");
    }
  }
  EXPECT_EQ(events[4].summary->at(0).simple_value, 0.9f);
  // The session start holds the values (summary_test checks every field).
  testing::WireMessage data(events[2].summary->at(0).plugin_content);
  const auto entries = data.message(3).messages(1);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].bytes(1), "optimizer");
  EXPECT_EQ(entries[1].message(2).bytes(3), "sgd");
}

TEST_F(SummaryWriterTest, PurgeStepStartsTheFileWithASessionStart) {
  { SummaryWriter w(SummaryWriterOptions().log_dir(dir_).purge_step(40)); }
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].file_version, "brain.Event:2");
  EXPECT_EQ(events[1].step, 40);
  EXPECT_EQ(events[2].session_log_status, 1);  // START
  EXPECT_EQ(events[2].step, 40);
}

TEST_F(SummaryWriterTest, CloseWritesEverythingQueuedAndLaterAddsOpenANewFile) {
  SummaryWriter w(SummaryWriterOptions().log_dir(dir_).max_queue(0).flush_secs(1e6));
  for (int i = 0; i < 1000; ++i) w.add_scalar("x", i, i);
  // Nothing woke the writer thread yet: only the first event is on disk.
  EXPECT_EQ(read_events(w.event_file_path()).size(), 1u);
  const std::string first = w.event_file_path();
  w.close();
  const auto events = read_events(first);
  ASSERT_EQ(events.size(), 1001u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(events[i + 1].step, i);
    EXPECT_EQ(events[i + 1].summary->at(0).simple_value, static_cast<float>(i));
  }
  w.close();  // twice is fine
  EXPECT_EQ(w.event_file_path(), "");
  w.add_scalar("after", 1, 1);
  EXPECT_NE(w.event_file_path(), first);
  w.flush();
  EXPECT_EQ(read_events(w.event_file_path()).size(), 2u);
  EXPECT_EQ(testing::event_files(dir_).size(), 2u);
}

TEST_F(SummaryWriterTest, CallersFarAheadWaitForTheWriterAndLoseNothing) {
  // max_queue 0 and no timer: only the queue's cap (65536 entries) wakes
  // the writer thread while this loop runs.
  SummaryWriter w(SummaryWriterOptions().log_dir(dir_).max_queue(0).flush_secs(1e6));
  for (int i = 0; i < 200000; ++i) w.add_scalar("x", i, i);
  // The writer thread may be midway through a record: read again then.
  size_t written = 0;
  for (int tries = 0; tries < 100; ++tries) {
    try {
      written = read_events(w.event_file_path()).size();
      break;
    } catch (const std::runtime_error&) {  // the reader's "truncated record"
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_GT(written, 1u);
  w.close();
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 200001u);
  EXPECT_EQ(events.back().step, 199999);
}

TEST_F(SummaryWriterTest, FlushWritesEverythingQueued) {
  SummaryWriter w(SummaryWriterOptions().log_dir(dir_).max_queue(0).flush_secs(1e6));
  w.add_text("t", "a");
  w.flush();
  EXPECT_EQ(read_events(w.event_file_path()).size(), 2u);
}

// Polls until the file holds `n` events (the writer thread's own pace; a
// read that meets a record it is midway through is tried again).
bool eventually_has(const std::string& path, size_t n) {
  for (int i = 0; i < 500; ++i) {
    try {
      if (read_events(path).size() == n) return true;
    } catch (const std::runtime_error&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_F(SummaryWriterTest, FullQueueAndTimerWriteWithoutFlush) {
  SummaryWriter by_count(SummaryWriterOptions().log_dir(dir_ + "/count").max_queue(5).flush_secs(1e6));
  for (int i = 0; i < 4; ++i) by_count.add_scalar("x", i);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(read_events(by_count.event_file_path()).size(), 1u);
  by_count.add_scalar("x", 4);  // the fifth entry wakes the writer thread
  EXPECT_TRUE(eventually_has(by_count.event_file_path(), 6));

  SummaryWriter by_time(
      SummaryWriterOptions().log_dir(dir_ + "/time").max_queue(1000).flush_secs(0.05));
  by_time.add_scalar("x", 1);
  EXPECT_TRUE(eventually_has(by_time.event_file_path(), 2));
}

TEST_F(SummaryWriterTest, ManyThreadsLoseNothing) {
  {
    SummaryWriter w(SummaryWriterOptions().log_dir(dir_).max_queue(7));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&w, t] {
        for (int i = 0; i < 2000; ++i) w.add_scalar("thread" + std::to_string(t), i, i);
      });
    }
    for (auto& th : threads) th.join();
  }
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 8001u);
  std::map<std::string, int64_t> next;
  for (size_t i = 1; i < events.size(); ++i) {
    const std::string& tag = events[i].summary->at(0).tag;
    EXPECT_EQ(events[i].step, next[tag]++) << tag;  // each thread's order is kept
  }
}

TEST_F(SummaryWriterTest, LeakedWriterIsFlushedAtNormalExit) {
  const pid_t pid = fork();
  if (pid == 0) {
    auto* w = new SummaryWriter(SummaryWriterOptions().log_dir(dir_).max_queue(0).flush_secs(1e6));
    for (int i = 0; i < 100; ++i) w->add_scalar("x", i, i);
    std::exit(0);  // never deleted: the atexit handler writes the queue
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(only_file_events(dir_).size(), 101u);
}

TEST_F(SummaryWriterTest, ForkedChildLeavesTheParentsWriterAlone) {
  SummaryWriter w(SummaryWriterOptions().log_dir(dir_).max_queue(0).flush_secs(1e6));
  w.add_scalar("parent", 1, 1);
  const pid_t pid = fork();
  if (pid == 0) {
    // The copy has no thread: destroying it and exiting (atexit included)
    // must neither hang nor write.
    { SummaryWriter copy = std::move(w); }
    std::exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  w.close();
  const auto events = only_file_events(dir_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].summary->at(0).tag, "parent");
}

TEST_F(SummaryWriterTest, UnwritableLogDirIsAnErrorNamingIt) {
  fs::create_directories(dir_);
  const std::string file = dir_ + "/file";
  std::ofstream(file) << "x";
  try {
    SummaryWriter w(file + "/run");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create log_dir '" + file + "/run'"),
              std::string::npos)
        << e.what();
  }
  if (::geteuid() != 0) {  // root writes anywhere
    const std::string locked = dir_ + "/locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(SummaryWriter w(locked), Error);
  }
}

TEST_F(SummaryWriterTest, RemovedDirectoryIsReportedNotACrash) {
  SummaryWriter w(dir_);
  w.add_scalar("x", 1, 1);
  w.flush();
  fs::remove_all(dir_);
  w.add_scalar("x", 2, 2);  // logging goes on: no exception here
  try {
    w.flush();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("was removed"), std::string::npos) << e.what();
  }
  w.add_scalar("x", 3, 3);
  w.flush();  // reported once
  w.close();
}

TEST_F(SummaryWriterTest, FullDiskIsReportedAtCloseNotACrash) {
  // A file size limit stands in for a full disk: write(2) fails with EFBIG.
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    SummaryWriter w(dir_);
    struct rlimit limit = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    for (int i = 0; i < 1000; ++i) w.add_scalar("a_rather_long_tag_name", i, i);
    try {
      w.close();
    } catch (const Error& e) {
      const bool named = std::string(e.what()).find("File too large") != std::string::npos;
      std::_Exit(named ? 3 : 4);
    }
    std::_Exit(5);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  // The failed write was cut back: the file holds whole records only (the
  // reader checks every one), short of the 1001 logged.
  const auto events = only_file_events(dir_);
  EXPECT_GE(events.size(), 1u);
  EXPECT_LT(events.size(), 1001u);
  EXPECT_LE(fs::file_size(testing::event_files(dir_)[0]), 4096u);
}

TEST_F(SummaryWriterTest, MovedWriterKeepsWriting) {
  SummaryWriter a(dir_);
  a.add_scalar("x", 1, 1);
  SummaryWriter b = std::move(a);
  b.add_scalar("x", 2, 2);
  b.close();
  EXPECT_EQ(only_file_events(dir_).size(), 3u);
}

}  // namespace
}  // namespace tensorboard
}  // namespace ember
