#include "serialize/byte_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember {
namespace serialize_internal {

std::string ByteSource::read_string(uint64_t offset, uint64_t n) const {
  std::string out(static_cast<size_t>(n), '\0');
  if (n > 0) read(offset, out.data(), n);
  return out;
}

void MemorySource::read(uint64_t offset, void* dst, uint64_t n) const {
  EMBER_CHECK(offset <= bytes_.size() && n <= bytes_.size() - offset, "read of bytes [", offset,
              ", ", offset + n, ") past the end of ", bytes_.size());
  std::memcpy(dst, bytes_.data() + offset, static_cast<size_t>(n));
}

FileSource::FileSource(const std::string& path) : path_(path), fd_(open_regular_file(path)) {
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) {
    const int err = errno;
    throw Error(absl::StrCat("cannot read '", path, "': ", std::strerror(err)));
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

void FileSource::read(uint64_t offset, void* dst, uint64_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd_.get(), p, static_cast<size_t>(std::min<uint64_t>(n, 1 << 30)),
                              static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw Error(absl::StrCat("cannot read '", path_, "': ", std::strerror(err)));
    }
    if (r == 0) {
      throw Error(absl::StrCat("cannot read '", path_, "': it was truncated while it was read"));
    }
    p += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<uint64_t>(r);
  }
}

}  // namespace serialize_internal
}  // namespace ember
