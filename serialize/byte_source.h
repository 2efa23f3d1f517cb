#ifndef EMBER_SERIALIZE_BYTE_SOURCE_H_
#define EMBER_SERIALIZE_BYTE_SOURCE_H_

// Random-access reads of a file's bytes (or of bytes in memory), so that
// readers of safetensors and .pt files check headers first and copy tensor
// data straight into tensors, never holding a whole checkpoint twice.

#include <cstdint>
#include <string>
#include <string_view>

#include "tensor/files.h"

namespace ember {
namespace serialize_internal {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads [offset, offset + n) into dst; the caller has checked that the
  // range lies within size(). Throws ember::Error on I/O errors.
  virtual void read(uint64_t offset, void* dst, uint64_t n) const = 0;
  // The range as a string (n bytes allocated: check n first).
  std::string read_string(uint64_t offset, uint64_t n) const;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, void* dst, uint64_t n) const override;

 private:
  std::string_view bytes_;
};

// A regular file (open_regular_file: FIFOs, directories and devices are
// refused before anything is read), read with pread.
class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, uint64_t n) const override;

 private:
  std::string path_;
  FileDescriptor fd_;
  uint64_t size_ = 0;
};

}  // namespace serialize_internal
}  // namespace ember

#endif  // EMBER_SERIALIZE_BYTE_SOURCE_H_
