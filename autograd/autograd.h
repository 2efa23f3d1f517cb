#ifndef EMBER_AUTOGRAD_AUTOGRAD_H_
#define EMBER_AUTOGRAD_AUTOGRAD_H_
// //autograd for users: grad mode guards, backward/grad, nodes and hooks,
// gradcheck. Linking //autograd installs it (Note [Autograd design]).
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/node.h"

#endif  // EMBER_AUTOGRAD_AUTOGRAD_H_
