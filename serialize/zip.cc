#include "serialize/zip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember {
namespace serialize_internal {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr size_t kLocalSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr uint16_t kZip64ExtraId = 0x0001;
// torch.save's alignment padding ("FB", see caffe2/serialize/inline_container.cc).
constexpr uint16_t kPaddingExtraId = 0x4246;
constexpr uint32_t k32 = 0xFFFFFFFFu;
constexpr uint16_t k16 = 0xFFFFu;
// Flags a reader may see: 1, 2 (deflate options), 3 (data descriptor), 11 (UTF-8 names).
constexpr uint16_t kKnownFlags = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 11);
constexpr uint16_t kStored = 0;
constexpr uint16_t kDeflated = 8;
// Deflate cannot expand data more than 1032:1; a record claiming more is a bomb.
constexpr uint64_t kMaxDeflateRatio = 1032;

[[noreturn]] void fail(const std::string& what) {
  throw Error(absl::StrCat("invalid zip archive: ", what));
}

// Little-endian fields of a header held in memory, bounds-checked.
class Fields {
 public:
  Fields(const std::string& bytes, const char* what) : b_(bytes), what_(what) {}
  uint64_t get(size_t at, int n) const {
    if (at + n > b_.size()) fail(absl::StrCat(what_, " is truncated"));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b_[at + i]);
    return v;
  }
  uint16_t u16(size_t at) const { return static_cast<uint16_t>(get(at, 2)); }
  uint32_t u32(size_t at) const { return static_cast<uint32_t>(get(at, 4)); }
  uint64_t u64(size_t at) const { return get(at, 8); }

 private:
  const std::string& b_;
  const char* what_;
};

