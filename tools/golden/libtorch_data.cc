// Golden values for //data's libtorch-style API (data/libtorch_data_test.cc),
// from Debian's libtorch 1.13 itself. Build and run with
//   tools/golden/libtorch_data.sh > data/testdata/libtorch_data_golden.inc
// Each line is one C++ initializer: {"name", {values...}}.

#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

namespace {

void emit(const std::string& name, const std::vector<int64_t>& values) {
  std::cout << "{\"" << name << "\", {";
  for (size_t i = 0; i < values.size(); ++i) std::cout << (i ? ", " : "") << values[i];
  std::cout << "}},\n";
}

// Batches of a sampler, flattened, with -1 after each batch.
template <typename Sampler>
std::vector<int64_t> drain(Sampler& sampler, size_t batch_size) {
  std::vector<int64_t> out;
  while (auto batch = sampler.next(batch_size)) {
    for (size_t i : *batch) out.push_back(static_cast<int64_t>(i));
    out.push_back(-1);
  }
  return out;
}

// Every batch of a loader over TensorDataset(arange(n)) (data = index).
template <typename Loader>
std::vector<int64_t> epoch(Loader& loader) {
  std::vector<int64_t> out;
  for (auto& batch : loader) {
    auto data = batch.data.to(torch::kLong);
    for (int64_t i = 0; i < data.numel(); ++i) out.push_back(data[i].template item<int64_t>());
    out.push_back(-1);
  }
  return out;
}

}  // namespace

int main() {
  // make_data_loader's default RandomSampler under manual_seed, two epochs.
  {
    torch::manual_seed(1);
    auto ds = torch::data::datasets::TensorDataset(torch::arange(10))
                  .map(torch::data::transforms::Stack<torch::data::TensorExample>());
    auto loader = torch::data::make_data_loader(std::move(ds), 3);
    emit("random_epoch0", epoch(*loader));
    emit("random_epoch1", epoch(*loader));
    // What the default generator gives next.
    emit("random_after", {torch::randint(1000, {1}).item<int64_t>()});
  }
  {
    auto ds = torch::data::datasets::TensorDataset(torch::arange(10))
                  .map(torch::data::transforms::Stack<torch::data::TensorExample>());
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        std::move(ds), torch::data::DataLoaderOptions(4).drop_last(true));
    emit("sequential_drop_last", epoch(*loader));
  }
  for (size_t rank = 0; rank < 3; ++rank) {
    for (bool dup : {true, false}) {
      torch::data::samplers::DistributedRandomSampler s(10, 3, rank, dup);
      const std::string tag = std::to_string(rank) + (dup ? "_dup" : "_nodup");
      emit("distributed_random_epoch0_rank" + tag, drain(s, 2));
      s.set_epoch(1);
      s.reset();
      emit("distributed_random_epoch1_rank" + tag, drain(s, 2));
      torch::data::samplers::DistributedSequentialSampler q(10, 3, rank, dup);
      emit("distributed_sequential_rank" + tag, drain(q, 3));
    }
  }
  {
    torch::data::samplers::StreamSampler s(10);
    std::vector<int64_t> sizes;
    while (auto b = s.next(4)) sizes.push_back(static_cast<int64_t>(b->size()));
    emit("stream_sizes", sizes);
  }
  {
    // Normalize<> then Stack<> on 2 x 1 x 2 x 2 examples: the floats' bits.
    std::vector<torch::data::Example<>> examples;
    for (int i = 0; i < 2; ++i)
      examples.push_back({torch::arange(4, torch::kFloat).view({1, 2, 2}) * (i + 1) / 7.0,
                          torch::tensor(i, torch::kLong)});
    torch::data::transforms::Normalize<> normalize(0.1307, 0.3081);
    auto normalized = normalize.apply_batch(examples);
    auto stacked = torch::data::transforms::Stack<>().apply_batch(normalized);
    std::vector<int64_t> bits;
    auto flat = stacked.data.contiguous().view(-1);
    for (int64_t i = 0; i < flat.numel(); ++i) {
      float f = flat[i].item<float>();
      int32_t b;
      std::memcpy(&b, &f, 4);
      bits.push_back(b);
    }
    emit("normalize_stack_bits", bits);
    emit("normalize_stack_shape", stacked.data.sizes().vec());
    emit("normalize_stack_targets", {stacked.target[0].item<int64_t>(), stacked.target[1].item<int64_t>()});
  }
  return 0;
}
