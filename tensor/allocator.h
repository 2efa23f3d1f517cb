#ifndef EMBER_TENSOR_ALLOCATOR_H_
#define EMBER_TENSOR_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>

#include "tensor/device.h"

namespace ember {

// Memory a Storage owns: the pointer, and how to give it back.
struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;                         // passed to deleter
  void (*deleter)(void* ctx, void* ptr) = nullptr;
  Device device = kCPU;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Allocation on a given instance of the device type (index -1: the current
  // one). Only device types with several instances (CUDA) override it.
  virtual DataPtr allocate_on(Device device, size_t nbytes) {
    (void)device;
    return allocate(nbytes);
  }
};

// The CPU allocator. Note [Caching host allocator]: glibc hands large blocks
// back to the kernel on free, so every fresh 64 MiB result costs ~16k page
// faults. Blocks of 128 KiB and more (from glibc's initial mmap threshold
// on, where it returns freed blocks to the kernel) are kept in size-class
// free lists and reused; empty_cache() returns them to the system. Blocks
// are 64-byte aligned so kernels can use aligned vector loads.
Allocator* cpu_allocator();

// One registered allocator per device type (the CUDA backend registers its own).
Allocator* get_allocator(DeviceType t);
void set_allocator(DeviceType t, Allocator* a);

namespace cpu_cache {
// Bytes held in the CPU allocator's free lists.
size_t cached_bytes();
// Returns every cached block to the system.
void empty_cache();
// The most bytes the free lists keep (Note [Cache limit] in allocator.cc):
// 1 GiB unless EMBER_CPU_CACHE_LIMIT_MB says otherwise; blocks freed beyond
// it go back to the system. Lowering it below what is cached empties the
// cache; 0 turns caching off.
size_t limit();
void set_limit(size_t bytes);
}  // namespace cpu_cache

}  // namespace ember

#endif  // EMBER_TENSOR_ALLOCATOR_H_
