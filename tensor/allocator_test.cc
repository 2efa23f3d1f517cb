// The CPU allocator: alignment, and its cache of large blocks (Note
// [Caching host allocator], Note [Borrowing larger blocks]).

#include "tensor/allocator.h"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

namespace ember {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

uintptr_t addr(const DataPtr& d) { return reinterpret_cast<uintptr_t>(d.ptr); }

void release(DataPtr& d) {
  if (d.deleter) d.deleter(d.ctx, d.ptr);
  d.ptr = nullptr;
}

TEST(CpuAllocator, SmallBlocksAre64ByteAlignedAndNotCached) {
  cpu_cache::empty_cache();
  DataPtr d = cpu_allocator()->allocate(1000);
  ASSERT_NE(d.ptr, nullptr);
  EXPECT_EQ(addr(d) % 64, 0u);
  std::memset(d.ptr, 1, 1000);
  release(d);
  EXPECT_EQ(cpu_cache::cached_bytes(), 0u);
}

TEST(CpuAllocator, LargeBlocksAreCachedAndReused) {
  cpu_cache::empty_cache();
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
TEST(CpuAllocator, BorrowsCachedBlocksUpToTwiceTheSize) {
  cpu_cache::empty_cache();
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

}  // namespace
}  // namespace ember
