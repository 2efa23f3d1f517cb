#include "trainers/gpt_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensor/all.h"
#include "tensor/files.h"

namespace ember {
namespace trainers {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_regular_file(path);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    if (e.is_symlink(ec) || !e.is_regular_file(ec) || e.path().extension() == ".dat") continue;
    files.push_back(e.path());
  }
  if (ec) throw Error(absl::StrCat("cannot list '", path, "': ", ec.message()));
  EMBER_CHECK_VALUE(!files.empty(), "'", path, "' holds no text file to train on");
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) text += read_regular_file(f.string());
  return text;
}

CharVocab CharVocab::from_text(const std::string& text) {
  EMBER_CHECK_VALUE(!text.empty(), "the text is empty: there is nothing to train on");
  bool seen[256] = {};
  for (unsigned char ch : text) seen[ch] = true;
  CharVocab v;
  v.id_of_.assign(256, -1);
  for (int b = 0; b < 256; ++b) {
    if (!seen[b]) continue;
    v.id_of_[b] = static_cast<int>(v.chars_.size());
    v.chars_.push_back(static_cast<char>(b));
  }
  return v;
}

CharVocab CharVocab::from_tensor(const Tensor& bytes) {
  EMBER_CHECK_VALUE(bytes.scalar_type() == kByte && bytes.dim() == 1 && bytes.numel() > 0,
                    "a vocabulary is a non-empty 1-D uint8 tensor");
  Tensor b = bytes.contiguous();
  const uint8_t* p = b.data_ptr<uint8_t>();
  for (int64_t i = 1; i < b.numel(); ++i) {
    EMBER_CHECK_VALUE(p[i - 1] < p[i], "a vocabulary's bytes must be strictly increasing");
  }
  return from_text(std::string(reinterpret_cast<const char*>(p), b.numel()));
}

std::vector<int64_t> CharVocab::encode(const std::string& text) const {
  std::vector<int64_t> ids(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const int id = id_of_[static_cast<unsigned char>(text[i])];
    EMBER_CHECK_VALUE(id >= 0, absl::StrFormat("byte 0x%02x at offset %d is not in the vocabulary",
                                               static_cast<unsigned char>(text[i]), i));
    ids[i] = id;
  }
  return ids;
}

std::string CharVocab::decode(const std::vector<int64_t>& ids) const {
  std::string text(ids.size(), '\0');
  for (size_t i = 0; i < ids.size(); ++i) {
    EMBER_CHECK_VALUE(ids[i] >= 0 && ids[i] < size(), "token id ", ids[i],
                      " is outside the vocabulary of ", size());
    text[i] = chars_[ids[i]];
  }
  return text;
}

Tensor CharVocab::to_tensor() const {
  Tensor t = empty({size()}, kByte);
  std::copy(chars_.begin(), chars_.end(), reinterpret_cast<char*>(t.data_ptr<uint8_t>()));
  return t;
}

double unigram_entropy(const std::vector<int64_t>& ids, int64_t vocab_size) {
  std::vector<int64_t> counts(vocab_size, 0);
  for (int64_t id : ids) ++counts[id];
  double h = 0;
  const double n = static_cast<double>(ids.size());
  for (int64_t c : counts) {
    if (c > 0) h -= (c / n) * std::log(c / n);
  }
  return h;
}

}  // namespace trainers
}  // namespace ember
