#ifndef EMBER_TENSOR_ALL_H_
#define EMBER_TENSOR_ALL_H_

// Everything //tensor offers. For users (through ember.h) and tests; the
// project's own files include what they use.

#include "tensor/composite_ops.h"
#include "tensor/config.h"
#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/device.h"
#include "tensor/distributions.h"
#include "tensor/dtype.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/grid_sampler.h"
#include "tensor/indexing.h"
#include "tensor/linalg.h"
#include "tensor/linalg_more.h"
#include "tensor/linalg_spectral.h"
#include "tensor/math.h"
#include "tensor/more_ops.h"
#include "tensor/nn_ops.h"
#include "tensor/parallel.h"
#include "tensor/precision.h"
#include "tensor/print.h"
#include "tensor/quantize.h"
#include "tensor/native_dropout.h"
#include "tensor/random.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"
#include "tensor/shape.h"
#include "tensor/shape_ops.h"
#include "tensor/shape_more.h"
#include "tensor/special.h"
#include "tensor/spectral_more.h"
#include "tensor/view_copy.h"
#include "tensor/reduce_ops.h"
#include "tensor/sort_ops.h"
#include "tensor/tensor.h"
#include "tensor/linalg_factor.h"

#endif  // EMBER_TENSOR_ALL_H_