void put(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// One field of an extra block: its id and its bytes.
struct Extra {
  uint16_t id;
  std::string data;
};

std::vector<Extra> parse_extras(const std::string& block, const std::string& where) {
  std::vector<Extra> out;
  size_t at = 0;
  Fields f(block, "an extra field");
  while (at < block.size()) {
    if (block.size() - at < 4) {
      fail(absl::StrCat(where, ": extra field has ", block.size() - at, " stray bytes"));
    }
    const uint16_t id = f.u16(at);
    const uint16_t len = f.u16(at + 2);
    if (len > block.size() - at - 4) {
      fail(absl::StrCat(where, ": extra field 0x", absl::Hex(id), " of ", len,
                        " bytes goes past the end of its block"));
    }
    for (const Extra& e : out) {
      if (e.id == id) {
        fail(absl::StrCat(where, ": extra field 0x", absl::Hex(id), " appears twice"));
      }
    }
    out.push_back({id, block.substr(at + 4, len)});
    at += 4 + len;
  }
  return out;
}

const Extra* find_extra(const std::vector<Extra>& extras, uint16_t id) {
  for (const Extra& e : extras) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

// The central directory's place, from the end records.
struct Directory {
  uint64_t entries;
  uint64_t offset;
  uint64_t size;
  uint64_t end;  // where the directory must end (the first end record)
};

Directory read_end_records(const ByteSource& src) {
  const uint64_t total = src.size();
  if (total < kEndSize) {
    fail(absl::StrCat("the file has ", total,
                      " bytes, too few for an end of central directory "
                      "record (it is truncated or not a zip file)"));
  }
  // The end record is the last 22 bytes plus a comment of up to 65535.
  const uint64_t tail_size = std::min<uint64_t>(total, kEndSize + 0xFFFF);
  const std::string tail = src.read_string(total - tail_size, tail_size);
  Fields tf(tail, "the end record");
  size_t at = std::string::npos;
  for (size_t i = tail_size - kEndSize + 1; i-- > 0;) {
    if (tf.u32(i) == kEndSig && i + kEndSize + tf.u16(i + 20) == tail_size) {
      at = i;
      break;
    }
  }
  if (at == std::string::npos) {
    fail(
        "no end of central directory record at the end of the file (it is truncated or not a "
        "zip file)");
  }
  const uint64_t end_pos = total - tail_size + at;
  const uint16_t disk = tf.u16(at + 4);
  const uint16_t cd_disk = tf.u16(at + 6);
  const uint16_t disk_entries = tf.u16(at + 8);
  Directory d;
  d.entries = tf.u16(at + 10);
  d.size = tf.u32(at + 12);
  d.offset = tf.u32(at + 16);
  d.end = end_pos;
  if ((disk != 0 && disk != k16) || (cd_disk != 0 && cd_disk != k16) || disk_entries != d.entries) {
    fail("multi-disk archives are not supported");
  }
  // A zip64 locator sits right before the end record when there is one.
  std::string loc;
  if (end_pos >= kZip64LocatorSize) {
    loc = src.read_string(end_pos - kZip64LocatorSize, kZip64LocatorSize);
  }
  Fields lf(loc, "the zip64 end locator");
  if (loc.empty() || lf.u32(0) != kZip64LocatorSig) {
    if (d.offset == k32 || d.size == k32) {
      fail("the end record needs zip64 values but there is no zip64 end locator");
    }
  } else {
    const uint64_t rec = lf.u64(8);
    if (lf.u32(4) != 0 || lf.u32(16) != 1) fail("multi-disk archives are not supported");
    if (rec > end_pos - kZip64LocatorSize || end_pos - kZip64LocatorSize - rec < kZip64EndSize) {
      fail(absl::StrCat("the zip64 end record offset ", rec, " is not before its locator"));
    }
    const std::string r = src.read_string(rec, kZip64EndSize);
    Fields rf(r, "the zip64 end record");
    if (rf.u32(0) != kZip64EndSig) fail("the zip64 end locator points at no zip64 end record");
    const uint64_t record_size = rf.u64(4);
    if (record_size != end_pos - kZip64LocatorSize - rec - 12) {
      fail(absl::StrCat("the zip64 end record says it has ", record_size,
                        " bytes but its locator follows after ",
                        end_pos - kZip64LocatorSize - rec - 12));
    }
    if (rf.u32(16) != 0 || rf.u32(20) != 0 || rf.u64(24) != rf.u64(32)) {
      fail("multi-disk archives are not supported");
    }
    const uint64_t entries = rf.u64(32), size = rf.u64(40), offset = rf.u64(48);
    // Fields the 32-bit record could hold must agree with the zip64 ones.
    if ((d.entries != k16 && d.entries != entries) || (d.size != k32 && d.size != size) ||
        (d.offset != k32 && d.offset != offset)) {
      fail("the zip64 end record disagrees with the end record");
    }
    d.entries = entries;
    d.size = size;
    d.offset = offset;
    d.end = rec;
  }
  if (d.offset > d.end || d.size != d.end - d.offset) {
    fail(absl::StrCat("the central directory [", d.offset, ", +", d.size,
                      ") does not end where the end records begin (", d.end, ")"));
  }
  if (d.entries > d.size / kCentralSize) {
    fail(absl::StrCat("the end record announces ", d.entries, " entries but the central directory ",
                      "has room for ", d.size / kCentralSize));
  }
  return d;
}

// The zip64 values of an entry: fields that read 0xFFFFFFFF come from the
// zip64 extra field, in the order uncompressed, compressed, offset.
void apply_zip64(const std::vector<Extra>& extras, const std::string& where, bool need_size,
                 uint64_t* size, bool need_csize, uint64_t* csize, bool need_offset,
                 uint64_t* offset) {
  if (!need_size && !need_csize && !need_offset) return;
  const Extra* z = find_extra(extras, kZip64ExtraId);
  if (z == nullptr) {
    fail(absl::StrCat(where, ": sizes read 0xFFFFFFFF but there is no zip64 field"));
  }
  Fields f(z->data, "a zip64 extra field");
  size_t at = 0;
  auto next = [&](uint64_t* v) {
    if (at + 8 > z->data.size()) fail(absl::StrCat(where, ": the zip64 field is too short"));
    *v = f.u64(at);
    at += 8;
  };
  if (need_size) next(size);
  if (need_csize) next(csize);
  if (need_offset) next(offset);
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.find('\0') == std::string::npos;
}

}  // namespace

ZipReader::ZipReader(const ByteSource& source) : source_(source) {
  const Directory d = read_end_records(source);
  const std::string cd = source.read_string(d.offset, d.size);
  Fields f(cd, "the central directory");
  struct Extent {
    uint64_t begin, end;
    size_t entry;
  };
  std::vector<Extent> extents;
  size_t at = 0;
  for (uint64_t i = 0; i < d.entries; ++i) {
    const std::string where = absl::StrCat("central directory entry ", i);
    if (cd.size() - at < kCentralSize || f.u32(at) != kCentralSig) {
      fail(absl::StrCat(where, " has no central header signature"));
    }
    const uint16_t needed = f.u16(at + 6);
    const uint16_t flags = f.u16(at + 8);
    Entry e;
    e.method = f.u16(at + 10);
    e.crc32 = f.u32(at + 16);
    e.compressed_size = f.u32(at + 20);
    e.size = f.u32(at + 24);
    const uint16_t name_len = f.u16(at + 28);
    const uint16_t extra_len = f.u16(at + 30);
    const uint16_t comment_len = f.u16(at + 32);
    const uint16_t disk = f.u16(at + 34);
    uint64_t local = f.u32(at + 42);
    if (cd.size() - at - kCentralSize < uint64_t{name_len} + extra_len + comment_len) {
      fail(absl::StrCat(where, " goes past the end of the central directory"));
    }
    e.name = cd.substr(at + kCentralSize, name_len);
    const std::string named = absl::StrCat("entry '", e.name, "'");
    if (!valid_name(e.name)) fail(absl::StrCat(where, " has an empty or NUL-containing name"));
    if (!by_name_.emplace(e.name, entries_.size()).second) {
      fail(absl::StrCat(named, " appears twice"));
    }
    if (flags & 1) fail(absl::StrCat(named, " is encrypted"));
    if (flags & ~kKnownFlags) {
      fail(absl::StrCat(named, " has unsupported flags 0x", absl::Hex(flags)));
    }
    if ((needed & 0xFF) > 45) {
      fail(absl::StrCat(named, " needs zip version ", (needed & 0xFF) / 10, ".",
                        (needed & 0xFF) % 10, " (ember reads up to 4.5)"));
    }
    if (e.method != kStored && e.method != kDeflated) {
      fail(absl::StrCat(named, " uses compression method ", e.method,
                        " (only stored and deflated records are supported)"));
    }
    if (disk != 0 && disk != k16) fail("multi-disk archives are not supported");
    const std::vector<Extra> extras =
        parse_extras(cd.substr(at + kCentralSize + name_len, extra_len), named);
    apply_zip64(extras, named, e.size == k32, &e.size, e.compressed_size == k32, &e.compressed_size,
                local == k32, &local);
    at += kCentralSize + name_len + extra_len + comment_len;

    if (e.method == kStored && e.compressed_size != e.size) {
      fail(absl::StrCat(named, " is stored but its sizes differ (", e.compressed_size, " vs ",
                        e.size, ")"));
    }
    if (e.method == kDeflated && (e.size / kMaxDeflateRatio > e.compressed_size)) {
      fail(absl::StrCat(named, " claims to inflate ", e.compressed_size, " bytes to ", e.size,
                        ", more than deflate can"));
    }
    // The local header must agree with the central one.
    if (local > d.offset || d.offset - local < kLocalSize) {
      fail(absl::StrCat(named, ": local header offset ", local,
                        " is not before the central directory (", d.offset, ")"));
    }
    const std::string lh = source.read_string(local, kLocalSize);
    Fields lf(lh, "a local header");
    if (lf.u32(0) != kLocalSig) {
      fail(absl::StrCat(named, ": no local header signature at offset ", local));
    }
    const uint16_t lname_len = lf.u16(26);
    const uint16_t lextra_len = lf.u16(28);
    const uint64_t header_end = local + kLocalSize + lname_len + lextra_len;
    if (header_end > d.offset) {
      fail(absl::StrCat(named, ": local header runs into the central directory"));
    }
    const std::string lrest = source.read_string(local + kLocalSize, lname_len + lextra_len);
    if (lrest.compare(0, lname_len, e.name) != 0 || lname_len != name_len) {
      fail(absl::StrCat(named, ": the local header names '", lrest.substr(0, lname_len), "'"));
    }
    if (lf.u16(6) != flags || lf.u16(8) != e.method) {
      fail(absl::StrCat(named, ": local and central headers disagree on flags or method"));
    }
    const std::vector<Extra> lextras = parse_extras(lrest.substr(lname_len), named);
    const uint32_t lcrc = lf.u32(14);
    if (flags & (1 << 3)) {
      // The CRC-32 and sizes follow the data; writers leave zeros here (and
      // differ in what they put in the sizes of a zip64 record).
      if (lcrc != 0 && lcrc != e.crc32) {
        fail(absl::StrCat(named, ": local and central headers disagree on the CRC-32"));
      }
    } else {
      uint64_t lcsize = lf.u32(18), lsize = lf.u32(22);
      apply_zip64(lextras, named, lsize == k32, &lsize, lcsize == k32, &lcsize, false, nullptr);
      if (lcrc != e.crc32 || lcsize != e.compressed_size || lsize != e.size) {
        fail(absl::StrCat(named, ": local and central headers disagree on CRC-32 or sizes"));
      }
    }
    e.data_offset = header_end;
    if (e.compressed_size > d.offset - header_end) {
      fail(absl::StrCat(named, ": its ", e.compressed_size,
                        " bytes of data run into the central directory"));
    }
    uint64_t end = header_end + e.compressed_size;
    if (flags & (1 << 3)) {
      // A data descriptor follows: optional signature, CRC-32, sizes (4 or 8 bytes each).
      const uint64_t room = std::min<uint64_t>(d.offset - end, 24);
      const std::string dd = source.read_string(end, room);
      Fields df(dd, "a data descriptor");
      size_t p = dd.size() >= 4 && df.u32(0) == kDescriptorSig ? 4 : 0;
      bool ok = false;
      for (int width : {4, 8}) {
        if (p + 4 + 2 * width <= dd.size() && df.u32(p) == e.crc32 &&
            df.get(p + 4, width) == e.compressed_size && df.get(p + 4 + width, width) == e.size) {
          end += p + 4 + 2 * width;
          ok = true;
          break;
        }
      }
      if (!ok) fail(absl::StrCat(named, ": its data descriptor does not match the central header"));
    }
    extents.push_back({local, end, entries_.size()});
    entries_.push_back(std::move(e));
  }
  if (at != cd.size()) {
    fail(absl::StrCat("the central directory has ", cd.size() - at, " bytes after its ", d.entries,
                      " entries"));
  }
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i].begin < extents[i - 1].end) {
      fail(absl::StrCat("entries '", entries_[extents[i - 1].entry].name, "' and '",
                        entries_[extents[i].entry].name, "' overlap"));
    }
  }
}

