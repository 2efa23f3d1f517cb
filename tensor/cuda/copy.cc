// Copies that involve a CUDA tensor (Tensor::copy_ hands them here through
// register_cross_device_copy), and the CUDA fill_ kernel.
//
// Note [CUDA copies]: bytes move with one cudaMemcpy whenever both sides have
// the same dtype and the same dense layout (contiguous, or the same
// permutation: to() keeps a transposed tensor's layout). Everything else is
// reduced to that case on the side that has the kernels for it: casts and
// broadcasts of host data run on the host (the CPU copy_), non-contiguous
// device data is gathered or scattered by the strided copy kernel. A cast
// between two CUDA tensors runs the cast kernel where the source lives.

#include <cstring>

#include "tensor/copy.h"
#include "tensor/cuda/context.h"
#include "tensor/cuda/cuda.h"
#include "tensor/cuda/graph_internal.h"
#include "tensor/cuda/kernels.h"
#include "tensor/cuda/launch.h"
#include "tensor/dim.h"
#include "tensor/dispatch.h"
#include "tensor/empty.h"
#include "tensor/iterator.h"

namespace ember {
namespace cuda {
namespace {

using kernels::Geometry;

// copy_ broadcasts src to dst's shape, with the CPU copy_'s errors.
void check_copy_shapes(const Tensor& dst, const Tensor& src) {
  if (dst.sizes() == src.sizes()) return;
  DimVector shape = infer_size(dst.sizes(), src.sizes());
  if (IntArrayRef(shape) != dst.sizes()) {
    throw Error(absl::StrCat("output with shape ", ember::detail::sizes_str(dst.sizes()),
                             " doesn't match the broadcast shape ",
                             ember::detail::sizes_str(shape)));
  }
}

// A view of src with dst's sizes: broadcast dims get stride 0.
Tensor broadcast_view(const Tensor& src, IntArrayRef sizes) {
  if (src.sizes() == sizes) return src;
  DimVector strides(sizes.size(), 0);
  size_t lead = sizes.size() - static_cast<size_t>(src.dim());
  for (int64_t i = 0; i < src.dim(); ++i) {
    strides[lead + i] = src.sizes()[i] == sizes[lead + i] ? src.strides()[i] : 0;
  }
  return Tensor(std::make_shared<TensorImpl>(src.impl()->storage(), src.dtype(), sizes, strides,
                                             src.storage_offset()));
}

// True when a and b hold their elements in the same order in one dense
// block, so that a byte copy of the block copies every element.
bool same_dense_layout(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  if (a.is_contiguous() && b.is_contiguous()) return true;
  return a.strides() == b.strides() && is_non_overlapping_and_dense(a);
}

// The kernels' index space for dst <- src (same sizes), with dims that are
// contiguous in both merged, so a contiguous copy is one dim of stride 1.
Geometry make_geometry(const Tensor& dst, const Tensor& src) {
  Geometry g;
  g.numel = dst.numel();
  int64_t sizes[kernels::kMaxDims], ds[kernels::kMaxDims], ss[kernels::kMaxDims];
  int n = 0;
  for (int64_t k = dst.dim() - 1; k >= 0; --k) {  // innermost first
    int64_t size = dst.sizes()[k];
    if (size == 1) continue;
    int64_t d = dst.strides()[k], s = src.strides()[k];
    if (n > 0 && ds[n - 1] * sizes[n - 1] == d && ss[n - 1] * sizes[n - 1] == s) {
      sizes[n - 1] *= size;
      continue;
    }
    EMBER_CHECK(n < kernels::kMaxDims, "CUDA kernels support tensors of at most ",
                kernels::kMaxDims, " non-contiguous dimensions");
    sizes[n] = size;
    ds[n] = d;
    ss[n] = s;
    ++n;
  }
  if (n == 0) {  // a single element (or none)
    sizes[0] = 1;
    ds[0] = ss[0] = 1;
    n = 1;
  }
  g.ndim = n;
  for (int i = 0; i < n; ++i) {  // outermost first
    g.sizes[i] = sizes[n - 1 - i];
    g.dst_strides[i] = ds[n - 1 - i];
    g.src_strides[i] = ss[n - 1 - i];
  }
  return g;
}

// dst <- src on one device: same dtype, src already viewed at dst's sizes.
void copy_on_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  detail::DeviceGuard guard(dst.device().index());
  EMBER_CUDA_CHECK(kernels::launch_strided_copy(dst.data_ptr(), src.data_ptr(),
                                                make_geometry(dst, src),
                                                static_cast<int>(dst.element_size())));
}

// t, contiguous, on its own device.
Tensor contiguous_on_device(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor r = empty(t.sizes(), t.options());
  copy_on_device(r, t);
  return r;
}

// Note [Pageable uploads]: cudaMemcpy from pageable host memory first waits
// for all the work queued on the device, so every op with a number operand
// (Note [Iterator devices]) used to drain the queue. cudaMemcpyAsync on the
// current stream, which the kernels use too, returns once the driver has
// taken its own copy of pageable bytes, so the source may go at once, and
// stays ordered before the kernels that read dst. A pinned source is read by
// the DMA later: copy_(src, non_blocking=true) leaves it at that (a true
// asynchronous copy, as PyTorch's; the program must not overwrite the
// source before the stream reached the copy), otherwise the copy waits for
// the current stream. Downloads wait for the current stream, since the host
// reads them next, except a non_blocking one into pinned memory (Note [CUDA
// streams] in stream.cc).
//
// One element from pageable memory (a number operand, Note [Iterator
// devices]) is written by the fill kernel, whose argument holds its bytes:
// no staging copy, and a CUDA graph captures the value as a constant (Note
// [CUDA graphs] in graph.cc). What would synchronize the host throws while
// the stream is being captured.
void memcpy_dense(const Tensor& dst, const Tensor& src, cudaMemcpyKind kind) {
  if (dst.numel() == 0) return;
  int device = dst.is_cuda() ? dst.device().index() : src.device().index();
  detail::DeviceGuard guard(device);
  cudaStream_t stream = detail::current_stream_handle(device);
  const void* host = kind == cudaMemcpyHostToDevice ? src.data_ptr() : dst.data_ptr();
  const bool pinned = is_pinned(host);
  const bool non_blocking = pinned && ember::detail::copy_is_non_blocking();
  if (kind == cudaMemcpyHostToDevice && !pinned && dst.numel() == 1 && dst.element_size() <= 8) {
    uint64_t bits = 0;
    std::memcpy(&bits, host, dst.element_size());
    EMBER_CUDA_CHECK(kernels::launch_fill(dst.data_ptr(), make_geometry(dst, dst),
                                          static_cast<int>(dst.element_size()), bits));
    return;
  }
  if (!non_blocking) {
    detail::check_not_capturing(
        stream, kind == cudaMemcpyDeviceToHost
                    ? "Copying a CUDA tensor to the host (item(), to(kCPU), printing)"
                    : "Copying host memory to a CUDA tensor (other than one element, or from "
                      "pinned memory without non_blocking)");
  }
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), kind, stream));
  if (kind == cudaMemcpyHostToDevice && !pinned) return;
  if (non_blocking) {
    // The host block must outlive the copy (Note [Pinned host memory cache]).
    detail::record_host_use(host, stream, device);
    return;
  }
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  // Synchronized: what the index kernels found is final (Note [Device-side
  // index checks] in index_ops.cc).
  if (kind == cudaMemcpyDeviceToHost) detail::check_device_errors(device);
}

