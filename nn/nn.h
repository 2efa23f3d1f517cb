#ifndef EMBER_NN_NN_H_
#define EMBER_NN_NN_H_

// //nn for users: Module and EMBER_MODULE, the layers, containers, losses,
// nn::init and nn::functional. The project's own files include what they
// use instead.

#include "nn/activation.h"
#include "nn/adaptive.h"
#include "nn/attention.h"
#include "nn/data_parallel.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/distance.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/functional/functional.h"
#include "nn/init.h"
#include "nn/instancenorm.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "nn/padding.h"
#include "nn/pixelshuffle.h"
#include "nn/pooling.h"
#include "nn/upsampling.h"
#include "nn/rnn.h"
#include "nn/rnn_cell.h"
#include "nn/rnn_functional.h"
#include "nn/transformer.h"
#include "nn/utils/parametrize.h"
#include "nn/utils/prune.h"
#include "nn/utils/rnn.h"
#include "nn/utils/weight_norm.h"

#endif  // EMBER_NN_NN_H_
