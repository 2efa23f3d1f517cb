#ifndef EMBER_TENSOR_RANDOM_H_
#define EMBER_TENSOR_RANDOM_H_

// Random numbers: Generator, manual_seed, and the random factories and
// in-place fills (rand/randn/randint/randperm/normal, uniform_/normal_/
// bernoulli_/random_/exponential_).
//
// Note [PyTorch-identical random streams]: the CPU generator is PyTorch's
// (mt19937 seeded with the low 32 bits of the seed, 64-bit draws made of two
// 32-bit ones, high word first) and every transformation follows ATen's CPU
// kernels, rounding included, so that after `manual_seed(s)` rand, randn,
// randint, randperm, normal, bernoulli_ and exponential_ give the values
// torch 1.13 gives on CPU (its AVX2 build) for the same calls.
//
// A CUDA tensor draws from a CUDA generator instead: Philox4x32-10 keyed by
// the seed, with an offset that each fill advances (Note [Device random
// numbers] in random.cc). Each device has a default one, which the Tensor
// methods and the factories without a generator use; manual_seed seeds the
// CPU's and every device's, as torch.manual_seed does.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "tensor/empty.h"
#include "tensor/tensor.h"

namespace ember {

// c10::default_rng_seed_val: the seed of a fresh generator.
constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

// The state behind a Generator handle. Callers lock mutex() around a whole
// fill (as ATen does) so concurrent users never interleave draws.
class GeneratorImpl {
 public:
  explicit GeneratorImpl(uint64_t seed = kDefaultRngSeed, Device device = Device(kCPU))
      : device_(device) {
    set_current_seed(seed);
  }

  // The device whose tensors it fills (a CPU generator fills CPU tensors).
  Device device() const { return device_; }
  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const { return seed_; }
  // A device generator's Philox offset: the next fill's (Note [Device random
  // numbers]). reserve_philox_offset returns it and moves past `increment`.
  uint64_t philox_offset() const { return philox_offset_; }
  void set_philox_offset(uint64_t offset) { philox_offset_ = offset; }
  uint64_t reserve_philox_offset(uint64_t increment) {
    const uint64_t o = philox_offset_;
    philox_offset_ += increment;
    return o;
  }
  uint32_t random() { return static_cast<uint32_t>(engine_()); }
  uint64_t random64() {
    const uint64_t hi = random();
    const uint64_t lo = random();
    return (hi << 32) | lo;
  }
  // Box-Muller makes normals in pairs; the second one waits here.
  std::optional<double>& next_double_normal_sample() { return next_double_normal_; }
  std::mutex& mutex() { return mutex_; }

  // Everything the next draws depend on, to put back later (Module::clone
  // constructs modules, which draws initial values it then overwrites, and
  // leaves the generator as it found it).
  struct Snapshot {
    std::mt19937 engine;
    uint64_t seed;
    uint64_t philox_offset;
    std::optional<double> next_double_normal;
  };
  Snapshot snapshot() const { return {engine_, seed_, philox_offset_, next_double_normal_}; }
  void restore(const Snapshot& s) {
    engine_ = s.engine;
    seed_ = s.seed;
    philox_offset_ = s.philox_offset;
    next_double_normal_ = s.next_double_normal;
  }

 private:
  Device device_;
  std::mt19937 engine_;
  uint64_t seed_ = kDefaultRngSeed;
  uint64_t philox_offset_ = 0;
  std::optional<double> next_double_normal_;
  std::mutex mutex_;
};

// A handle to a generator (copies share the state, as torch.Generator
// objects do).
class Generator {
 public:
  Generator() : impl_(std::make_shared<GeneratorImpl>()) {}
  explicit Generator(uint64_t seed) : impl_(std::make_shared<GeneratorImpl>(seed)) {}
  explicit Generator(std::shared_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  // A generator for `device`'s tensors (torch.Generator(device='cuda')).
  explicit Generator(Device device, uint64_t seed = kDefaultRngSeed)
      : impl_(std::make_shared<GeneratorImpl>(seed, device)) {}

  Generator& manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(impl_->mutex());
    impl_->set_current_seed(seed);
    return *this;
  }
  uint64_t initial_seed() const { return impl_->current_seed(); }
  // Reseeds from a nondeterministic source and returns the new seed.
  uint64_t seed();
  Device device() const { return impl_->device(); }
  // A device generator's state as PyTorch's CUDA generator keeps it: 16
  // uint8 holding the seed and then the offset, each 8 bytes little-endian.
  // (CPU generators: not implemented.)
  Tensor get_state() const;
  Generator& set_state(const Tensor& state);
  GeneratorImpl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<GeneratorImpl> impl_;
};

// The process-wide CPU generator (torch.default_generator).
Generator default_generator();
// Seeds the default generator and every device's (torch.manual_seed).
void manual_seed(uint64_t seed);
uint64_t initial_seed();

namespace detail {
// The default generator of `device`'s tensors: default_generator() for
// the CPU, else the device's own (made on first use).
Generator default_generator_for(Device device);
// Seeds the default generators of every device of `type`, those made
// later included (torch.cuda.manual_seed_all).
void manual_seed_devices(DeviceType type, uint64_t seed);
// One draw of at::uniform_real_distribution<double>(0, 1) from a CPU
// generator (53 random bits); the caller holds g->mutex().
double uniform_double(GeneratorImpl* g);
}  // namespace detail

// --- factories ------------------------------------------------------------
// Floating factories default to the default dtype; randint and randperm to
// kLong.
Tensor rand(IntArrayRef size, const TensorOptions& options = {});
Tensor rand(IntArrayRef size, const Generator& gen, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, const Generator& gen, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef size, const Generator& gen,
               const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const Generator& gen,
               const TensorOptions& options = {});
Tensor randperm(int64_t n, const TensorOptions& options = {});
Tensor randperm(int64_t n, const Generator& gen, const TensorOptions& options = {});
Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options = {});
Tensor normal(double mean, double std, IntArrayRef size, const Generator& gen,
              const TensorOptions& options = {});

Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {});

// --- in-place fills with an explicit generator ------------------------------
// (The Tensor methods of the same names use the default generator.)
Tensor& uniform_(Tensor& t, double from, double to, const Generator& gen);
Tensor& normal_(Tensor& t, double mean, double std, const Generator& gen);
Tensor& bernoulli_(Tensor& t, double p, const Generator& gen);
// 1 where a draw falls below p (floating, broadcast to t's shape).
Tensor& bernoulli_(Tensor& t, const Tensor& p, const Generator& gen);
Tensor& random_(Tensor& t, int64_t from, int64_t to, const Generator& gen);
Tensor& exponential_(Tensor& t, double lambd, const Generator& gen);
Tensor& cauchy_(Tensor& t, double median, double sigma, const Generator& gen);
Tensor& log_normal_(Tensor& t, double mean, double std, const Generator& gen);
// Integer dtypes too (bool refused); p in (0, 1).
Tensor& geometric_(Tensor& t, double p, const Generator& gen);

}  // namespace ember

#endif  // EMBER_TENSOR_RANDOM_H_
