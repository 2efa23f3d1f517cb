#include "serialize/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
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

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

// Whether `pid` (of this host) has exited; zombies count as exited.
bool writer_gone(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char buf[512];
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');
  return paren != nullptr && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

}  // namespace

void sweep_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  const std::string marker = absl::StrCat(".tmp-", host_name(), "-");
  while (dirent* e = ::readdir(d)) {
    // .<name>.tmp-<host>-<pid>-XXXXXX
    const std::string name = e->d_name;
    if (name.empty() || name[0] != '.') continue;
    const size_t at = name.rfind(marker);
    if (at == std::string::npos) continue;
    const std::string rest = name.substr(at + marker.size());  // <pid>-XXXXXX
    const size_t dash = rest.find('-');
    int pid = 0;
    if (dash == std::string::npos || rest.size() - dash - 1 != 6 ||
        !absl::SimpleAtoi(rest.substr(0, dash), &pid) || pid <= 0 || pid == ::getpid()) {
      continue;
    }
    if (writer_gone(pid)) ::unlinkat(::dirfd(d), name.c_str(), 0);
  }
  ::closedir(d);
}

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
  sweep_stale_temporaries(dir);
  std::string tmpl =
      absl::StrCat(dir, "/.", base, ".tmp-", host_name(), "-", ::getpid(), "-XXXXXX");
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
