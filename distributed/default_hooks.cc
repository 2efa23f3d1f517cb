#include "distributed/default_hooks.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "distributed/init.h"

namespace ember::distributed::comm_hooks {
namespace {

ProcessGroup& group_to_use(ProcessGroup* process_group) {
  return process_group != nullptr ? *process_group : get_default_group().pg();
}

// Divides `tensor` by the group's size and all-reduces it in place.
std::shared_ptr<Work> average(ProcessGroup& pg, Tensor tensor) {
  NoGradGuard no_grad;
  tensor.div_(pg.size());
  std::vector<Tensor> t{tensor};
  return pg.allreduce(t, AllreduceOptions{ReduceOp::SUM});
}

BucketFuture compress_hook(ProcessGroup* process_group, GradBucket& bucket, ScalarType dtype) {
  ProcessGroup& pg = group_to_use(process_group);
  Tensor compressed = bucket.buffer().to(dtype);
  Tensor buffer = bucket.buffer();
  return BucketFuture(average(pg, compressed), [buffer, compressed]() mutable {
    NoGradGuard no_grad;
    buffer.copy_(compressed);
    return buffer;
  });
}

}  // namespace

BucketFuture allreduce_hook(ProcessGroup* process_group, GradBucket& bucket) {
  Tensor buffer = bucket.buffer();
  return BucketFuture(average(group_to_use(process_group), buffer), [buffer] { return buffer; });
}

BucketFuture fp16_compress_hook(ProcessGroup* process_group, GradBucket& bucket) {
  return compress_hook(process_group, bucket, kHalf);
}

BucketFuture bf16_compress_hook(ProcessGroup* process_group, GradBucket& bucket) {
  return compress_hook(process_group, bucket, kBFloat16);
}

}  // namespace ember::distributed::comm_hooks
