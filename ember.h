#ifndef EMBER_EMBER_H_
#define EMBER_EMBER_H_

// The umbrella header for programs that use ember: `#include "ember.h"` with
// a dependency on @ember//:ember. The project's own files include what they
// use instead.

#include "autograd/autograd.h"
#include "data/collate.h"
#include "data/data_loader.h"
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/datasets.h"
#include "data/mnist.h"
#include "data/sampler.h"
#include "data/samplers.h"
#include "data/transforms.h"
#include "distributed/collectives.h"
#include "distributed/ddp.h"
#include "distributed/file_store.h"
#include "distributed/init.h"
#include "distributed/prefix_store.h"
#include "distributed/process_group.h"
#include "distributed/process_group_gloo.h"
#include "distributed/process_group_mpi.h"
#include "distributed/process_group_nccl.h"
#include "distributed/spawn.h"
#include "distributed/tcp_store.h"
#include "models/models.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "profiler/profiler.h"
#include "serialize/checkpoint.h"
#include "serialize/module.h"
#include "serialize/pt.h"
#include "serialize/safetensors.h"
#include "tensor/all.h"
#include "tensor/autocast.h"
#include "tensor/libtorch_compat.h"

#endif  // EMBER_EMBER_H_
