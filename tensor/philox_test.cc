#include "tensor/philox.h"

#include <gtest/gtest.h>

#include <set>

namespace ember {
namespace {

struct Kat {
  uint32_t counter[4];
  uint32_t key[2];
  uint32_t expected[4];
};

// Random123's tests/kat_vectors, the three "philox4x32 10" lines
// (columns: counter[4], key[2], expected[4]).
constexpr Kat kKats[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  for (const Kat& kat : kKats) {
    const Philox4x32 r = philox4x32_10(kat.counter, kat.key);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(r.v[i], kat.expected[i]) << "word " << i << " of counter " << std::hex
                                         << kat.counter[0];
    }
  }
}

// philox_draw lays (position, offset) out as the counter's low and high
// halves and the seed as the key.
TEST(PhiloxTest, DrawPutsPositionOffsetAndSeedInPlace) {
  const Kat& kat = kKats[2];
  const uint64_t position = (uint64_t{kat.counter[1]} << 32) | kat.counter[0];
  const uint64_t offset = (uint64_t{kat.counter[3]} << 32) | kat.counter[2];
  const uint64_t seed = (uint64_t{kat.key[1]} << 32) | kat.key[0];
  const Philox4x32 r = philox_draw(seed, offset, position);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], kat.expected[i]);
}

// Neighbouring positions, offsets and seeds give unrelated words.
TEST(PhiloxTest, NeighbouringCountersDiffer) {
  std::set<uint32_t> seen;
  for (uint64_t s = 0; s < 4; ++s) {
    for (uint64_t o = 0; o < 4; ++o) {
      for (uint64_t p = 0; p < 64; ++p) {
        const Philox4x32 r = philox_draw(s, o, p);
        for (uint32_t w : r.v) seen.insert(w);
      }
    }
  }
  EXPECT_EQ(seen.size(), 4u * 4 * 64 * 4);  // a collision among 4096 words: ~0.2%
}

}  // namespace
}  // namespace ember
