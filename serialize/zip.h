#ifndef EMBER_SERIALIZE_ZIP_H_
#define EMBER_SERIALIZE_ZIP_H_

// A minimal zip reader and writer for the archives torch.save makes
// (pt.h). Note [Zip archives]: torch.save writes every record "stored"
// (uncompressed), its data aligned to 64 bytes by padding in the local
// header's extra field, CRC-32 and sizes in a data descriptor after the data,
// and zip64 end records. The reader takes the central directory as the truth
// and checks everything against the file before anything is allocated:
// the end records (zip64 too), every central and local header, that each
// record's data lies inside the file and before the central directory,
// that no two records overlap, that names are unique, and, when reading, the
// CRC-32. Stored and deflated records are read (deflate through zlib, with
// the output held to the declared size); encryption, other methods and
// multi-disk archives are refused. Every error says what was wrong.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "serialize/byte_source.h"

namespace ember {
namespace serialize_internal {

class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint16_t method = 0;  // 0 stored, 8 deflated
    uint32_t crc32 = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;         // uncompressed
    uint64_t data_offset = 0;  // where the (compressed) data starts
  };

  // Reads and validates the directory; throws ember::Error("invalid zip
  // archive: ...") when anything is wrong. `source` must outlive the reader.
  explicit ZipReader(const ByteSource& source);

  const std::vector<Entry>& entries() const { return entries_; }
  // The entry called `name`, or nullptr.
  const Entry* find(const std::string& name) const;
  // Extracts the entry's entry.size bytes into dst; checks the CRC-32 when
  // verify_crc is set.
  void read(const Entry& entry, void* dst, bool verify_crc = true) const;
  std::string read_string(const Entry& entry, bool verify_crc = true) const;

 private:
  const ByteSource& source_;
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, size_t> by_name_;  // a hostile archive may hold millions
};

// Writes a zip archive as torch.save lays it out (Note [Zip archives]),
// with the CRC-32 and sizes in each local header instead of a data
// descriptor; zip64 records where sizes or offsets need them.
class ZipWriter {
 public:
  using Sink = std::function<void(const void* data, size_t n)>;
  // force_zip64: write zip64 fields even for small archives (tests).
  explicit ZipWriter(Sink sink, bool force_zip64 = false);

  void add(const std::string& name, const void* data, uint64_t n);
  // Writes the central directory and end records; nothing may be added after.
  void finish();

  static constexpr uint64_t kAlignment = 64;

 private:
  struct Written {
    std::string name;
    uint32_t crc32;
    uint64_t size;
    uint64_t offset;
    bool zip64;
  };
  void emit(const std::string& bytes);

  Sink sink_;
  bool force_zip64_;
  bool finished_ = false;
  uint64_t offset_ = 0;
  std::vector<Written> written_;
};

}  // namespace serialize_internal
}  // namespace ember

#endif  // EMBER_SERIALIZE_ZIP_H_
