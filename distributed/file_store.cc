#include "distributed/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kHeader[8] = {'E', 'M', 'B', 'F', 'S', 'T', '0', '1'};
constexpr int64_t kDeleted = -1;

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
void put_i64(std::string& s, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(u >> (8 * i)));
}
uint64_t get_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

class FileStore::Locked {
 public:
  explicit Locked(FileStore& s) : s_(s), lock_(s.mu_) {
    while (flock(s_.fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        throw Error(absl::StrCat("FileStore: flock(", s_.path_, ") failed: ",
                                 std::strerror(errno)));
      }
    }
    try {
      s_.refresh_locked();
    } catch (...) {
      flock(s_.fd_, LOCK_UN);
      throw;
    }
  }
  ~Locked() { flock(s_.fd_, LOCK_UN); }

 private:
  FileStore& s_;
  std::lock_guard<std::mutex> lock_;
};

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout)
    : Store(timeout), path_(std::move(path)) {
  EMBER_CHECK_VALUE(!path_.empty(), "FileStore: empty path");
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw Error(absl::StrCat("FileStore: cannot open ", path_, ": ", std::strerror(errno)));
  }
  try {
    Locked lock(*this);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

FileStore::~FileStore() {
  if (fd_ >= 0) ::close(fd_);
}

// Reads the records appended since pos_ (with the flock held).
void FileStore::refresh_locked() {
  struct stat st;
  if (fstat(fd_, &st) != 0) {
    throw Error(absl::StrCat("FileStore: fstat(", path_, ") failed: ", std::strerror(errno)));
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < pos_) {
    throw Error(absl::StrCat("FileStore: ", path_, " shrank from ", pos_, " to ", size,
                             " bytes (was it truncated or replaced while in use?)"));
  }
  if (size == 0) {
    if (pwrite(fd_, kHeader, sizeof(kHeader), 0) != static_cast<ssize_t>(sizeof(kHeader))) {
      throw Error(absl::StrCat("FileStore: cannot write ", path_, ": ", std::strerror(errno)));
    }
    pos_ = sizeof(kHeader);
    return;
  }
  if (size == pos_) return;
  std::vector<uint8_t> buf(size - pos_);
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t n = pread(fd_, buf.data() + got, buf.size() - got, pos_ + got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(absl::StrCat("FileStore: cannot read ", path_));
    got += static_cast<size_t>(n);
  }
  size_t off = 0;
  if (pos_ == 0) {
    if (buf.size() < sizeof(kHeader) || std::memcmp(buf.data(), kHeader, sizeof(kHeader)) != 0) {
      if (buf.size() < sizeof(kHeader) &&
          std::memcmp(buf.data(), kHeader, buf.size()) == 0) {
        // A header cut short by a creator that died: start over.
        if (ftruncate(fd_, 0) != 0) throw Error("FileStore: ftruncate failed");
        pos_ = 0;
        refresh_locked();
        return;
      }
      throw Error(absl::StrCat("FileStore: ", path_, " is not a FileStore file (bad header)"));
    }
    off = sizeof(kHeader);
  }
  // Records: u32 key length, key, i64 value length (-1: deleted), value.
  while (off < buf.size()) {
    const size_t start = off;
    const size_t left = buf.size() - off;
    bool torn = false;
    if (left < 4) {
      torn = true;
    } else {
      uint64_t klen = get_le(buf.data() + off, 4);
      if (left < 4 + klen + 8) {
        torn = true;
      } else {
        std::string key(reinterpret_cast<const char*>(buf.data() + off + 4), klen);
        int64_t vlen = static_cast<int64_t>(get_le(buf.data() + off + 4 + klen, 8));
        off += 4 + klen + 8;
        if (vlen == kDeleted) {
          map_.erase(key);
        } else if (vlen < 0) {
          throw Error(absl::StrCat("FileStore: ", path_, " is corrupt at offset ",
                                   pos_ + start, " (value length ", vlen, ")"));
        } else if (static_cast<uint64_t>(vlen) > buf.size() - off) {
          torn = true;
          off = start;
        } else {
          map_[key].assign(buf.begin() + off, buf.begin() + off + vlen);
          off += static_cast<size_t>(vlen);
        }
      }
    }
    if (torn) {
      // A writer died mid-append (writers hold the lock): drop its record.
      if (ftruncate(fd_, static_cast<off_t>(pos_ + start)) != 0) {
        throw Error(absl::StrCat("FileStore: cannot truncate ", path_, ": ",
                                 std::strerror(errno)));
      }
      pos_ += start;
      return;
    }
  }
  pos_ += buf.size();
}

void FileStore::append_locked(const std::string& key, const std::vector<uint8_t>* value) {
  std::string rec;
  rec.reserve(16 + key.size() + (value ? value->size() : 0));
  put_u32(rec, static_cast<uint32_t>(key.size()));
  rec += key;
  put_i64(rec, value ? static_cast<int64_t>(value->size()) : kDeleted);
  if (value) rec.append(value->begin(), value->end());
  size_t done = 0;
  while (done < rec.size()) {
    ssize_t n = pwrite(fd_, rec.data() + done, rec.size() - done, pos_ + done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      if (ftruncate(fd_, static_cast<off_t>(pos_)) != 0) {
      }
      throw Error(absl::StrCat("FileStore: cannot write ", path_, ": ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  pos_ += rec.size();
  if (value) {
    map_[key] = *value;
  } else {
    map_.erase(key);
  }
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  EMBER_CHECK_VALUE(key.size() <= 0xffffffffu, "FileStore: key too long");
  Locked lock(*this);
  append_locked(key, &value);
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  for (;;) {
    wait({key}, timeout_);
    Locked lock(*this);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    // Deleted between the wait and the read: wait for it again.
  }
}

int64_t FileStore::add(const std::string& key, int64_t value) {
  Locked lock(*this);
  int64_t cur = 0;
  auto it = map_.find(key);
  if (it != map_.end()) {
    std::string s(it->second.begin(), it->second.end());
    if (!absl::SimpleAtoi(s, &cur)) {
      throw Error(absl::StrCat("add: the value of key '", key, "' is not an integer"));
    }
  }
  cur += value;
  std::string s = absl::StrCat(cur);
  std::vector<uint8_t> v(s.begin(), s.end());
  append_locked(key, &v);
  return cur;
}

std::vector<uint8_t> FileStore::compare_set(const std::string& key,
                                            const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
  Locked lock(*this);
  auto it = map_.find(key);
  if (it == map_.end()) {
    if (!expected.empty()) return expected;
  } else if (it->second != expected) {
    return it->second;
  }
  append_locked(key, &desired);
  return desired;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  Locked lock(*this);
  for (const auto& k : keys)
    if (!map_.count(k)) return false;
  return true;
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  if (timeout == kNoTimeout) timeout = timeout_;
  const bool unlimited = timeout.count() < 0;
  const auto deadline = Clock::now() + (unlimited ? std::chrono::milliseconds(0) : timeout);
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    if (check(keys)) return;
    auto now = Clock::now();
    if (!unlimited && now >= deadline) {
      throw TimeoutError(absl::StrCat("Timed out after ", timeout.count() / 1000.0,
                                      " s waiting for keys [", absl::StrJoin(keys, ", "),
                                      "] in FileStore ", path_));
    }
    auto sleep = pause;
    if (!unlimited) {
      sleep = std::min(sleep, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - now + std::chrono::milliseconds(1)));
    }
    std::this_thread::sleep_for(sleep);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

bool FileStore::delete_key(const std::string& key) {
  Locked lock(*this);
  if (!map_.count(key)) return false;
  append_locked(key, nullptr);
  return true;
}

int64_t FileStore::num_keys() {
  Locked lock(*this);
  return static_cast<int64_t>(map_.size());
}

std::shared_ptr<Store> FileStore::clone(std::chrono::milliseconds timeout) const {
  return std::make_shared<FileStore>(path_, timeout);
}

}  // namespace ember::distributed
