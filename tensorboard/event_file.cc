#include "tensorboard/event_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensor/crc32c.h"
#include "tensor/error.h"
#include "tensorboard/proto_encoder.h"

namespace ember {
namespace tensorboard {

namespace {

void put_le(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// tensorboard's _global_uid: the files this process opened, from 0.
std::atomic<int64_t> next_uid{0};

}  // namespace

namespace {

constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5, kSessionLog = 7;

// Event{wall_time, step, <what>}.
template <typename What>
std::string event(double wall_time, int64_t step, What&& what) {
  std::string out;
  ProtoEncoder e(&out);
  e.add_double(kWallTime, wall_time);
  e.add_varint(kStep, step);
  what(e);
  return out;
}

}  // namespace

std::string file_version_event(double wall_time, int64_t step) {
  return event(wall_time, step, [](ProtoEncoder& e) {
    e.add_bytes(kFileVersion, "brain.Event:2", Presence::kExplicit);
  });
}

std::string session_start_event(double wall_time, int64_t step) {
  constexpr int kStatus = 1, kStart = 1;  // SessionLog.status, SessionStatus.START
  return event(wall_time, step, [](ProtoEncoder& e) {
    e.add_message(kSessionLog, [](ProtoEncoder& log) { log.add_varint(kStatus, kStart); });
  });
}

std::string summary_event(double wall_time, int64_t step, std::string_view summary) {
  return event(wall_time, step, [&](ProtoEncoder& e) { e.add_message(kSummary, summary); });
}

uint32_t masked_crc32c(std::string_view data) {
  const uint32_t crc = crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

void append_record(std::string* out, std::string_view data) {
  std::string header;
  put_le(&header, data.size(), 8);
  out->append(header);
  put_le(out, masked_crc32c(header), 4);
  out->append(data.data(), data.size());
  put_le(out, masked_crc32c(data), 4);
}

std::string event_file_name(double wall_time, const std::string& host, int64_t pid, int64_t uid,
                            const std::string& suffix) {
  return absl::StrFormat("events.out.tfevents.%010d.%s.%d.%d%s",
                         static_cast<int64_t>(std::floor(wall_time)), host, pid, uid, suffix);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

double wall_time_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

EventFile::EventFile(std::string log_dir, const std::string& filename_suffix)
    : log_dir_(std::move(log_dir)) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  if (ec) throw Error(absl::StrCat("cannot create log_dir '", log_dir_, "': ", ec.message()));
  const double now = wall_time_now();
  path_ = absl::StrCat(log_dir_, "/",
                       event_file_name(now, host_name(), ::getpid(), next_uid++, filename_suffix));
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(absl::StrCat("cannot create the event file '", path_, "': ", std::strerror(err)));
  }
  append(file_version_event(now));
  const std::string error = write_buffered();
  if (!error.empty()) {
    ::close(fd_);
    fd_ = -1;
    throw Error(error);
  }
}

EventFile::~EventFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string EventFile::fail(std::string message) {
  failed_ = true;
  buffer_.clear();
  return message;
}

std::string EventFile::write_buffered() {
  if (failed_ || fd_ < 0) {
    buffer_.clear();
    return "";
  }
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      // Back to the last whole record, so that readers see no torn one.
      const bool cut = ::ftruncate(fd_, static_cast<off_t>(written_)) == 0;
      return fail(absl::StrCat("writing the event file '", path_, "' failed: ", std::strerror(err),
                               "; events logged since are lost",
                               cut ? "" : " (and the file may end in a partial record)"));
    }
    done += static_cast<size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
  // Writes to an unlinked file succeed; ask whether it still has a name.
  struct stat st;
  if (::fstat(fd_, &st) == 0 && st.st_nlink == 0) {
    return fail(absl::StrCat("the event file '", path_,
                             "' was removed (was its directory deleted?); events logged to it "
                             "are lost"));
  }
  return "";
}

std::string EventFile::close() {
  std::string error = write_buffered();
  if (fd_ >= 0) {
    if (::close(fd_) != 0 && error.empty() && !failed_) {
      const int err = errno;
      error = fail(absl::StrCat("closing the event file '", path_, "' failed: ",
                                std::strerror(err)));
    }
    fd_ = -1;
  }
  return error;
}

}  // namespace tensorboard
}  // namespace ember
