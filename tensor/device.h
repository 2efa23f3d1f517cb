#ifndef EMBER_TENSOR_DEVICE_H_
#define EMBER_TENSOR_DEVICE_H_

#include <cstdint>
#include <ostream>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

// A device kind and index; index -1 means "the current one" (cuda) and is
// what a CPU device always has.
class Device {
 public:
  Device(DeviceType type, int8_t index = -1) : type_(type), index_(index) {}  // NOLINT
  // Parses "cpu", "cuda", "cuda:1".
  Device(const std::string& spec);  // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT

  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;

  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  int8_t index_;
};

std::ostream& operator<<(std::ostream& os, const Device& d);
const char* device_type_name(DeviceType t);

}  // namespace ember

#endif  // EMBER_TENSOR_DEVICE_H_
