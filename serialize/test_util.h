#ifndef EMBER_SERIALIZE_TEST_UTIL_H_
#define EMBER_SERIALIZE_TEST_UTIL_H_

// Helpers for //serialize's tests: a private temporary directory removed
// with everything in it, and byte-level comparison of tensors.

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensor/tensor.h"

namespace ember {
namespace serialize_testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/serialize-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = buf.data();
  }
  ~TempDir() {
    for (const std::string& f : files()) ::unlink((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Names of the entries in the directory (dot files included).
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
          out.push_back(e->d_name);
        }
      }
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A tensor's elements as raw bytes, in C order.
inline std::string raw_bytes(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.nbytes()));
}

// Same dtype, shape and bytes (so -0.0 and NaN payloads count).
inline ::testing::AssertionResult same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << a.dtype() << " vs " << b.dtype();
  }
  if (a.sizes() != b.sizes()) return ::testing::AssertionFailure() << "shapes differ";
  if (raw_bytes(a) != raw_bytes(b)) return ::testing::AssertionFailure() << "bytes differ";
  return ::testing::AssertionSuccess();
}

}  // namespace serialize_testing
}  // namespace ember

#endif  // EMBER_SERIALIZE_TEST_UTIL_H_