const ZipReader::Entry* ZipReader::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

void ZipReader::read(const Entry& e, void* dst, bool verify_crc) const {
  if (e.method == kStored) {
    if (e.size > 0) source_.read(e.data_offset, dst, e.size);
  } else {
    const std::string in = source_.read_string(e.data_offset, e.compressed_size);
    z_stream zs;
    std::memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw Error("zlib: inflateInit2 failed");
    uint64_t in_done = 0, out_done = 0;
    unsigned char spare;  // room for one byte too many, once the output is full
    int rc = Z_OK;
    while (rc == Z_OK) {
      const bool room = out_done < e.size;
      const uInt in_chunk = static_cast<uInt>(std::min<uint64_t>(in.size() - in_done, UINT_MAX));
      const uInt out_chunk =
          room ? static_cast<uInt>(std::min<uint64_t>(e.size - out_done, UINT_MAX)) : 1;
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()) + in_done);
      zs.avail_in = in_chunk;
      zs.next_out = room ? static_cast<Bytef*>(dst) + out_done : &spare;
      zs.avail_out = out_chunk;
      rc = inflate(&zs, Z_NO_FLUSH);
      in_done += in_chunk - zs.avail_in;
      out_done += out_chunk - zs.avail_out;
      if (rc == Z_OK && zs.avail_in == in_chunk && zs.avail_out == out_chunk) rc = Z_BUF_ERROR;
      if (out_done > e.size) rc = Z_BUF_ERROR;  // more data than the header declares
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || in_done != in.size() || out_done != e.size) {
      fail(absl::StrCat("entry '", e.name, "': its deflated data is corrupt (inflated ", out_done,
                        " of ", e.size, " bytes from ", in_done, " of ", in.size(), ")"));
    }
  }
  if (verify_crc) {
    const uint32_t crc = static_cast<uint32_t>(crc32_z(
        crc32_z(0, nullptr, 0), static_cast<const Bytef*>(dst), static_cast<size_t>(e.size)));
    if (crc != e.crc32) {
      fail(absl::StrCat("entry '", e.name, "': CRC-32 mismatch (stored ",
                        absl::Hex(e.crc32, absl::kZeroPad8), ", computed ",
                        absl::Hex(crc, absl::kZeroPad8), "): the file is corrupt"));
    }
  }
}

