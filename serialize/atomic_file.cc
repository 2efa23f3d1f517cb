#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember {
namespace serialize_internal {
namespace {

std::atomic<WriteHook> g_write_hook{nullptr};

// Writes go out in pieces of this size so that huge tensors do not need one
// giant write(2), and so that the test hook sees progress.
constexpr size_t kChunk = size_t{4} << 20;

std::string errno_text(int err) { return std::strerror(err); }

void split_path(const std::string& path, std::string* dir, std::string* base) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *base = path;
  } else {
    *dir = slash == 0 ? "/" : path.substr(0, slash);
    *base = path.substr(slash + 1);
  }
}

}  // namespace

void set_write_hook(WriteHook hook) { g_write_hook.store(hook); }

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  // Saving to a symlink replaces the file it points to, as open(2) would
  // (a dangling link is replaced itself).
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      path_ = real;
      ::free(real);
    }
  }
  std::string dir, base;
  split_path(path_, &dir, &base);
  EMBER_CHECK(!base.empty(), "cannot save to '", path, "': the path names a directory");
  std::string tmpl = absl::StrCat(dir, "/.", base, ".tmp-XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  if (fd_ < 0) {
    int err = errno;
    throw Error(absl::StrCat("cannot save to '", path, "': creating a temporary file in '", dir,
                             "' failed: ", errno_text(err)));
  }
  temp_path_ = buf.data();
  // mkstemp makes the file 0600; give it the permissions a plain create would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    size_t n = std::min(size, kChunk);
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      throw Error(absl::StrCat("cannot save to '", path_, "': write failed: ", errno_text(err)));
    }
    p += w;
    size -= static_cast<size_t>(w);
    written_ += w;
    if (WriteHook hook = g_write_hook.load()) hook(written_);
  }
}

void AtomicFile::commit() {
  EMBER_CHECK(!committed_ && fd_ >= 0, "AtomicFile::commit called twice");
  if (::fsync(fd_) != 0) {
    int err = errno;
    throw Error(absl::StrCat("cannot save to '", path_, "': fsync failed: ", errno_text(err)));
  }
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    int err = errno;
    throw Error(absl::StrCat("cannot save to '", path_, "': close failed: ", errno_text(err)));
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    throw Error(absl::StrCat("cannot save to '", path_, "': rename failed: ", errno_text(err)));
  }
  committed_ = true;
  std::string dir, base;
  split_path(path_, &dir, &base);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    // The rename is done; a failing directory fsync (some filesystems refuse
    // it) only weakens durability across a power cut, so it is not an error.
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace serialize_internal
}  // namespace ember
