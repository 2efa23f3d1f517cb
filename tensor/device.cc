#include "tensor/device.h"

#include <cctype>

#include "tensor/error.h"

namespace ember {

Device::Device(const std::string& spec) : type_(kCPU), index_(-1) {
  std::string kind = spec;
  std::string idx;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    kind = spec.substr(0, colon);
    idx = spec.substr(colon + 1);
  }
  if (kind == "cpu") {
    type_ = kCPU;
  } else if (kind == "cuda") {
    type_ = kCUDA;
  } else {
    throw Error(absl::StrCat(
        "Expected one of cpu, cuda device type at start of device string: ", spec));
  }
  if (colon != std::string::npos) {
    bool ok = !idx.empty() && idx.size() <= 3;
    for (char c : idx) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    EMBER_CHECK(ok, "Invalid device string: '", spec, "'");
    int v = std::stoi(idx);
    EMBER_CHECK(v < 128, "Invalid device string: '", spec, "'");
    index_ = static_cast<int8_t>(v);
  }
}

const char* device_type_name(DeviceType t) { return t == kCPU ? "cpu" : "cuda"; }

std::string Device::str() const {
  std::string s = device_type_name(type_);
  if (has_index()) absl::StrAppend(&s, ":", index_);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
