// The pinned host memory cache's logic (Note [Pinned host memory cache] in
// host_cache.h) with a fake runtime: blocks, events and streams are plain
// host objects, so this runs on every machine.

#include "tensor/cuda/host_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

namespace ember {
namespace cuda {
namespace detail {
namespace {

struct FakeRuntime : HostCache::Backend {
  std::set<void*> live;
  std::map<void*, bool> events;  // event -> completed
  std::vector<HostCache::Stream> recorded_on;
  int next_event = 1;
  bool fail_record = false;

  void* alloc(size_t n) override {
    void* p = std::malloc(n);
    live.insert(p);
    return p;
  }
  void free(void* p) override {
    if (live.erase(p) == 0) throw std::logic_error("freed a pointer twice or never allocated");
    std::free(p);
  }
  HostCache::Event record(HostCache::Stream s) override {
    if (fail_record) throw std::runtime_error("record failed");
    recorded_on.push_back(s);
    void* e = reinterpret_cast<void*>(static_cast<uintptr_t>(next_event++));
    events[e] = false;
    return e;
  }
  bool query(HostCache::Event e) override { return events.at(e); }
  void destroy(HostCache::Event e) override { events.erase(e); }
  void complete_all() {
    for (auto& [e, done] : events) done = true;
  }
  ~FakeRuntime() override {
    for (void* p : live) std::free(p);
  }
};

const HostCache::Stream kStreamA{reinterpret_cast<void*>(0xa), 0};
const HostCache::Stream kStreamB{reinterpret_cast<void*>(0xb), 1};

TEST(HostCacheTest, RoundsToPowersOfTwo) {
  EXPECT_EQ(HostCache::round_size(0), 512u);
  EXPECT_EQ(HostCache::round_size(512), 512u);
  EXPECT_EQ(HostCache::round_size(513), 1024u);
  EXPECT_EQ(HostCache::round_size(150528 * 64), size_t{16} << 20);
}

TEST(HostCacheTest, FreedBlocksAreReusedWithoutTheRuntime) {
  FakeRuntime rt;
  HostCache cache(&rt);
  void* a = cache.allocate(3000);
  void* b = cache.allocate(3000);
  EXPECT_NE(a, b);
  cache.free(a);
  EXPECT_EQ(rt.live.size(), 2u);       // not given back
  EXPECT_EQ(cache.allocate(4000), a);  // same rounded size: the freed block
  EXPECT_EQ(cache.stats().runtime_allocs, 2u);
  // The smallest free block that fits.
  void* big = cache.allocate(1 << 20);
  cache.free(big);
  cache.free(b);
  EXPECT_EQ(cache.allocate(100), b);
  EXPECT_EQ(cache.allocate(100000), big);
  EXPECT_EQ(cache.stats().runtime_allocs, 3u);
  EXPECT_EQ(cache.stats().allocated_bytes, 4096u + 4096u + (1u << 20));
  EXPECT_EQ(cache.stats().reserved_bytes, 4096u + 4096u + (1u << 20));
}

TEST(HostCacheTest, BlockUsedByACopyWaitsForItsStreams) {
  FakeRuntime rt;
  HostCache cache(&rt);
  char* a = static_cast<char*>(cache.allocate(1000));
  EXPECT_TRUE(cache.record_use(a + 10, kStreamA));  // a view inside the block
  EXPECT_TRUE(cache.record_use(a, kStreamB));
  EXPECT_TRUE(cache.record_use(a, kStreamA));  // once per stream
  cache.free(a);
  ASSERT_EQ(rt.recorded_on.size(), 2u);
  EXPECT_EQ(std::set<HostCache::Stream>(rt.recorded_on.begin(), rt.recorded_on.end()),
            (std::set<HostCache::Stream>{kStreamA, kStreamB}));
  // The copies may still read it: a new block.
  void* b = cache.allocate(1000);
  EXPECT_NE(b, a);
  // One stream done is not enough.
  rt.events.begin()->second = true;
  void* c = cache.allocate(1000);
  EXPECT_NE(c, a);
  EXPECT_EQ(rt.events.size(), 1u);  // the completed event was destroyed
  rt.complete_all();
  EXPECT_EQ(cache.allocate(1000), a);
  EXPECT_TRUE(rt.events.empty());
  // Handed out again, it starts with no streams.
  cache.free(a);
  EXPECT_EQ(rt.recorded_on.size(), 2u);
  EXPECT_EQ(cache.allocate(1000), a);
}

TEST(HostCacheTest, RecordUseOutsideTheCacheIsRefused) {
  FakeRuntime rt;
  HostCache cache(&rt);
  char* a = static_cast<char*>(cache.allocate(600));  // a 1024-byte block
  int elsewhere = 0;
  EXPECT_FALSE(cache.record_use(&elsewhere, kStreamA));
  EXPECT_TRUE(cache.record_use(a + 1023, kStreamA));
  cache.free(a);
  EXPECT_FALSE(cache.record_use(a, kStreamA));  // free blocks take no uses
}

TEST(HostCacheTest, ForeignPointersGoToTheRuntime) {
  FakeRuntime rt;
  HostCache cache(&rt);
  void* p = rt.alloc(64);
  cache.free(p);
  EXPECT_TRUE(rt.live.empty());
  cache.free(nullptr);
}

TEST(HostCacheTest, EmptyCacheFreesOnlyIdleBlocks) {
  FakeRuntime rt;
  HostCache cache(&rt);
  void* in_use = cache.allocate(100);
  void* idle = cache.allocate(100);
  void* pending = cache.allocate(100);
  cache.record_use(pending, kStreamA);
  cache.free(idle);
  cache.free(pending);
  cache.empty_cache();
  EXPECT_EQ(rt.live, (std::set<void*>{in_use, pending}));
  EXPECT_EQ(cache.stats().reserved_bytes, 1024u);
  rt.complete_all();
  cache.empty_cache();
  EXPECT_EQ(rt.live, (std::set<void*>{in_use}));
  cache.free(in_use);
}

TEST(HostCacheTest, AFailedEventRecordKeepsTheBlockOutOfUse) {
  FakeRuntime rt;
  HostCache cache(&rt);
  void* a = cache.allocate(100);
  cache.record_use(a, kStreamA);
  rt.fail_record = true;
  cache.free(a);  // does not throw
  rt.fail_record = false;
  EXPECT_NE(cache.allocate(100), a);
}

}  // namespace
}  // namespace detail
}  // namespace cuda
}  // namespace ember
