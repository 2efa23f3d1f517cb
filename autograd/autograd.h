#ifndef EMBER_AUTOGRAD_AUTOGRAD_H_
#define EMBER_AUTOGRAD_AUTOGRAD_H_
// //autograd for users: grad mode guards, backward/grad, nodes and hooks,
// custom Functions, gradcheck. Linking //autograd installs it (Note
// [Autograd design]).
#include "autograd/custom_function.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/node.h"

#endif  // EMBER_AUTOGRAD_AUTOGRAD_H_
