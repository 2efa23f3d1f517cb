#include "tensor/precision.h"

#include <atomic>
#include <iostream>

namespace ember {
namespace {

enum class Precision : int { kHighest, kHigh, kMedium };

std::atomic<int> g_matmul{static_cast<int>(Precision::kHighest)};
std::atomic<bool> g_cudnn_tf32{true};

}  // namespace

void set_float32_matmul_precision(const std::string& precision) {
  Precision p;
  if (precision == "highest") {
    p = Precision::kHighest;
  } else if (precision == "high") {
    p = Precision::kHigh;
  } else if (precision == "medium") {
    p = Precision::kMedium;
  } else {
    // PyTorch warns and leaves the setting as it was.
    std::cerr << "UserWarning: " << precision
              << " is not one of 'highest', 'high', or 'medium'; the current "
                 "set_float32_matmul_precision call has no effect.\n";
    return;
  }
  g_matmul.store(static_cast<int>(p));
}

std::string get_float32_matmul_precision() {
  switch (static_cast<Precision>(g_matmul.load())) {
    case Precision::kHigh:
      return "high";
    case Precision::kMedium:
      return "medium";
    default:
      return "highest";
  }
}

namespace cuda {
namespace matmul {

void set_allow_tf32(bool allow) {
  g_matmul.store(static_cast<int>(allow ? Precision::kHigh : Precision::kHighest));
}

bool allow_tf32() { return g_matmul.load() != static_cast<int>(Precision::kHighest); }

}  // namespace matmul

void set_cudnn_allow_tf32(bool allow) { g_cudnn_tf32.store(allow); }
bool cudnn_allow_tf32() { return g_cudnn_tf32.load(); }

}  // namespace cuda
}  // namespace ember
