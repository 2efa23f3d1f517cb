#ifndef EMBER_TENSOR_MEMORY_FORMAT_H_
#define EMBER_TENSOR_MEMORY_FORMAT_H_

#include <cstdint>
#include <ostream>

namespace ember {

// PyTorch's memory formats (c10::MemoryFormat): the order in which a
// tensor's dims are laid out in memory. Preserve means "as the input"
// (Note [Result layout] in tensor/layout.h); ChannelsLast is NHWC order for
// an NCHW tensor, ChannelsLast3d NDHWC for NCDHW.
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

// libtorch's name for the format factories default to.
constexpr MemoryFormat LEGACY_CONTIGUOUS_MEMORY_FORMAT = MemoryFormat::Contiguous;

inline const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous:
      return "Contiguous";
    case MemoryFormat::Preserve:
      return "Preserve";
    case MemoryFormat::ChannelsLast:
      return "ChannelsLast";
    case MemoryFormat::ChannelsLast3d:
      return "ChannelsLast3d";
  }
  return "Unknown";
}

inline std::ostream& operator<<(std::ostream& os, MemoryFormat f) {
  return os << memory_format_name(f);
}

// PyTorch's tensor layouts (c10::Layout). Every ember tensor is strided (no
// sparse, compressed or mkldnn layouts), so Strided is the only value.
enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;

inline std::ostream& operator<<(std::ostream& os, Layout) { return os << "Strided"; }

}  // namespace ember

#endif  // EMBER_TENSOR_MEMORY_FORMAT_H_
