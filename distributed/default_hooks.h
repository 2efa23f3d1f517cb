#ifndef EMBER_DISTRIBUTED_DEFAULT_HOOKS_H_
#define EMBER_DISTRIBUTED_DEFAULT_HOOKS_H_

// DDP's built-in communication hooks (PyTorch's
// torch.distributed.algorithms.ddp_comm_hooks.default_hooks):
//
//   ddp->register_comm_hook(nullptr, dist::comm_hooks::fp16_compress_hook);
//
// `process_group` is the hook's state, as in PyTorch: the group to reduce
// over, nullptr for the default group.

#include "distributed/process_group.h"
#include "distributed/reducer.h"

namespace ember::distributed::comm_hooks {

// Averages the bucket with one all-reduce: what DDP does without a hook.
BucketFuture allreduce_hook(ProcessGroup* process_group, GradBucket& bucket);
// Casts the bucket to float16, divides by the world size, all-reduces and
// casts back: half the bytes on the wire, float16's precision.
BucketFuture fp16_compress_hook(ProcessGroup* process_group, GradBucket& bucket);
// The same with bfloat16 (float32's range, 8 bits of mantissa).
BucketFuture bf16_compress_hook(ProcessGroup* process_group, GradBucket& bucket);

}  // namespace ember::distributed::comm_hooks

#endif  // EMBER_DISTRIBUTED_DEFAULT_HOOKS_H_
