#ifndef EMBER_DISTRIBUTED_GLOO_STORE_H_
#define EMBER_DISTRIBUTED_GLOO_STORE_H_

// gloo::rendezvous::Store over an ember Store, for gloo's connectFullMesh:
// keys go to the ember store under `prefix`; waits use the ember store's
// timeout (or the one gloo passes) and throw ember's TimeoutError.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "distributed/store.h"

namespace ember::distributed {

class GlooStore : public ::gloo::rendezvous::Store {
 public:
  GlooStore(std::shared_ptr<ember::distributed::Store> store, std::string prefix)
      : store_(std::move(store)), prefix_(std::move(prefix)) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  std::vector<std::string> prefixed(const std::vector<std::string>& keys) const;

  std::shared_ptr<ember::distributed::Store> store_;
  std::string prefix_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_GLOO_STORE_H_
