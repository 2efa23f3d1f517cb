#ifndef EMBER_TENSOR_FILES_H_
#define EMBER_TENSOR_FILES_H_

// Reading files that a user names (checkpoints, data sets) without being
// stuck on what is not a file. open(2) of a FIFO blocks until a writer
// appears, and a character device can produce bytes forever, so a path is
// opened non-blocking and checked with fstat before anything is read:
// anything but a regular file is refused with an ember::Error that says
// what the path is ("'x' is a directory", "'x' is a FIFO, not a regular
// file"), never a hang and never a misleading "0 bytes".

#include <string>

namespace ember {

// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Opens `path` read-only (close-on-exec, blocking reads) if it is a regular
// file, or a symlink to one; throws ember::Error naming the path otherwise:
//   cannot open 'x': No such file or directory
//   cannot read 'x': it is a directory
//   cannot read 'x': it is a FIFO, not a regular file
FileDescriptor open_regular_file(const std::string& path);

// The whole contents of the regular file `path` (open_regular_file's errors,
// and read errors naming the path).
std::string read_regular_file(const std::string& path);

// What the file system object at `path` is ("a directory", "a FIFO", "a
// socket", "a character device", "a block device", "a regular file"), or
// "" when nothing is there (stat fails).
std::string describe_file_type(const std::string& path);

}  // namespace ember

#endif  // EMBER_TENSOR_FILES_H_
