#include "tensor/tensor_options.h"

#include <ostream>

namespace ember {
namespace {

// The dtype's C++ type as libtorch's caffe2::TypeMeta prints it (GCC's
// demangled names).
const char* type_meta_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Byte: return "unsigned char";
    case ScalarType::Char: return "signed char";
    case ScalarType::Short: return "short int";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    case ScalarType::QInt8: return "c10::qint8";
    case ScalarType::QUInt8: return "c10::quint8";
    default: return dtype_name(t);
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const TensorOptions& options) {
  auto mark = [&](bool has) { return has ? "" : " (default)"; };
  os << "TensorOptions(dtype=" << type_meta_name(options.dtype()) << mark(options.has_dtype())
     << ", device=" << options.device() << mark(options.has_device())
     << ", layout=Strided (default)"
     << ", requires_grad=" << (options.requires_grad() ? "true" : "false")
     << mark(options.has_requires_grad()) << ", pinned_memory=false (default)"
     << ", memory_format=";
  if (options.has_memory_format()) {
    os << *options.memory_format_opt();
  } else {
    os << "(nullopt)";
  }
  return os << ")";
}

}  // namespace ember
