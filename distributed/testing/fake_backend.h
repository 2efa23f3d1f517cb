#ifndef EMBER_DISTRIBUTED_TESTING_FAKE_BACKEND_H_
#define EMBER_DISTRIBUTED_TESTING_FAKE_BACKEND_H_

// A backend named "fake" for tests of initialization and the launcher
// (testonly): its ProcessGroup implements barrier() through the group's
// store and throws for every other operation.

namespace ember::distributed::testing {

void register_fake_backend();

}  // namespace ember::distributed::testing

#endif  // EMBER_DISTRIBUTED_TESTING_FAKE_BACKEND_H_