std::string ZipReader::read_string(const Entry& e, bool verify_crc) const {
  std::string out(static_cast<size_t>(e.size), '\0');
  read(e, out.data(), verify_crc);
  return out;
}

// --- writing -------------------------------------------------------------------

ZipWriter::ZipWriter(Sink sink, bool force_zip64)
    : sink_(std::move(sink)), force_zip64_(force_zip64) {}

void ZipWriter::emit(const std::string& bytes) {
  sink_(bytes.data(), bytes.size());
  offset_ += bytes.size();
}

void ZipWriter::add(const std::string& name, const void* data, uint64_t n) {
  EMBER_CHECK(!finished_, "ZipWriter: add after finish");
  EMBER_CHECK(valid_name(name) && name.size() <= k16, "ZipWriter: bad record name '", name, "'");
  const uint32_t crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), static_cast<const Bytef*>(data), static_cast<size_t>(n)));
  const bool zip64 = force_zip64_ || n >= k32 || offset_ >= k32;
  std::string extra;
  if (zip64) {
    put(&extra, kZip64ExtraId, 2);
    put(&extra, 16, 2);
    put(&extra, n, 8);
    put(&extra, n, 8);
  }
  // Pad with torch's "FB" field so that the data starts 64-byte aligned.
  const uint64_t unpadded = offset_ + kLocalSize + name.size() + extra.size() + 4;
  const uint64_t pad = (kAlignment - unpadded % kAlignment) % kAlignment;
  put(&extra, kPaddingExtraId, 2);
  put(&extra, pad, 2);
  extra.append(pad, 'Z');
  std::string h;
  put(&h, kLocalSig, 4);
  put(&h, zip64 ? 45 : 20, 2);  // version needed
  put(&h, 0, 2);                // flags
  put(&h, kStored, 2);
  put(&h, 0, 2);     // time 00:00:00
  put(&h, 0x21, 2);  // date 1980-01-01
  put(&h, crc, 4);
  put(&h, zip64 ? k32 : n, 4);
  put(&h, zip64 ? k32 : n, 4);
  put(&h, name.size(), 2);
  put(&h, extra.size(), 2);
  h += name;
  h += extra;
  written_.push_back({name, crc, n, offset_, zip64});
  emit(h);
  sink_(data, static_cast<size_t>(n));
  offset_ += n;
}

