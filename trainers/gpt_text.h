#ifndef EMBER_TRAINERS_GPT_TEXT_H_
#define EMBER_TRAINERS_GPT_TEXT_H_

// The text side of //trainers:gpt: reading the corpus and a character
// (byte) vocabulary, as nanoGPT's shakespeare_char: one token per distinct
// byte of the text, in byte order, so that any encoding round-trips and a
// multi-byte UTF-8 character is several tokens.

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace trainers {

// Debian's `fortunes` package (installed by ./bazelw): plain-text files of
// sayings separated by "%" lines, beside .dat index files.
inline constexpr char kDefaultFortunesDir[] = "/usr/share/games/fortunes";

// The text of `path`: a regular file as it is, or a folder's regular files
// in name order, leaving out fortune's index files (*.dat) and symbolic
// links (the package's *.u8 links repeat the text files). Errors name the
// path; a folder with no text file is one.
std::string read_text(const std::string& path);

class CharVocab {
 public:
  // The distinct bytes of `text`; an empty text is a ValueError.
  static CharVocab from_text(const std::string& text);
  // From the bytes to_tensor() gave (uint8 [V], strictly increasing).
  static CharVocab from_tensor(const Tensor& bytes);

  int64_t size() const { return static_cast<int64_t>(chars_.size()); }
  // Token ids of `text`; a byte outside the vocabulary is a ValueError
  // naming it and its offset.
  std::vector<int64_t> encode(const std::string& text) const;
  // Ids outside [0, size()) are a ValueError.
  std::string decode(const std::vector<int64_t>& ids) const;
  Tensor to_tensor() const;
  bool operator==(const CharVocab& o) const { return chars_ == o.chars_; }

 private:
  std::string chars_;       // token id -> byte
  std::vector<int> id_of_;  // byte -> token id, or -1 (256 entries)
};

// The entropy in nats of the bytes' frequency distribution in `ids`: the
// loss of the best model that ignores context, the bar a language model
// must get under.
double unigram_entropy(const std::vector<int64_t>& ids, int64_t vocab_size);

}  // namespace trainers
}  // namespace ember

#endif  // EMBER_TRAINERS_GPT_TEXT_H_
