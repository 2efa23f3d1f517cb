#ifndef EMBER_TENSOR_CUDA_SPIN_FOR_TESTS_H_
#define EMBER_TENSOR_CUDA_SPIN_FOR_TESTS_H_

// A kernel that keeps the current stream of the current device busy for
// about `microseconds` (one thread polling the clock), for tests of stream
// ordering (stream_test.cc). Throws where CUDA is not available.

#include <cstdint>

namespace ember {
namespace cuda {
namespace testing {

void spin(int64_t microseconds);

}  // namespace testing
}  // namespace cuda
}  // namespace ember

#endif  // EMBER_TENSOR_CUDA_SPIN_FOR_TESTS_H_
