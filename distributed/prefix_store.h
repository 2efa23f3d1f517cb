#ifndef EMBER_DISTRIBUTED_PREFIX_STORE_H_
#define EMBER_DISTRIBUTED_PREFIX_STORE_H_

// PrefixStore (torch.distributed.PrefixStore): every key becomes
// "<prefix>/<key>" in the underlying store, so groups and restarts share one
// store without their keys meeting. num_keys() is the underlying store's
// count, as in PyTorch.

#include <memory>
#include <string>

#include "distributed/store.h"

namespace ember::distributed {

class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);

  using Store::set;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void append(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<std::vector<uint8_t>> multi_get(const std::vector<std::string>& keys) override;
  void multi_set(const std::vector<std::string>& keys,
                 const std::vector<std::vector<uint8_t>>& values) override;
  std::shared_ptr<Store> clone(std::chrono::milliseconds timeout) const override;

  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;

  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_PREFIX_STORE_H_
