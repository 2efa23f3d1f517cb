#ifndef EMBER_MODELS_MODELS_H_
#define EMBER_MODELS_MODELS_H_

// //models: reference architectures whose state dicts are PyTorch's
// (torchvision's ResNets, Hugging Face's GPT-2). Dependency: //models.

#include "models/gpt2.h"
#include "models/resnet.h"

#endif  // EMBER_MODELS_MODELS_H_
