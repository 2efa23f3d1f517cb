#ifndef EMBER_NN_FUNCTIONAL_FUNCTIONAL_H_
#define EMBER_NN_FUNCTIONAL_FUNCTIONAL_H_

// ember::nn::functional, libtorch's torch::nn::functional:
//   namespace F = ember::nn::functional;
//   F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));

#include "nn/functional/activation.h"
#include "nn/functional/aten.h"
#include "nn/functional/attention.h"
#include "nn/functional/conv.h"
#include "nn/functional/distance.h"
#include "nn/functional/dropout.h"
#include "nn/functional/embedding.h"
#include "nn/functional/fold.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/options.h"
#include "nn/functional/padding.h"
#include "nn/functional/pixelshuffle.h"
#include "nn/functional/pooling.h"
#include "nn/functional/upsampling.h"
#include "nn/functional/vision.h"

#endif  // EMBER_NN_FUNCTIONAL_FUNCTIONAL_H_
