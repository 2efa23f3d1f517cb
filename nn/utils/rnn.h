#ifndef EMBER_NN_UTILS_RNN_H_
#define EMBER_NN_UTILS_RNN_H_

// torch.nn.utils.rnn (PyTorch 1.13) in libtorch's spelling: sequences of
// different lengths packed time step by time step, so that RNN, LSTM and
// GRU (forward_with_packed_input) stop each sequence at its own end.
//
//   namespace rnn = ember::nn::utils::rnn;
//   auto packed = rnn::pack_padded_sequence(x, lengths, /*batch_first=*/true,
//                                           /*enforce_sorted=*/false);
//   auto [out, h_n] = gru->forward_with_packed_input(packed);
//   auto [padded, out_lengths] = rnn::pad_packed_sequence(out, true);
//
// Every function is composed of differentiable ops (narrow, cat, stack,
// index_select), so gradients flow through packing and unpacking.

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace utils {
namespace rnn {

// data [sum(batch_sizes), *]: time step t's batch_sizes[t] rows after
// step t - 1's, the sequences in decreasing length order; batch_sizes: int64
// on the CPU; sorted_indices: the input's batch index of each sorted
// sequence and unsorted_indices its inverse (both undefined when the input
// was already sorted).
class PackedSequence {
 public:
  PackedSequence() = default;
  // unsorted_indices undefined: the inverse of sorted_indices.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  bool is_cuda() const { return data_.is_cuda(); }
  // data and the indices on `device`; batch_sizes stays on the CPU.
  PackedSequence to(Device device) const;
  // data cast to `dtype` (libtorch's to(TensorOptions), split so that a
  // dtype alone never moves anything to the CPU).
  PackedSequence to(ScalarType dtype) const;

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

// input [T, B, *] ([B, T, *] with batch_first) and lengths [B] (any
// integer tensor, taken as int64 on the CPU). enforce_sorted: lengths
// must be decreasing; otherwise the batch is sorted and the order kept in
// sorted_indices.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

// The inverse: (padded [total_length or T, B, *] filled with
// padding_value, lengths int64 [B]), in the original batch order.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               bool batch_first = false, double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// Sequences [L_i, *] padded to [max L, B, *] ([B, max L, *] with batch_first).
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false,
                    double padding_value = 0.0);

// pack_padded_sequence(pad_sequence(sequences), their lengths).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace rnn
}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UTILS_RNN_H_
