// The multi-tensor optimizer kernels (Note [Multi-tensor updates] in
// tensor/multi_tensor.h): one launch covers up to kMaxTensors tensors and
// kMaxBlocks chunks of kChunk elements, each block one chunk; the tensors'
// pointers and per-tensor scalars travel in the kernel's arguments (about
// 3.4 KB, under CUDA's 4 KB), so a step costs no copies. Adam's capturable
// steps travel as pointers too: the kernel reads them on the device.

#include "tensor/cuda/elementwise.cuh"
#include "tensor/cuda/multi_tensor_kernels.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kMaxTensors = 24;
constexpr int kMaxBlocks = 320;
constexpr int64_t kChunk = 65536;
constexpr int kListThreads = 512;

template <int kDepth>
struct Chunks {
  void* ptr[kDepth][kMaxTensors];
  int64_t numel[kMaxTensors];
  double a[kMaxTensors], b[kMaxTensors];
  const float* step[kMaxTensors];  // Adam's capturable steps, or nullptrs
  unsigned char tensor[kMaxBlocks];
  int chunk[kMaxBlocks];
};

// Where block blockIdx.x works: tensor t, elements [base, base + n).
template <int kDepth>
__device__ __forceinline__ int64_t chunk_extent(const Chunks<kDepth>& c, int* t, int64_t* base) {
  *t = c.tensor[blockIdx.x];
  *base = static_cast<int64_t>(c.chunk[blockIdx.x]) * kChunk;
  const int64_t left = c.numel[*t] - *base;
  return left < kChunk ? left : kChunk;
}

template <typename A, typename T>
__device__ __forceinline__ A rounded(A x) {  // x as stored in T, read back
  return static_cast<A>(static_cast<T>(x));
}

template <typename T, int kDepth, bool kAmsgrad>
__global__ void adam_kernel(Chunks<kDepth> c, AdamConsts k) {
  using A = opmath_t<T>;
  int t;
  int64_t base;
  const int64_t n = chunk_extent(c, &t, &base);
  T* p = static_cast<T*>(c.ptr[0][t]) + base;
  const T* g = static_cast<const T*>(c.ptr[1][t]) + base;
  T* m = static_cast<T*>(c.ptr[2][t]) + base;
  T* v = static_cast<T*>(c.ptr[3][t]) + base;
  T* vmax = kAmsgrad ? static_cast<T*>(c.ptr[kDepth - 1][t]) + base : nullptr;
  A step_size, bc2;
  if (c.step[t] != nullptr) {  // capturable: the host's formulas, on the device
    const double step = static_cast<double>(*c.step[t]);
    step_size = static_cast<A>(k.lr / (1 - ::pow(k.beta1, step)));
    bc2 = static_cast<A>(::sqrt(1 - ::pow(k.beta2, step)));
  } else {
    step_size = static_cast<A>(c.a[t]);
    bc2 = static_cast<A>(c.b[t]);
  }
  const A beta1 = static_cast<A>(k.beta1), beta2 = static_cast<A>(k.beta2);
  const A one_m_beta1 = static_cast<A>(1 - k.beta1), one_m_beta2 = static_cast<A>(1 - k.beta2);
  const A eps = static_cast<A>(k.eps), wd = static_cast<A>(k.weight_decay);
  const A decay = static_cast<A>(k.decay);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    A param = static_cast<A>(p[i]);
    A grad = static_cast<A>(g[i]);
    if (k.maximize) grad = -grad;
    if (k.decoupled) {
      param = rounded<A, T>(param * decay);
    } else if (k.weight_decay != 0) {
      grad = rounded<A, T>(grad + wd * param);
    }
    const A mi = rounded<A, T>(static_cast<A>(m[i]) * beta1 + one_m_beta1 * grad);
    const A vi = rounded<A, T>(static_cast<A>(v[i]) * beta2 + one_m_beta2 * grad * grad);
    m[i] = static_cast<T>(mi);
    v[i] = static_cast<T>(vi);
    A second = vi;
    if (kAmsgrad) {
      second = nan_max(static_cast<A>(vmax[i]), vi);
      vmax[i] = static_cast<T>(second);
    }
    const A denom = sqrt(second) / bc2 + eps;
    p[i] = static_cast<T>(param - step_size * (mi / denom));
  }
}

