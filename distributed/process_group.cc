#include "distributed/process_group.h"

#include <cstdlib>
#include <iostream>

namespace ember::distributed {

void ProcessGroup::abort() {
  std::cout.flush();
  std::cerr << "ProcessGroup::abort: rank " << rank_ << " of " << size_ << " (" << backend_name()
            << ") ends its process" << std::endl;
  std::_Exit(EXIT_FAILURE);
}

}  // namespace ember::distributed
