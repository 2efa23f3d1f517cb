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

}  // namespace ember
