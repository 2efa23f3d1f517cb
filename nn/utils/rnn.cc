#include "nn/utils/rnn.h"

#include <algorithm>

#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/selection.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {
namespace utils {
namespace rnn {
namespace {

std::vector<int64_t> to_vector(const Tensor& t) {
  Tensor c = t.to(Device(kCPU), kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor long_tensor(const std::vector<int64_t>& v) {
  return tensor(v, dtype(kLong)).reshape({static_cast<int64_t>(v.size())});
}

// `rows` rows of padding_value shaped like like's rows (like: [n, *]).
Tensor padding_rows(const Tensor& like, int64_t rows, double padding_value) {
  std::vector<int64_t> sizes(like.sizes().begin(), like.sizes().end());
  sizes[0] = rows;
  return full(sizes, padding_value, like.options());
}

// t [n, *] with padding rows up to `rows` rows.
Tensor pad_to(const Tensor& t, int64_t rows, double padding_value) {
  if (t.size(0) == rows) return t;
  return cat({t, padding_rows(t, rows - t.size(0), padding_value)}, 0);
}

Tensor invert_permutation(const Tensor& perm) {
  return zeros_like(perm).scatter(0, perm, arange(perm.numel(), perm.options()));
}

}  // namespace

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (sorted_indices_.defined() && !unsorted_indices_.defined()) {
    unsorted_indices_ = invert_permutation(sorted_indices_);
  }
}

PackedSequence PackedSequence::to(Device device) const {
  auto move = [&](const Tensor& t) { return t.defined() ? t.to(device) : t; };
  return PackedSequence(data_.to(device), batch_sizes_, move(sorted_indices_),
                        move(unsorted_indices_));
}

PackedSequence PackedSequence::to(ScalarType dtype) const {
  return PackedSequence(data_.to(dtype), batch_sizes_, sorted_indices_, unsorted_indices_);
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first,
                                    bool enforce_sorted) {
  lengths = lengths.to(Device(kCPU), kLong);
  EMBER_CHECK(lengths.dim() == 1, "'lengths' argument should be a 1D CPU int64 tensor, but got ",
              lengths.dim(), "D cpu Long tensor");
  Tensor sorted_indices;
  if (!enforce_sorted) {
    // Stable, so that equal lengths keep their order.
    std::tie(lengths, sorted_indices) = lengths.sort(/*stable=*/true, 0, /*descending=*/true);
    sorted_indices = sorted_indices.to(input.device());
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }
  if (batch_first) input = input.transpose(0, 1);
  EMBER_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  const int64_t batch = input.size(1);
  const std::vector<int64_t> len = to_vector(lengths);
  EMBER_CHECK(static_cast<int64_t>(len.size()) == batch,
              "Expected `len(lengths)` to be equal to batch_size, but got ", len.size(),
              " (batch_size=", batch, ")");
  EMBER_CHECK(len.back() > 0,
              "Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0");
  for (size_t b = 1; b < len.size(); ++b) {
    EMBER_CHECK(len[b] <= len[b - 1],
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.");
  }
  // PyTorch reads past the end of the input here.
  EMBER_CHECK(len[0] <= input.size(0), "pack_padded_sequence: a length of ", len[0],
              " exceeds the padded sequence length ", input.size(0));
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> steps;
  for (int64_t t = 0, b = batch; t < len[0]; ++t) {
    while (len[b - 1] <= t) --b;  // the sequences that end before step t
    batch_sizes.push_back(b);
    steps.push_back(input.select(0, t).narrow(0, 0, b));
  }
  return PackedSequence(cat(steps, 0), long_tensor(batch_sizes), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = to_vector(sequence.batch_sizes());
  const int64_t steps = static_cast<int64_t>(batch_sizes.size());
  int64_t max_len = steps;
  if (total_length) {
    EMBER_CHECK_VALUE(*total_length >= steps,
                      "Expected total_length to be at least the length of the longest sequence "
                      "in input, but got total_length=",
                      *total_length, " and max sequence length being ", steps);
    max_len = *total_length;
  }
  const Tensor& data = sequence.data();
  const int64_t batch = batch_sizes.empty() ? 0 : batch_sizes[0];
  std::vector<Tensor> padded;
  std::vector<int64_t> lengths(batch, 0);
  for (int64_t t = 0, offset = 0; t < max_len; ++t) {
    const int64_t b = t < steps ? batch_sizes[t] : 0;
    padded.push_back(pad_to(data.narrow(0, offset, b), batch, padding_value));
    for (int64_t i = 0; i < b; ++i) ++lengths[i];
    offset += b;
  }
  Tensor out = stack(padded, 0);
  Tensor out_lengths = long_tensor(lengths);
  if (batch_first) out = out.transpose(0, 1);
  if (const Tensor& unsorted = sequence.unsorted_indices(); unsorted.defined()) {
    out = out.index_select(batch_first ? 0 : 1, unsorted);
    out_lengths = out_lengths.index_select(0, unsorted.to(Device(kCPU)));
  }
  return {out, out_lengths};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), "received an empty list of sequences");
  const IntArrayRef first = sequences[0].sizes();
  int64_t max_len = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK(s.dim() == sequences[0].dim(), "pad_sequence: every sequence must have ",
                sequences[0].dim(), " dimensions, but one has ", s.dim());
    for (int64_t d = 1; d < s.dim(); ++d) {
      // PyTorch copies each sequence into the output: copy_'s message.
      EMBER_CHECK(s.size(d) == first[d], "The size of tensor a (", first[d],
                  ") must match the size of tensor b (", s.size(d), ") at non-singleton dimension ",
                  d);
    }
    max_len = std::max(max_len, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) padded.push_back(pad_to(s, max_len, padding_value));
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), long_tensor(lengths), false, enforce_sorted);
}

}  // namespace rnn
}  // namespace utils
}  // namespace nn
}  // namespace ember
