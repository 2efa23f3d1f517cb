#include "tensor/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember {
namespace {

const char* type_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::string not_regular(const std::string& path, mode_t mode) {
  if (S_ISDIR(mode)) return absl::StrCat("cannot read '", path, "': it is a directory");
  return absl::StrCat("cannot read '", path, "': it is ", type_of(mode), ", not a regular file");
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

FileDescriptor open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
  // waiting for one; fstat then says what it is.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) {
    const int err = errno;
    struct stat st;
    if (err == ENXIO && ::stat(path.c_str(), &st) == 0) throw Error(not_regular(path, st.st_mode));
    throw Error(absl::StrCat("cannot open '", path, "': ", std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    const int err = errno;
    throw Error(absl::StrCat("cannot read '", path, "': fstat failed: ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) throw Error(not_regular(path, st.st_mode));
  // Regular files ignore O_NONBLOCK, but later readers should not see it.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path) {
  FileDescriptor fd = open_regular_file(path);
  struct stat st;
  std::string out;
  if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw Error(absl::StrCat("cannot read '", path, "': ", std::strerror(err)));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string describe_file_type(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return type_of(st.st_mode);
}

}  // namespace ember
