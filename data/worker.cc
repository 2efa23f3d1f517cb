#include "data/worker.h"

namespace ember {
namespace data {
namespace {
thread_local const WorkerInfo* tls_worker_info = nullptr;
}  // namespace

const WorkerInfo* get_worker_info() { return tls_worker_info; }

Generator current_generator() {
  return tls_worker_info != nullptr ? tls_worker_info->generator : default_generator();
}

namespace internal {
void set_worker_info(const WorkerInfo* info) { tls_worker_info = info; }
}  // namespace internal

}  // namespace data
}  // namespace ember
