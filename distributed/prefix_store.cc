#include "distributed/prefix_store.h"

namespace ember::distributed {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  EMBER_CHECK_VALUE(store_ != nullptr, "PrefixStore: the underlying store is null");
}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const auto& k : ks) out.push_back(key(k));
  return out;
}

void PrefixStore::set(const std::string& k, const std::vector<uint8_t>& value) {
  store_->set(key(k), value);
}
std::vector<uint8_t> PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t value) {
  return store_->add(key(k), value);
}
std::vector<uint8_t> PrefixStore::compare_set(const std::string& k,
                                              const std::vector<uint8_t>& expected,
                                              const std::vector<uint8_t>& desired) {
  return store_->compare_set(key(k), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
void PrefixStore::wait(const std::vector<std::string>& ks, std::chrono::milliseconds timeout) {
  store_->wait(keys(ks), timeout == kNoTimeout ? timeout_ : timeout);
}
bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }

void PrefixStore::append(const std::string& k, const std::vector<uint8_t>& value) {
  store_->append(key(k), value);
}

std::vector<std::vector<uint8_t>> PrefixStore::multi_get(const std::vector<std::string>& ks) {
  return store_->multi_get(keys(ks));
}

void PrefixStore::multi_set(const std::vector<std::string>& ks,
                            const std::vector<std::vector<uint8_t>>& values) {
  store_->multi_set(keys(ks), values);
}

std::shared_ptr<Store> PrefixStore::clone(std::chrono::milliseconds timeout) const {
  std::shared_ptr<Store> inner = store_->clone(timeout);
  if (inner == nullptr) return nullptr;
  auto out = std::make_shared<PrefixStore>(prefix_, std::move(inner));
  out->set_timeout(timeout);
  return out;
}

}  // namespace ember::distributed
