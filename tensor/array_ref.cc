#include "tensor/array_ref.h"

#include <algorithm>
#include <ostream>

#include "tensor/error.h"

namespace ember {

const int64_t& IntArrayRef::at(size_t i) const {
  EMBER_CHECK_INDEX(i < size_, "IntArrayRef: index ", i, " is out of range for ", size_,
                    " elements");
  return data_[i];
}

bool operator==(IntArrayRef a, IntArrayRef b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

std::ostream& operator<<(std::ostream& os, IntArrayRef list) {
  os << '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) os << ", ";
    os << list[i];
  }
  return os << ']';
}

}  // namespace ember
