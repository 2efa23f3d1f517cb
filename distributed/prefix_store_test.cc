#include "distributed/prefix_store.h"

#include <chrono>
#include <memory>

#include <gtest/gtest.h>

#include "distributed/tcp_store.h"

namespace ember::distributed {
namespace {

std::shared_ptr<TCPStore> make_store() {
  TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  o.timeout = std::chrono::milliseconds(300);
  return std::make_shared<TCPStore>("127.0.0.1", o);
}

TEST(PrefixStoreTest, KeysLandUnderThePrefix) {
  auto base = make_store();
  PrefixStore p("group1", base);
  p.set("k", std::string("v"));
  EXPECT_EQ(base->get_string("group1/k"), "v");
  EXPECT_EQ(p.get_string("k"), "v");
  EXPECT_FALSE(base->check({"k"}));
  EXPECT_EQ(p.add("n", 2), 2);
  EXPECT_EQ(base->get_string("group1/n"), "2");
  EXPECT_EQ(p.compare_set("c", {}, {'x'}), (std::vector<uint8_t>{'x'}));
  EXPECT_TRUE(p.check({"k", "n", "c"}));
  EXPECT_EQ(p.num_keys(), 3);  // the underlying store's count
  EXPECT_TRUE(p.delete_key("k"));
  EXPECT_FALSE(base->check({"group1/k"}));
}

TEST(PrefixStoreTest, NestedPrefixesAndIsolation) {
  auto base = make_store();
  auto outer = std::make_shared<PrefixStore>("a", base);
  PrefixStore inner("b", outer);
  PrefixStore other("c", base);
  inner.set("k", std::string("1"));
  other.set("k", std::string("2"));
  EXPECT_EQ(base->get_string("a/b/k"), "1");
  EXPECT_EQ(inner.get_string("k"), "1");
  EXPECT_EQ(other.get_string("k"), "2");
}

TEST(PrefixStoreTest, WaitTimesOutOnPrefixedKey) {
  auto base = make_store();
  PrefixStore p("g", base);
  base->set("k", std::string("unprefixed"));
  try {
    p.wait({"k"}, std::chrono::milliseconds(100));
    FAIL();
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("g/k"), std::string::npos) << e.what();
  }
}

TEST(PrefixStoreTest, NullStoreIsAnError) { EXPECT_THROW(PrefixStore("p", nullptr), ValueError); }

}  // namespace
}  // namespace ember::distributed