// Between two devices: dst's current stream waits for src's, the copy runs
// on dst's, and src's current stream waits for the copy (so src's memory is
// not reused under it: Note [CUDA caching allocator]).
void memcpy_peer(void* dst, int dst_device, const void* src, int src_device, size_t nbytes) {
  cudaStream_t dst_stream = detail::current_stream_handle(dst_device);
  cudaStream_t src_stream = detail::current_stream_handle(src_device);
  cudaEvent_t src_ready = nullptr, copied = nullptr;
  {
    detail::DeviceGuard guard(src_device);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&src_ready, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(src_ready, src_stream));
  }
  detail::DeviceGuard guard(dst_device);
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(dst_stream, src_ready, 0));
  cudaEventDestroy(src_ready);  // released once the wait is satisfied
  EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, nbytes, dst_stream));
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
  EMBER_CUDA_CHECK(cudaEventRecord(copied, dst_stream));
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(src_stream, copied, 0));
  cudaEventDestroy(copied);
}

// src (CUDA) at its own sizes and dtype, on the host.
Tensor to_host(const Tensor& src) {
  Tensor dense = is_non_overlapping_and_dense(src) ? src : contiguous_on_device(src);
  Tensor host = empty_strided(dense.sizes(), dense.strides(), TensorOptions(dense.dtype()));
  memcpy_dense(host, dense, cudaMemcpyDeviceToHost);
  return host;
}