// kDepth 3: param, grad, momentum_buffer; 2: no momentum.
template <typename T, int kDepth>
__global__ void sgd_kernel(Chunks<kDepth> c, SgdConsts k) {
  constexpr bool kMomentum = kDepth == 3;
  using A = opmath_t<T>;
  int t;
  int64_t base;
  const int64_t n = chunk_extent(c, &t, &base);
  T* p = static_cast<T*>(c.ptr[0][t]) + base;
  const T* g = static_cast<const T*>(c.ptr[1][t]) + base;
  T* buf = kMomentum ? static_cast<T*>(c.ptr[kDepth - 1][t]) + base : nullptr;
  const bool fresh = c.a[t] != 0;
  const A lr = static_cast<A>(k.lr), wd = static_cast<A>(k.weight_decay);
  const A momentum = static_cast<A>(k.momentum), damp = static_cast<A>(1 - k.dampening);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const A param = static_cast<A>(p[i]);
    A d = static_cast<A>(g[i]);
    if (k.maximize) d = -d;
    if (k.weight_decay != 0) d = rounded<A, T>(d + wd * param);
    if (kMomentum) {
      const A b = fresh ? d : rounded<A, T>(static_cast<A>(buf[i]) * momentum + damp * d);
      buf[i] = static_cast<T>(b);
      d = k.nesterov ? rounded<A, T>(d + momentum * b) : b;
    }
    p[i] = static_cast<T>(param - lr * d);
  }
}

// Fills Chunks with the lists' tensors and chunks, calling launch(chunks,
// blocks) whenever the tensors or blocks of one launch run out; a tensor
// cut by a launch goes on in the next.
template <int kDepth, typename Launch>
cudaError_t for_each_launch(const TensorLists& l, const Launch& launch) {
  Chunks<kDepth> c;
  int nt = 0, nb = 0;
  for (int t = 0; t < l.n; ++t) {
    if (l.numel[t] == 0) continue;
    for (int d = 0; d < kDepth; ++d) c.ptr[d][nt] = l.ptrs[d * l.n + t];
    c.numel[nt] = l.numel[t];
    c.a[nt] = l.a != nullptr ? l.a[t] : 0;
    c.b[nt] = l.b != nullptr ? l.b[t] : 0;
    c.step[nt] = l.steps != nullptr ? l.steps[t] : nullptr;
    const int64_t chunks = (l.numel[t] + kChunk - 1) / kChunk;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      c.tensor[nb] = static_cast<unsigned char>(nt);
      c.chunk[nb] = static_cast<int>(ch);
      ++nb;
      const bool blocks_full = nb == kMaxBlocks;
      const bool last_chunk = ch == chunks - 1;
      const bool tensors_full = nt + 1 == kMaxTensors && last_chunk;
      if (blocks_full || tensors_full) {
        launch(c, nb);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        nb = 0;
        if (last_chunk) {
          nt = -1;  // the next tensor starts a fresh launch
        } else {    // this tensor goes on as the first of the next launch
          for (int d = 0; d < kDepth; ++d) c.ptr[d][0] = c.ptr[d][nt];
          c.numel[0] = c.numel[nt];
          c.a[0] = c.a[nt];
          c.b[0] = c.b[nt];
          c.step[0] = c.step[nt];
          nt = 0;
        }
      }
    }
    ++nt;
  }
  if (nb > 0) launch(c, nb);
  return cudaGetLastError();
}

// Adam's capturable steps, each advanced by one (PyTorch's
// _foreach_add_(state_steps, 1)): up to kMaxSteps per launch, one thread each.
constexpr int kMaxSteps = 256;
struct StepList {
  float* step[kMaxSteps];
  int n;
};

__global__ void advance_steps_kernel(StepList s) {
  if (static_cast<int>(threadIdx.x) < s.n) *s.step[threadIdx.x] += 1.0f;
}

cudaError_t advance_steps(float* const* steps, int n) {
  for (int begin = 0; begin < n; begin += kMaxSteps) {
    StepList s;
    s.n = n - begin < kMaxSteps ? n - begin : kMaxSteps;
    for (int i = 0; i < s.n; ++i) s.step[i] = steps[begin + i];
    advance_steps_kernel<<<1, kMaxSteps, 0, current_stream()>>>(s);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t launch_multi_adam(DType dtype, const TensorLists& lists, const AdamConsts& k) {
  if (lists.steps != nullptr) {
    const cudaError_t err = advance_steps(lists.steps, lists.n);
    if (err != cudaSuccess) return err;
  }
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (k.amsgrad) {
      return for_each_launch<5>(lists, [&](const Chunks<5>& c, int blocks) {
        adam_kernel<T, 5, true><<<blocks, kListThreads, 0, current_stream()>>>(c, k);
      });
    }
    return for_each_launch<4>(lists, [&](const Chunks<4>& c, int blocks) {
      adam_kernel<T, 4, false><<<blocks, kListThreads, 0, current_stream()>>>(c, k);
    });
  });
}

cudaError_t launch_multi_sgd(DType dtype, const TensorLists& lists, const SgdConsts& k) {
  return dispatch<kFloatingKinds>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (k.momentum_on) {
      return for_each_launch<3>(lists, [&](const Chunks<3>& c, int blocks) {
        sgd_kernel<T, 3><<<blocks, kListThreads, 0, current_stream()>>>(c, k);
      });
    }
    return for_each_launch<2>(lists, [&](const Chunks<2>& c, int blocks) {
      sgd_kernel<T, 2><<<blocks, kListThreads, 0, current_stream()>>>(c, k);
    });
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
