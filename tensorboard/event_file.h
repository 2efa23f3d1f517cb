#ifndef EMBER_TENSORBOARD_EVENT_FILE_H_
#define EMBER_TENSORBOARD_EVENT_FILE_H_

// One TensorBoard event file: events.out.tfevents.<time>.<host>.<pid>.<n>
// <suffix> in a log directory, the name tensorboard's EventFileWriter gives
// it, holding Event messages in TFRecord framing. SummaryWriter (
// summary_writer.h) owns these; it is the public API.

#include <cstdint>
#include <string>
#include <string_view>

namespace ember {
namespace tensorboard {

// ---- Event messages (event.proto: wall_time 1, step 2, file_version 3,
// summary 5, session_log 7).

// The first event of every file: file_version "brain.Event:2".
std::string file_version_event(double wall_time, int64_t step = 0);
// SessionLog START at `step`: TensorBoard hides the events of an earlier
// run from `step` on (SummaryWriter's purge_step).
std::string session_start_event(double wall_time, int64_t step);
// An Event holding a serialized Summary (summary.h builds them).
std::string summary_event(double wall_time, int64_t step, std::string_view summary);

// ---- Files.

// Appends one TFRecord to *out: the length (uint64, little-endian), the
// masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of the
// data (each uint32, little-endian). Masking is TFRecord's: rotate right by
// 15 bits and add 0xa282ead8.
void append_record(std::string* out, std::string_view data);
uint32_t masked_crc32c(std::string_view data);

// events.out.tfevents.%010d.<host>.<pid>.<uid><suffix>, as tensorboard's
// EventFileWriter names it (the seconds truncated, uid counting the files
// this process opened, from 0).
std::string event_file_name(double wall_time, const std::string& host, int64_t pid, int64_t uid,
                            const std::string& suffix);

// The machine's host name (socket.gethostname()).
std::string host_name();

// Seconds since the epoch (time.time()).
double wall_time_now();

class EventFile {
 public:
  // Makes log_dir (with its parents), creates the file there and writes its
  // first event (file_version "brain.Event:2" at the current time). Throws
  // ember::Error naming the path when any of that fails.
  EventFile(std::string log_dir, const std::string& filename_suffix);
  ~EventFile();
  EventFile(const EventFile&) = delete;
  EventFile& operator=(const EventFile&) = delete;

  const std::string& log_dir() const { return log_dir_; }
  const std::string& path() const { return path_; }

  // Frames a serialized Event into the buffer; nothing is written yet.
  void append(std::string_view event) { append_record(&buffer_, event); }
  bool has_buffered() const { return !buffer_.empty(); }

  // Writes the buffer. Returns "" or, the first time something goes wrong,
  // what went wrong: a failed write (disk full, I/O error), or the file gone
  // from its folder (unlinked: its directory was removed), which writing
  // to the open descriptor would not reveal. After a failure the file takes
  // nothing more, and what a failed write left of its records is cut off
  // again: the file holds whole records only.
  std::string write_buffered();
  // write_buffered(), then close(2); "" or the first error.
  std::string close();

 private:
  std::string fail(std::string message);

  std::string log_dir_;
  std::string path_;
  int fd_ = -1;
  bool failed_ = false;
  uint64_t written_ = 0;  // bytes of whole records in the file
  std::string buffer_;
};

}  // namespace tensorboard
}  // namespace ember

#endif  // EMBER_TENSORBOARD_EVENT_FILE_H_
