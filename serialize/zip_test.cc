// The zip reader and writer behind .pt files (Note [Zip archives]).
#include "serialize/zip.h"

#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "serialize/byte_source.h"
#include "tensor/error.h"

namespace ember {
namespace serialize_internal {
namespace {

using Records = std::vector<std::pair<std::string, std::string>>;

std::string write_zip(const Records& records, bool zip64 = false) {
  std::string out;
  ZipWriter zip([&](const void* d, size_t n) { out.append(static_cast<const char*>(d), n); },
                zip64);
  for (const auto& r : records) zip.add(r.first, r.second.data(), r.second.size());
  zip.finish();
  return out;
}

Records read_zip(const std::string& bytes) {
  MemorySource src(bytes);
  ZipReader zip(src);
  Records out;
  for (const auto& e : zip.entries()) out.emplace_back(e.name, zip.read_string(e));
  return out;
}

std::string read_error(const std::string& bytes) {
  try {
    read_zip(bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ZIP_ERROR(bytes, text)                                     \
  do {                                                                    \
    const std::string msg_ = read_error(bytes);                           \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_; \
    EXPECT_EQ(msg_.rfind("invalid zip archive: ", 0), 0u) << msg_;        \
  } while (0)

uint32_t get32(const std::string& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
void set16(std::string* b, size_t at, uint16_t v) { std::memcpy(&(*b)[at], &v, 2); }
void set32(std::string* b, size_t at, uint32_t v) { std::memcpy(&(*b)[at], &v, 4); }
size_t find_sig(const std::string& b, uint32_t sig, size_t from = 0) {
  for (size_t i = from; i + 4 <= b.size(); ++i) {
    if (get32(b, i) == sig) return i;
  }
  return std::string::npos;
}
constexpr uint32_t kCentral = 0x02014b50, kEnd = 0x06054b50, kLocal = 0x04034b50;

const Records kRecords = {{"a/data.pkl", "\x80\x02N."},
                          {"a/data/0", std::string(100, 'x')},
                          {"a/empty", ""},
                          {"a/version", "3\n"}};

TEST(ZipTest, RoundTripsWithDataAlignedTo64Bytes) {
  const std::string bytes = write_zip(kRecords);
  EXPECT_EQ(read_zip(bytes), kRecords);
  MemorySource src(bytes);
  ZipReader zip(src);
  for (const auto& e : zip.entries()) EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
  EXPECT_EQ(zip.find("a/empty")->size, 0u);
  EXPECT_EQ(zip.find("absent"), nullptr);
}

TEST(ZipTest, Zip64RecordsReadTheSame) {
  const std::string bytes = write_zip(kRecords, /*zip64=*/true);
  EXPECT_EQ(read_zip(bytes), kRecords);
  EXPECT_NE(find_sig(bytes, 0x06064b50), std::string::npos);  // zip64 end record
  EXPECT_NE(find_sig(bytes, 0x07064b50), std::string::npos);  // and its locator
}

// A zip as Python's zipfile writes it with ZIP_DEFLATED and a data
// descriptor: deflate the data by hand.
std::string deflated_zip(const std::string& name, const std::string& data, bool corrupt = false) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(data.size()) + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = data.size();
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (corrupt) out[out.size() / 2] ^= 0x55;
  const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()), data.size());
  auto le = [](uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    return s;
  };
  std::string zip = le(kLocal, 4) + le(20, 2) + le(8, 2) + le(8, 2) + le(0, 4) + le(0, 4) +
                    le(0, 4) + le(0, 4) + le(name.size(), 2) + le(0, 2) + name + out +
                    le(0x08074b50, 4) + le(crc, 4) + le(out.size(), 4) + le(data.size(), 4);
  const size_t cd = zip.size();
  zip += le(kCentral, 4) + le(20, 2) + le(20, 2) + le(8, 2) + le(8, 2) + le(0, 4) + le(crc, 4) +
         le(out.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + le(0, 2) +
         le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) + name;
  const size_t cd_size = zip.size() - cd;
  zip += le(kEnd, 4) + le(0, 4) + le(1, 2) + le(1, 2) + le(cd_size, 4) + le(cd, 4) + le(0, 2);
  return zip;
}

TEST(ZipTest, ReadsDeflatedRecordsWithDataDescriptors) {
  const std::string data(5000, 'q');
  EXPECT_EQ(read_zip(deflated_zip("a/x", data)), (Records{{"a/x", data}}));
  EXPECT_ZIP_ERROR(deflated_zip("a/x", data, /*corrupt=*/true), "entry 'a/x'");
}

TEST(ZipTest, ChecksTheCrc) {
  std::string bytes = write_zip(kRecords);
  MemorySource src0(bytes);
  const uint64_t at = ZipReader(src0).find("a/data/0")->data_offset;
  bytes[at + 50] = 'y';
  EXPECT_ZIP_ERROR(bytes, "entry 'a/data/0': CRC-32 mismatch (stored ");
  MemorySource src(bytes);
  ZipReader zip(src);
  EXPECT_EQ(zip.read_string(*zip.find("a/data/0"), /*verify_crc=*/false)[50], 'y');
}

TEST(ZipTest, RefusesBrokenEndRecords) {
  EXPECT_ZIP_ERROR("", "too few for an end of central directory record");
  EXPECT_ZIP_ERROR(std::string(100, 'P'), "no end of central directory record");
  std::string bytes = write_zip(kRecords);
  EXPECT_ZIP_ERROR(bytes.substr(0, bytes.size() - 1), "no end of central directory record");
  const size_t end = find_sig(bytes, kEnd);
  std::string b = bytes;
  set16(&b, end + 4, 1);  // disk number
  EXPECT_ZIP_ERROR(b, "multi-disk archives are not supported");
  b = bytes;
  set32(&b, end + 16, get32(bytes, end + 16) - 1);  // directory offset
  EXPECT_ZIP_ERROR(b, "does not end where the end records begin");
  b = bytes;
  set16(&b, end + 8, 200);
  set16(&b, end + 10, 200);
  EXPECT_ZIP_ERROR(b, "announces 200 entries but the central directory has room for");
  b = bytes;
  set32(&b, end + 16, 0xFFFFFFFF);
  EXPECT_ZIP_ERROR(b, "needs zip64 values but there is no zip64 end locator");
  // zip64: the 32-bit fields must agree with the zip64 ones.
  std::string z = write_zip(kRecords, true);
  const size_t zend = find_sig(z, kEnd);
  const size_t rec = find_sig(z, 0x06064b50);
  std::string zb = z;
  set32(&zb, rec + 48, get32(z, rec + 48) + 1);
  EXPECT_ZIP_ERROR(zb, "");
  zb = z;
  set32(&zb, zend - 20 + 8, 3);  // locator -> nowhere
  EXPECT_ZIP_ERROR(zb, "zip64");
}

TEST(ZipTest, RefusesBrokenCentralAndLocalHeaders) {
  const std::string bytes = write_zip(kRecords);
  const size_t cd = find_sig(bytes, kCentral);
  auto with = [&](size_t at, int width, uint32_t v) {
    std::string b = bytes;
    if (width == 2) {
      set16(&b, at, static_cast<uint16_t>(v));
    }
    else
      set32(&b, at, v);
    return b;
  };
  EXPECT_ZIP_ERROR(with(cd, 4, 0), "central directory entry 0 has no central header signature");
  EXPECT_ZIP_ERROR(with(cd + 8, 2, 1), "entry 'a/data.pkl' is encrypted");
  EXPECT_ZIP_ERROR(with(cd + 8, 2, 1 << 6), "has unsupported flags 0x40");
  EXPECT_ZIP_ERROR(with(cd + 6, 2, 63), "needs zip version 6.3");
  EXPECT_ZIP_ERROR(with(cd + 10, 2, 12), "uses compression method 12");
  EXPECT_ZIP_ERROR(with(cd + 24, 4, 5), "is stored but its sizes differ");
  EXPECT_ZIP_ERROR(with(cd + 42, 4, 0x7FFFFFF0), "is not before the central directory");
  EXPECT_ZIP_ERROR(with(cd + 42, 4, 1), "no local header signature at offset 1");
  EXPECT_ZIP_ERROR(with(cd + 28, 2, 60000), "goes past the end of the central directory");
  EXPECT_ZIP_ERROR(with(cd + 30, 2, 3), "extra field has 3 stray bytes");
  EXPECT_ZIP_ERROR(with(cd + 16, 4, 1234), "local and central headers disagree on CRC-32 or sizes");
  EXPECT_ZIP_ERROR(with(cd + 20, 4, 0xFFFFFFFF), "there is no zip64 field");
  // Local headers.
  EXPECT_ZIP_ERROR(with(6, 2, 8), "disagree on flags or method");  // a data descriptor flag
  EXPECT_ZIP_ERROR(with(28, 2, 0xFFFF), "local header runs into the central directory");
  std::string renamed = bytes;
  renamed[30] = 'b';  // "b/data.pkl" locally
  EXPECT_ZIP_ERROR(renamed, "the local header names 'b/data.pkl'");
  // Two central entries that name the same record, or overlapping records.
  std::string dup = bytes;
  const size_t second = find_sig(bytes, kCentral, cd + 4);
  std::memcpy(&dup[second + 46], "a/data.pkl", 8);  // "a/data/0" -> "a/data.p"
  EXPECT_NE(read_error(dup), "");
  EXPECT_ZIP_ERROR(with(second + 42, 4, 0), "");  // second entry's local header is the first's
}

TEST(ZipTest, EveryTruncationAndFlippedByteIsAnErrorOrReads) {
  for (bool zip64 : {false, true}) {
    const std::string bytes = write_zip(kRecords, zip64);
    for (size_t n = 0; n < bytes.size(); ++n) {
      EXPECT_NE(read_error(bytes.substr(0, n)), "") << n;
    }
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (int bit : {0x01, 0x80, 0xFF}) {
        std::string b = bytes;
        b[i] = static_cast<char>(b[i] ^ bit);
        read_error(b);  // must not crash
      }
    }
  }
}

}  // namespace
}  // namespace serialize_internal
}  // namespace ember
