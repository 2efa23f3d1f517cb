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
  explicit GeneratorImpl(uint64_t seed = kDefaultRngSeed) { set_current_seed(seed); }

  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const { return seed_; }
  uint32_t random() { return static_cast<uint32_t>(engine_()); }
  uint64_t random64() {
    const uint64_t hi = random();
    const uint64_t lo = random();
    return (hi << 32) | lo;
  }
  // Box-Muller makes normals in pairs; the second one waits here.
  std::optional<double>& next_double_normal_sample() { return next_double_normal_; }
  std::mutex& mutex() { return mutex_; }

 private:
  std::mt19937 engine_;
  uint64_t seed_ = kDefaultRngSeed;
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

  Generator& manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(impl_->mutex());
    impl_->set_current_seed(seed);
    return *this;
  }
  uint64_t initial_seed() const { return impl_->current_seed(); }
  // Reseeds from a nondeterministic source and returns the new seed.
  uint64_t seed();
  GeneratorImpl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<GeneratorImpl> impl_;
};

// The process-wide CPU generator (torch.default_generator).
Generator default_generator();
// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);
uint64_t initial_seed();

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
Tensor& random_(Tensor& t, int64_t from, int64_t to, const Generator& gen);
Tensor& exponential_(Tensor& t, double lambd, const Generator& gen);

}  // namespace ember

#endif  // EMBER_TENSOR_RANDOM_H_
