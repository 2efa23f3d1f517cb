#ifndef EMBER_DISTRIBUTED_FILE_STORE_H_
#define EMBER_DISTRIBUTED_FILE_STORE_H_

// FileStore (torch.distributed.FileStore): a Store in one file on a file
// system every rank sees (init_method file:///path).
//
// The file is an append-only log (an 8-byte header, then records: key, and
// the new value or a deletion). Every operation takes an exclusive flock(),
// reads the records other processes appended since its last look, then
// appends its own, so any number of processes (and threads) can share it. A
// record cut short by a writer that died mid-append is dropped (the file is
// truncated back to the last whole record); a file that is not a FileStore
// log is an error, never a crash. get and wait poll the file until the keys
// appear or the timeout passes.

#include <mutex>
#include <string>
#include <unordered_map>

#include "distributed/store.h"

namespace ember::distributed {

class FileStore : public Store {
 public:
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

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
  std::shared_ptr<Store> clone(std::chrono::milliseconds timeout) const override;

  const std::string& path() const { return path_; }

 private:
  class Locked;  // holds the flock and mu_, brings the map up to date
  void append_locked(const std::string& key, const std::vector<uint8_t>* value);
  void refresh_locked();

  std::string path_;
  int fd_ = -1;
  std::mutex mu_;
  uint64_t pos_ = 0;  // how far the log has been read
  std::unordered_map<std::string, std::vector<uint8_t>> map_;
};

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_FILE_STORE_H_
