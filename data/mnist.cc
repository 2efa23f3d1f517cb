#include "data/mnist.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tensor/empty.h"
#include "tensor/error.h"

namespace ember {
namespace data {
namespace {

bool file_exists(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return f.good();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), path, ": cannot open: ", std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  EMBER_CHECK(!f.bad(), path, ": read error");
  return ss.str();
}

std::string gunzip(const std::string& path, const std::string& in) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  // 16 + MAX_WBITS: a gzip wrapper (header and CRC-32 checked).
  EMBER_CHECK(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK, path, ": cannot initialize zlib");
  std::string out;
  out.resize(in.size() * 4 + 1024);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(&out[produced]);
    zs.avail_out = static_cast<uInt>(out.size() - produced);
    rc = inflate(&zs, Z_NO_FLUSH);
    produced = out.size() - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input ran out: truncated
    if (rc == Z_BUF_ERROR) continue;                     // output full: grow
    const std::string msg = zs.msg != nullptr ? zs.msg : zError(rc);
    inflateEnd(&zs);
    throw Error(absl::StrCat(path, ": corrupt gzip data (", msg, ")"));
  }
  const bool ended = rc == Z_STREAM_END;
  inflateEnd(&zs);
  EMBER_CHECK(ended, path, ": truncated gzip stream (the file ends before the compressed data does)");
  out.resize(produced);
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

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
  const std::string raw = read_file(path);
  const bool gz = raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f &&
                  static_cast<unsigned char>(raw[1]) == 0x8b;
  return gz ? gunzip(path, raw) : raw;
}

Tensor read_idx_file(const std::string& path, int64_t expected_dims) {
  const std::string bytes = read_maybe_gzip(path);
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

MNIST::MNIST(const std::string& root, bool train, transforms::Transform transform,
             transforms::Transform target_transform)
    : transform_(std::move(transform)), target_transform_(std::move(target_transform)) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path = find_file(root, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_file(root, prefix + "-labels-idx1-ubyte");
  images_ = read_idx_file(images_path, 3);
  targets_ = read_idx_file(labels_path, 1).to(kLong);
  EMBER_CHECK(images_.size(0) == targets_.size(0), labels_path, ": ", targets_.size(0),
              " labels for the ", images_.size(0), " images of ", images_path);
}

Example MNIST::get(int64_t index) const {
  index = check_index(index, size(), "MNIST");
  Example e{images_[index], targets_[index]};
  if (transform_) e.data = transform_(e.data);
  if (target_transform_) e.target = target_transform_(e.target);
  return e;
}

}  // namespace data
}  // namespace ember
