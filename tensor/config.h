#ifndef EMBER_TENSOR_CONFIG_H_
#define EMBER_TENSOR_CONFIG_H_

// torch.__config__.show() for ember: how it was built, what the running CPU
// can do (tensor/cpu_info.h), and which library or kernel ember chose for
// it (Note [CPU dispatch]). Every choice is made at run time from the CPU
// the program runs on, never from the build machine.
//
//   std::cout << ember::show_config();

#include <string>

namespace ember {

std::string show_config();

}  // namespace ember

#endif  // EMBER_TENSOR_CONFIG_H_
