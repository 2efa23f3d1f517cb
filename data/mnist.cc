#include "data/mnist.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>

#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/files.h"

namespace ember {
namespace data {
namespace {

// Something is at `path` (whatever it is: a directory or a FIFO named like
// an IDX file is then refused by read_regular_file, naming what it is).
bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

size_t saturating_mul(size_t a, size_t b) { return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

// Note [Bounded gunzip]: every member of a multi-member gzip file is read
// (as gzip -d and Python's gzip do); what follows the last member must be
// zero padding or nothing, anything else is an error rather than silently
// ignored. The output never grows past limit(output so far) + 1 bytes: for
// an IDX file the limit is the size its header announces, so a gzip bomb
// fails after at most that much memory instead of exhausting it.
std::string gunzip(const std::string& path, const std::string& in,
                   const std::function<size_t(const std::string&)>& limit) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  // 16 + MAX_WBITS: a gzip wrapper (header and CRC-32 checked).
  EMBER_CHECK(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK, path, ": cannot initialize zlib");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  size_t produced = 0;
  auto fail = [&](const std::string& msg) {
    inflateEnd(&zs);
    throw Error(absl::StrCat(path, ": ", msg));
  };
  for (;;) {
    const size_t cap = limit(out.substr(0, std::min<size_t>(produced, 4096)));
    if (produced > cap) {
      fail(absl::StrCat("the gzip data decompresses to more than the ", cap,
                        " bytes its IDX header announces"));
    }
    if (produced == out.size()) {
      // Grow geometrically, never past one byte more than allowed.
      const size_t want = std::max<size_t>(64 << 10, out.size() * 2);
      out.resize(std::min(want, cap == SIZE_MAX ? want : cap + 1));
      if (produced == out.size()) out.resize(produced + 1);
    }
    zs.next_out = reinterpret_cast<Bytef*>(&out[produced]);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
    const uInt before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member, zero padding, or garbage.
      const size_t at = in.size() - zs.avail_in;
      if (zs.avail_in == 0) break;
      if (zs.avail_in >= 2 && static_cast<unsigned char>(in[at]) == 0x1f &&
          static_cast<unsigned char>(in[at + 1]) == 0x8b) {
        inflateReset(&zs);
        continue;
      }
      if (in.find_first_not_of('\0', at) == std::string::npos) break;
      fail(absl::StrCat("trailing garbage after the gzip data (", in.size() - at,
                        " bytes at offset ", at, ")"));
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      fail("truncated gzip stream (the file ends before the compressed data does)");
    }
    if (rc == Z_BUF_ERROR) continue;  // output full: grow
    fail(absl::StrCat("corrupt gzip data (", zs.msg != nullptr ? zs.msg : zError(rc), ")"));
  }
  inflateEnd(&zs);
  out.resize(produced);
  const size_t cap = limit(out.substr(0, std::min<size_t>(produced, 4096)));
  if (produced > cap) {
    throw Error(absl::StrCat(path, ": the gzip data decompresses to more than the ", cap,
                             " bytes its IDX header announces"));
  }
  return out;
}

uint32_t read_be32(const std::string& s, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + at;
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// `base` with ".gz" if only that exists.
std::string find_file(const std::string& root, const std::string& base) {
  const std::string plain = root + "/" + base;
  if (file_exists(plain)) return plain;
  const std::string gz = plain + ".gz";
  EMBER_CHECK(file_exists(gz), "Dataset not found: neither ", plain, " nor ", gz, " exists");
  return gz;
}

// The whole size of an IDX file as the header at the start of `prefix`
// announces it (SIZE_MAX when that overflows), or the size of the header
// while `prefix` is too short to tell.
size_t idx_size_limit(const std::string& prefix) {
  if (prefix.size() < 4) return 4 + 4 * 255;
  const size_t header = 4 + 4 * static_cast<size_t>(static_cast<unsigned char>(prefix[3]));
  if (prefix.size() < header) return header;
  size_t count = 1;
  for (size_t at = 4; at < header; at += 4) count = saturating_mul(count, read_be32(prefix, at));
  return count > SIZE_MAX - header ? SIZE_MAX : header + count;
}

std::string read_maybe_gzip(const std::string& path,
                            const std::function<size_t(const std::string&)>& limit) {
  const std::string raw = read_regular_file(path);
  const bool gz = raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f &&
                  static_cast<unsigned char>(raw[1]) == 0x8b;
  return gz ? gunzip(path, raw, limit) : raw;
}

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
  return read_maybe_gzip(path, [](const std::string&) { return SIZE_MAX; });
}

Tensor read_idx_file(const std::string& path, int64_t expected_dims) {
  const std::string bytes = read_maybe_gzip(path, idx_size_limit);
  EMBER_CHECK(bytes.size() >= 4, path, ": not an IDX file (", bytes.size(),
              " bytes, shorter than the 4-byte magic number)");
  // Magic: two zero bytes, the element type (0x08: unsigned byte), the
  // number of dimensions.
  const uint32_t magic = read_be32(bytes, 0);
  const uint32_t expected_magic = 0x800u + static_cast<uint32_t>(expected_dims);
  EMBER_CHECK(magic == expected_magic, path, ": wrong magic number ", magic, " (0x", absl::Hex(magic),
              "), expected ", expected_magic, " (0x", absl::Hex(expected_magic), ") for ",
              expected_dims == 1 ? "labels" : "images", ": an unsigned-byte IDX file with ",
              expected_dims, " dimension", expected_dims == 1 ? "" : "s");
  const size_t header = 4 + 4 * static_cast<size_t>(expected_dims);
  EMBER_CHECK(bytes.size() >= header, path, ": truncated IDX header (", bytes.size(),
              " bytes, the header needs ", header, ")");
  std::vector<int64_t> dims;
  size_t count = 1;
  for (int64_t d = 0; d < expected_dims; ++d) {
    dims.push_back(read_be32(bytes, 4 + 4 * d));
    count *= static_cast<size_t>(dims.back());
  }
  if (expected_dims == 3) {
    EMBER_CHECK(dims[1] == 28 && dims[2] == 28, path, ": wrong image dims ", dims[1], " x ",
                dims[2], ", expected 28 x 28");
  }
  EMBER_CHECK(bytes.size() - header == count, path, ": the header promises ", count,
              " bytes of data but the file has ", bytes.size() - header,
              bytes.size() - header < count ? " (truncated)" : " (trailing bytes)");
  Tensor t = empty(dims, kByte);
  if (count > 0) std::memcpy(t.data_ptr<uint8_t>(), bytes.data() + header, count);
  return t;
}

MNIST::MNIST(const std::string& root, bool train, transforms::TensorFunction transform,
             transforms::TensorFunction target_transform)
    : transform_(std::move(transform)), target_transform_(std::move(target_transform)) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path = find_file(root, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_file(root, prefix + "-labels-idx1-ubyte");
  images_ = read_idx_file(images_path, 3);
  targets_ = read_idx_file(labels_path, 1).to(kLong);
  EMBER_CHECK(images_.size(0) == targets_.size(0), labels_path, ": ", targets_.size(0),
              " labels for the ", images_.size(0), " images of ", images_path);
}

Example<> MNIST::get(int64_t index) const {
  index = check_index(index, size(), "MNIST");
  Example<> e{images_[index], targets_[index]};
  if (transform_) e.data = transform_(e.data);
  if (target_transform_) e.target = target_transform_(e.target);
  return e;
}

}  // namespace data
}  // namespace ember
