#ifndef EMBER_OPTIM_OPTIM_H_
#define EMBER_OPTIM_OPTIM_H_
// //optim for users: optimizers, LR schedulers, gradient clipping.
#include "optim/adadelta.h"
#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamax.h"
#include "optim/asgd.h"
#include "optim/clip_grad.h"
#include "optim/convert_parameters.h"
#include "optim/composite_schedulers.h"
#include "optim/cyclic_schedulers.h"
#include "optim/factor_schedulers.h"
#include "optim/lbfgs.h"
#include "optim/lr_scheduler.h"
#include "optim/nadam.h"
#include "optim/optimizer.h"
#include "optim/radam.h"
#include "optim/reduce_lr_on_plateau.h"
#include "optim/rmsprop.h"
#include "optim/rprop.h"
#include "optim/sgd.h"

#endif  // EMBER_OPTIM_OPTIM_H_
