// Registers "gloo" with init_process_group's backend registry: linking
// //distributed:gloo is what makes is_gloo_available() true.

#include "distributed/init.h"
#include "distributed/process_group_gloo.h"

namespace ember::distributed {

void register_gloo_backend() {
  register_backend(Backend::GLOO, [](std::shared_ptr<Store> store, int rank, int size,
                                     std::chrono::milliseconds timeout) {
    // The store is the group's own PrefixStore; group_name only has to keep
    // gloo's keys apart from init's.
    ProcessGroupGloo::Options options;
    options.timeout = timeout;
    options.group_name = "gloo";
    return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, options);
  });
}

namespace {
const bool kRegistered = (register_gloo_backend(), true);
}  // namespace

}  // namespace ember::distributed
