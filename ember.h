#ifndef EMBER_EMBER_H_
#define EMBER_EMBER_H_

// The umbrella header for programs that use ember: `#include "ember.h"` with
// a dependency on @ember//:ember. The project's own files include what they
// use instead.

#include "tensor/all.h"

#endif  // EMBER_EMBER_H_
