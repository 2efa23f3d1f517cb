#ifndef EMBER_BENCHMARKS_LIBTORCH_H_
#define EMBER_BENCHMARKS_LIBTORCH_H_

// <torch/torch.h> for the *_vs_libtorch benchmarks, which include ember's
// headers in the same file. Include it before them: c10 defines
// LEGACY_CONTIGUOUS_MEMORY_FORMAT as a macro, which would rewrite ember's
// constant of that name (tensor/memory_format.h), so the macro goes.

#include <torch/torch.h>

#undef LEGACY_CONTIGUOUS_MEMORY_FORMAT

#endif  // EMBER_BENCHMARKS_LIBTORCH_H_
