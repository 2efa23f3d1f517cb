// stream.h in a CPU-only build (no CUDA toolkit at build time): streams and
// events exist as types, and what needs a device throws "Torch not compiled
// with CUDA enabled", as cuda.h's functions do. stream.cc defines these in
// a CUDA build.

#include "tensor/cuda/stream.h"

#ifndef EMBER_WITH_CUDA

#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {
namespace cuda {
namespace {
[[noreturn]] void not_compiled() { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace

cudaStream_t CUDAStream::stream() const { not_compiled(); }
bool CUDAStream::query() const { not_compiled(); }
void CUDAStream::synchronize() const { not_compiled(); }
int CUDAStream::priority() const { not_compiled(); }

std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
  return os << "stream " << s.id() << " on device cuda:" << s.device_index();
}

CUDAStream getCurrentCUDAStream(int) { not_compiled(); }
CUDAStream getDefaultCUDAStream(int) { not_compiled(); }
CUDAStream getStreamFromPool(bool, int) { not_compiled(); }
void setCurrentCUDAStream(CUDAStream) { not_compiled(); }

CUDAStreamGuard::CUDAStreamGuard(CUDAStream stream)
    : original_device_(0), original_stream_(stream), current_(stream) {
  not_compiled();
}
CUDAStreamGuard::~CUDAStreamGuard() {}
void CUDAStreamGuard::reset_stream(CUDAStream) { not_compiled(); }

// No event is ever created here.
CUDAEvent::~CUDAEvent() {}
CUDAEvent::CUDAEvent(CUDAEvent&& o) noexcept : flags_(o.flags_) {}
CUDAEvent& CUDAEvent::operator=(CUDAEvent&& o) noexcept {
  flags_ = o.flags_;
  return *this;
}
void CUDAEvent::record() { not_compiled(); }
void CUDAEvent::record(const CUDAStream&) { not_compiled(); }
void CUDAEvent::recordOnce(const CUDAStream&) { not_compiled(); }
void CUDAEvent::block(const CUDAStream&) const {}
bool CUDAEvent::query() const { return true; }
void CUDAEvent::synchronize() const {}
float CUDAEvent::elapsed_time(const CUDAEvent&) const {
  throw Error("Both events must be recorded before calculating elapsed time.");
}

}  // namespace cuda

void Tensor::record_stream(cuda::CUDAStream) const {
  EMBER_CHECK(defined(), "record_stream: the tensor is undefined");
  EMBER_CHECK(is_cuda(),
              "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.");
  throw Error("Torch not compiled with CUDA enabled");
}

}  // namespace ember

#endif  // EMBER_WITH_CUDA
