#include "nn/functional/options.h"

namespace ember {

const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return "none";
    case Reduction::kMean:
      return "mean";
    case Reduction::kSum:
      return "sum";
  }
  return "mean";
}

const char* pad_mode_name(PadMode m) {
  switch (m) {
    case PadMode::kConstant:
      return "constant";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kReplicate:
      return "replicate";
    case PadMode::kCircular:
      return "circular";
  }
  return "constant";
}

}  // namespace ember
