#include "data/collate.h"

#include <cstring>

#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/shape.h"

namespace ember {
namespace data {

Tensor DefaultCollate<Tensor>::collate(std::vector<Tensor> samples) {
  EMBER_CHECK(!samples.empty(), "default_collate: cannot collate an empty batch");
  return stack(samples, 0);
}

Example<> DefaultCollate<Example<>>::collate(std::vector<Example<>> samples) {
  EMBER_CHECK(!samples.empty(), "default_collate: cannot collate an empty batch");
  std::vector<Tensor> data, target;
  data.reserve(samples.size());
  target.reserve(samples.size());
  for (Example<>& e : samples) {
    data.push_back(std::move(e.data));
    if (e.target.defined()) target.push_back(std::move(e.target));
  }
  EMBER_CHECK(target.empty() || target.size() == samples.size(),
              "default_collate: some samples have a target and some do not");
  Example<> out;
  out.data = stack(data, 0);
  if (!target.empty()) out.target = stack(target, 0);
  return out;
}

bool is_pinned(const Tensor& t) { return t.defined() && t.is_pinned(); }

Tensor pin_memory(const Tensor& t) { return t.pin_memory(); }

void pin_batch(Tensor& batch) {
  if (batch.defined()) batch = pin_memory(batch);
}

void pin_batch(Example<>& batch) {
  pin_batch(batch.data);
  pin_batch(batch.target);
}

}  // namespace data
}  // namespace ember