void copy_host_to_device(const Tensor& dst, const Tensor& src) {
  // Cast and make dense on the host, where the kernels for it are.
  Tensor s = src.dtype() == dst.dtype() ? src : src.to(dst.dtype());
  if (same_dense_layout(dst, s)) {
    memcpy_dense(dst, s, cudaMemcpyHostToDevice);
    return;
  }
  Tensor host = s.contiguous();
  if (same_dense_layout(dst, host)) {  // a strided or broadcast source, made dense
    memcpy_dense(dst, host, cudaMemcpyHostToDevice);
    return;
  }
  Tensor staged = empty(host.sizes(), dst.options());
  memcpy_dense(staged, host, cudaMemcpyHostToDevice);
  copy_on_device(dst, broadcast_view(staged, dst.sizes()));
}

void copy_device_to_host(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && same_dense_layout(dst, src)) {
    memcpy_dense(dst, src, cudaMemcpyDeviceToHost);
    return;
  }
  // Bring src over as it is; the CPU copy_ casts, broadcasts and scatters.
  Tensor out = dst;
  out.copy_(to_host(src));
}

// dst <- src converted to dst's dtype, both on one device (cast.cu).
void cast_on_device(const Tensor& dst, const Tensor& src) {
  IterConfig c;
  c.cast_inputs = false;
  c.promote_inputs = false;
  c.shape_from_output = true;
  c.check_output_cast = false;
  c.allow_output_cast = false;
  TensorIterator iter(c);
  iter.add_output(dst).add_input(src).build();
  detail::DeviceGuard guard(dst.device().index());
  detail::check_launch(kernels::launch_cast(detail::kernel_dtype(dst.dtype()),
                                            detail::kernel_dtype(src.dtype()),
                                            detail::make_elementwise(iter)),
                       "copy_", src.dtype());
}

void copy_device_to_device(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype()) {
    if (dst.device() == src.device()) {
      cast_on_device(dst, src);
    } else {  // cast where the data is, then move it
      Tensor cast = empty(src.sizes(), TensorOptions(dst.dtype()).device(src.device()));
      cast_on_device(cast, src);
      copy_device_to_device(dst, cast);
    }
    return;
  }
  Tensor s = broadcast_view(src, dst.sizes());
  if (dst.device() == src.device()) {
    copy_on_device(dst, s);
    return;
  }
  // Between devices: a peer copy of a dense block, then a scatter on dst's
  // device when the layouts differ.
  Tensor dense = contiguous_on_device(src);
  if (same_dense_layout(dst, dense)) {
    memcpy_peer(dst.data_ptr(), dst.device().index(), dense.data_ptr(), dense.device().index(),
                dst.nbytes());
    return;
  }
  Tensor staged = empty(dense.sizes(), dst.options());
  memcpy_peer(staged.data_ptr(), staged.device().index(), dense.data_ptr(), dense.device().index(),
              staged.nbytes());
  copy_on_device(dst, broadcast_view(staged, dst.sizes()));
}

void copy_cuda(const Tensor& dst, const Tensor& src) {
  detail::ensure_initialized();
  check_copy_shapes(dst, src);
  if (dst.is_quantized() || src.is_quantized()) {
    EMBER_CHECK(dst.dtype() == src.dtype(), "copy_ between quantized and non-quantized tensors (",
                scalar_type_name(src.dtype()), " to ", scalar_type_name(dst.dtype()),
                ") is not supported");
    dst.impl()->set_quant_params(src.impl()->quant_params());
  }
  if (dst.numel() == 0) return;
  if (dst.is_cuda() && src.is_cuda()) {
    copy_device_to_device(dst, src);
  } else if (dst.is_cuda()) {
    copy_host_to_device(dst, src);
  } else {
    copy_device_to_host(dst, src);
  }
}

// fill_ on CUDA: the value is converted to dtype's bytes on the host, and the
// kernel stores those bytes (Note [CUDA kernels by element size]).
void fill_cuda(const Tensor& self, const Scalar& value) {
  uint64_t bits = 0;
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    std::memcpy(&bits, &v, sizeof(v));
  });
  if (self.numel() == 0) return;
  detail::DeviceGuard guard(self.device().index());
  EMBER_CUDA_CHECK(kernels::launch_fill(self.data_ptr(), make_geometry(self, self),
                                        static_cast<int>(self.element_size()), bits));
}

const bool registered = [] {
  register_cross_device_copy(kCUDA, &copy_cuda);
  return true;
}();

}  // namespace
}  // namespace cuda

EMBER_REGISTER_KERNEL(fill_kernel, kCUDA, &cuda::fill_cuda);

}  // namespace ember
