// The CPU allocator: alignment, and its cache of large blocks (Note
// [Caching host allocator], Note [Borrowing larger blocks]).

#include "tensor/allocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "tensor/error.h"

namespace ember {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

uintptr_t addr(const DataPtr& d) { return reinterpret_cast<uintptr_t>(d.ptr); }

void release(DataPtr& d) {
  if (d.deleter) d.deleter(d.ctx, d.ptr);
  d.ptr = nullptr;
}

// Each test starts from an empty cache with the default limit, whatever
// EMBER_CPU_CACHE_LIMIT_MB says, and leaves things as it found them.
class CpuAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = cpu_cache::limit();
    cpu_cache::set_limit(size_t{1} << 30);
    cpu_cache::empty_cache();
  }
  void TearDown() override {
    cpu_cache::empty_cache();
    cpu_cache::set_limit(saved_);
  }

 private:
  size_t saved_ = 0;
};

TEST_F(CpuAllocator, SmallBlocksAre64ByteAlignedAndNotCached) {
  DataPtr d = cpu_allocator()->allocate(1000);
  ASSERT_NE(d.ptr, nullptr);
  EXPECT_EQ(addr(d) % 64, 0u);
  std::memset(d.ptr, 1, 1000);
  release(d);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
}

// From 128 KiB (glibc's initial mmap threshold) blocks are cached: below it
// glibc's heap reuses them without page faults, above it glibc trims them.
TEST_F(CpuAllocator, BlocksFrom128KiBAreCached) {
  DataPtr small = cpu_allocator()->allocate((size_t{1} << 17) - 1);
  release(small);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
  DataPtr a = cpu_allocator()->allocate(size_t{1} << 17);
  const uintptr_t first = addr(a);
  release(a);
  EXPECT_EQ(cpu_cache::cached_bytes(), size_t{1} << 17);
  DataPtr b = cpu_allocator()->allocate(500 << 10);  // class 512 KiB
  release(b);
  EXPECT_EQ(cpu_cache::cached_bytes(), (size_t{1} << 17) + (512 << 10));
  DataPtr c = cpu_allocator()->allocate(size_t{1} << 17);
  EXPECT_EQ(addr(c), first);
  release(c);
}

TEST_F(CpuAllocator, LargeBlocksAreCachedAndReused) {
  DataPtr a = cpu_allocator()->allocate(3 * kMiB);
  void* first = a.ptr;
  release(a);
  // Size class of 3 MiB: 3 MiB exactly (2 MiB octave, quarter steps).
  EXPECT_EQ(cpu_cache::cached_bytes(), 3 * kMiB);
  DataPtr b = cpu_allocator()->allocate(3 * kMiB - 100);
  EXPECT_EQ(b.ptr, first);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
  release(b);
  cpu_cache::empty_cache();
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
}

// A request may borrow a cached block of up to twice its size, never more.
TEST_F(CpuAllocator, BorrowsCachedBlocksUpToTwiceTheSize) {
  DataPtr a = cpu_allocator()->allocate(4 * kMiB);
  void* four = a.ptr;
  release(a);
  DataPtr b = cpu_allocator()->allocate(2 * kMiB + 1);  // class 2.5 MiB: borrows 4 MiB
  EXPECT_EQ(b.ptr, four);
  release(b);
  EXPECT_EQ(cpu_cache::cached_bytes(), 4 * kMiB);  // back to its own class
  DataPtr c = cpu_allocator()->allocate(kMiB + 1);  // 4 MiB is too big to lend
  EXPECT_NE(c.ptr, four);
  EXPECT_EQ(addr(c) % 64, 0u);
  release(c);
  cpu_cache::empty_cache();
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
}

TEST(CpuAllocatorDefaults, LimitIsOneGiB) {
  if (std::getenv("EMBER_CPU_CACHE_LIMIT_MB") != nullptr) GTEST_SKIP() << "limit set by the environment";
  EXPECT_EQ(cpu_cache::limit(), size_t{1} << 30);
}

// Note [Cache limit]: what would go over the limit goes back to the system.
TEST_F(CpuAllocator, LimitBoundsTheCache) {
  cpu_cache::set_limit(5 * kMiB);
  DataPtr a = cpu_allocator()->allocate(4 * kMiB);
  DataPtr b = cpu_allocator()->allocate(4 * kMiB);
  release(a);
  release(b);
  EXPECT_EQ(cpu_cache::cached_bytes(), 4 * kMiB);
  // Lowering the limit under what is cached empties the cache; 0: no caching.
  cpu_cache::set_limit(0);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
  DataPtr c = cpu_allocator()->allocate(4 * kMiB);
  release(c);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
}

// A request the system refuses: the cache is emptied first, then a clear
// error names the size.
TEST_F(CpuAllocator, RefusedRequestEmptiesTheCacheThenThrows) {
  DataPtr a = cpu_allocator()->allocate(2 * kMiB);
  release(a);
  ASSERT_GT(cpu_cache::cached_bytes(), 0u);
  const size_t huge = (size_t{1} << 60) + 1;  // rounds up to a larger class
  try {
    cpu_allocator()->allocate(huge);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("you tried to allocate 1152921504606846977 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
  // Sizes beyond any size class are refused the same way, not mis-indexed.
  EXPECT_THROW(cpu_allocator()->allocate(SIZE_MAX), Error);
  EXPECT_THROW(cpu_allocator()->allocate(SIZE_MAX - 10), Error);
}

}  // namespace
}  // namespace ember