void ZipWriter::finish() {
  EMBER_CHECK(!finished_, "ZipWriter: finish called twice");
  finished_ = true;
  const uint64_t cd_offset = offset_;
  std::string cd;
  for (const Written& w : written_) {
    std::string extra;
    if (w.zip64) {
      put(&extra, kZip64ExtraId, 2);
      put(&extra, 24, 2);
      put(&extra, w.size, 8);
      put(&extra, w.size, 8);
      put(&extra, w.offset, 8);
    }
    put(&cd, kCentralSig, 4);
    put(&cd, w.zip64 ? 45 : 20, 2);  // version made by (MS-DOS attributes)
    put(&cd, w.zip64 ? 45 : 20, 2);  // version needed
    put(&cd, 0, 2);
    put(&cd, kStored, 2);
    put(&cd, 0, 2);
    put(&cd, 0x21, 2);
    put(&cd, w.crc32, 4);
    put(&cd, w.zip64 ? k32 : w.size, 4);
    put(&cd, w.zip64 ? k32 : w.size, 4);
    put(&cd, w.name.size(), 2);
    put(&cd, extra.size(), 2);
    put(&cd, 0, 2);  // comment
    put(&cd, 0, 2);  // disk
    put(&cd, 0, 2);  // internal attributes
    put(&cd, 0, 4);  // external attributes
    put(&cd, w.zip64 ? k32 : w.offset, 4);
    cd += w.name;
    cd += extra;
  }
  emit(cd);
  const uint64_t n = written_.size();
  const bool zip64 =
      force_zip64_ || n >= k16 || cd_offset >= k32 || cd.size() >= k32 ||
      std::any_of(written_.begin(), written_.end(), [](const Written& w) { return w.zip64; });
  std::string end;
  if (zip64) {
    const uint64_t record = offset_;
    put(&end, kZip64EndSig, 4);
    put(&end, kZip64EndSize - 12, 8);
    put(&end, 45, 2);
    put(&end, 45, 2);
    put(&end, 0, 4);
    put(&end, 0, 4);
    put(&end, n, 8);
    put(&end, n, 8);
    put(&end, cd.size(), 8);
    put(&end, cd_offset, 8);
    put(&end, kZip64LocatorSig, 4);
    put(&end, 0, 4);
    put(&end, record, 8);
    put(&end, 1, 4);
  }
  put(&end, kEndSig, 4);
  put(&end, 0, 2);
  put(&end, 0, 2);
  put(&end, zip64 ? k16 : n, 2);
  put(&end, zip64 ? k16 : n, 2);
  put(&end, zip64 ? k32 : cd.size(), 4);
  put(&end, zip64 ? k32 : cd_offset, 4);
  put(&end, 0, 2);
  emit(end);
}

}  // namespace serialize_internal
}  // namespace ember
