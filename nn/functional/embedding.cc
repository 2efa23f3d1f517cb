#include "nn/functional/embedding.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <unordered_map>
#include <vector>

#include "tensor/autograd_hook.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_ops.h"
#include "tensor/print.h"
#include "tensor/reduce.h"
#include "tensor/selection.h"

namespace ember {

EmbeddingBagMode::EmbeddingBagMode(Reduction r) : kind_(r == Reduction::kSum ? kSum : kMean) {
  EMBER_CHECK_VALUE(r != Reduction::kNone, "mode has to be one of sum, mean or max");
}

const char* EmbeddingBagMode::name() const {
  switch (kind_) {
    case kSum:
      return "sum";
    case kMean:
      return "mean";
    default:
      return "max";
  }
}

namespace nn {
namespace functional {
namespace {

void check_index_dtype(const Tensor& t) {
  // PyTorch names 'indices' even for bad offsets: it checks them after
  // promoting both to one type.
  EMBER_CHECK(t.dtype() == kLong || t.dtype() == kInt,
              "Expected tensor for argument #1 'indices' to have one of the following scalar "
              "types: Long, Int; but got torch.",
              t.is_cuda() ? "cuda." : "", scalar_type_name(t.dtype()),
              "Tensor instead (while checking arguments for embedding_bag)");
}

std::vector<int64_t> to_vector(const Tensor& t) {
  Tensor c = t.to(Device(kCPU), kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor long_tensor(const std::vector<int64_t>& v, Device device) {
  return tensor(v, TensorOptions().dtype(kLong))
      .reshape({static_cast<int64_t>(v.size())})
      .to(device);
}

// What the bags hold once padding_idx is left out: for each kept index,
// its position in the input and its bag; and each bag's size.
struct Bags {
  std::vector<int64_t> pos, bag, size;
};

Bags make_bags(const std::vector<int64_t>& idx, const std::vector<int64_t>& offsets,
               bool include_last_offset, int64_t num_weights, int64_t padding_idx) {
  const int64_t n = static_cast<int64_t>(idx.size());
  EMBER_CHECK(!include_last_offset || !offsets.empty(),
              "include_last_offset: number of offset should be at least 1");
  const int64_t num_bags = static_cast<int64_t>(offsets.size()) - (include_last_offset ? 1 : 0);
  if (!offsets.empty()) {
    EMBER_CHECK(offsets[0] == 0,
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                "from position 0. However, got ",
                offsets[0]);
    EMBER_CHECK(offsets.back() <= n, "offsets[-1] can not be greater than input's length ", n,
                " but got offsets[-1] of ", offsets.back());
  }
  Bags b;
  b.size.assign(num_bags, 0);
  for (int64_t k = 0; k < num_bags; ++k) {
    const int64_t end = k + 1 < static_cast<int64_t>(offsets.size()) ? offsets[k + 1] : n;
    // PyTorch reads decreasing offsets without a clear error; ember refuses them.
    EMBER_CHECK(end >= offsets[k], "embedding_bag: offsets must be non-decreasing, but offsets[",
                k + 1, "] = ", end, " is less than offsets[", k, "] = ", offsets[k]);
    for (int64_t p = offsets[k]; p < end; ++p) {
      EMBER_CHECK(idx[p] >= 0 && idx[p] < num_weights,
                  "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be ",
                  idx[p]);
      if (idx[p] == padding_idx) continue;
      b.pos.push_back(p);
      b.bag.push_back(k);
      ++b.size[k];
    }
  }
  return b;
}

// PyTorch's embedding_renorm_: the rows `idx` names scaled to a norm of at
// most max_norm, in place and outside autograd.
void renorm_rows(const Tensor& weight, const std::vector<int64_t>& idx, double max_norm,
                 double norm_type) {
  std::vector<int64_t> unique = idx;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  Tensor w = weight.detach();
  Tensor rows_idx = long_tensor(unique, w.device());
  Tensor rows = w.index_select(0, rows_idx);
  Tensor norms = rows.norm(norm_type, {1}, /*keepdim=*/true);
  Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), ones_like(norms));
  w.index_copy_(0, rows_idx, rows * scale);
}

// The max over each bag: its rows laid out [num_bags, longest bag, D],
// empty slots -inf, and empty bags 0 (as PyTorch); and, for each bag and
// feature, the weight row the max came from (-1 for an empty bag: 1.13's
// max_indices, which its backward scatters the gradient to).
std::pair<Tensor, Tensor> bag_max(const Tensor& rows, const std::vector<int64_t>& kept,
                                  const Bags& b) {
  const int64_t num_bags = static_cast<int64_t>(b.size.size());
  const int64_t longest = b.size.empty() ? 0 : *std::max_element(b.size.begin(), b.size.end());
  const int64_t d = rows.size(1);
  std::vector<int64_t> slot(num_bags * longest, 0), word(num_bags * longest, 0),
      filled(num_bags, 0);
  std::vector<uint8_t> empty_slot(num_bags * longest, 1);
  for (size_t i = 0; i < b.bag.size(); ++i) {
    const int64_t s = b.bag[i] * longest + filled[b.bag[i]]++;
    slot[s] = static_cast<int64_t>(i);
    word[s] = kept[i];
    empty_slot[s] = 0;
  }
  const Device dev = rows.device();
  Tensor mask = long_tensor(std::vector<int64_t>(empty_slot.begin(), empty_slot.end()), dev)
                    .to(kBool)
                    .reshape({num_bags, longest, 1});
  Tensor laid = rows.index_select(0, long_tensor(slot, dev)).reshape({num_bags, longest, d});
  auto [m, arg] = laid.masked_fill(mask, -std::numeric_limits<double>::infinity()).max(1);
  Tensor empty_bag = long_tensor(b.size, dev).eq(0).unsqueeze(1);
  Tensor max_word =
      long_tensor(word, dev).reshape({num_bags, longest}).gather(1, arg).masked_fill(empty_bag, -1);
  return {m.masked_fill(empty_bag, 0), max_word};
}

}  // namespace

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  Tensor psw = o.per_sample_weights();
  EMBER_CHECK_VALUE(!psw.defined() || input.sizes() == psw.sizes(),
                    "embedding_bag: If per_sample_weights (", size_repr(psw.sizes()),
                    ") is not None, then it must have the same shape as the input (",
                    size_repr(input.sizes()), ")");
  Tensor indices = input, offsets = o.offsets();
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(),
                      "if input is 2D, then offsets has to be None, as input is treated is a "
                      "mini-batch of fixed length sequences. However, found offsets of type "
                      "<class 'torch.Tensor'>");
    offsets = arange(0, input.numel(), std::max<int64_t>(input.size(1), 1),
                     TensorOptions().dtype(input.dtype()).device(input.device()));
    indices = input.reshape({-1});
    if (psw.defined()) psw = psw.reshape({-1});
  } else if (input.dim() == 1) {
    EMBER_CHECK_VALUE(offsets.defined(), "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK_VALUE(offsets.dim() == 1, "offsets has to be a 1D Tensor");
  } else {
    EMBER_CHECK_VALUE(false, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                      input.dim());
  }
  const EmbeddingBagMode mode = o.mode();
  if (mode == kMax) {
    EMBER_CHECK_VALUE(!o.scale_grad_by_freq(),
                      "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_VALUE(!o.sparse(), "max mode does not support sparse weights");
  }
  EMBER_CHECK(!o.sparse(),
              "embedding_bag: sparse=true is not supported: ember has no sparse gradients");
  check_index_dtype(indices);
  check_index_dtype(offsets);
  const int64_t num_weights = weight.size(0), dim = weight.size(1);
  const std::vector<int64_t> idx = to_vector(indices);
  if (o.max_norm()) renorm_rows(weight, idx, *o.max_norm(), o.norm_type());
  EMBER_CHECK(!psw.defined() || mode == EmbeddingBagMode::kSum,
              "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
              "supported for mode='sum' (got mode='",
              mode.name(), "'). Please open a feature request on GitHub.");
  int64_t padding_idx = -1;
  if (o.padding_idx()) {
    padding_idx = *o.padding_idx();
    EMBER_CHECK(padding_idx >= -num_weights && padding_idx < num_weights,
                "padding_idx must be within the number of embeddings, ", -num_weights, " through ",
                num_weights - 1, ", but got ", padding_idx);
    if (padding_idx < 0) padding_idx += num_weights;
  }
  const Bags b =
      make_bags(idx, to_vector(offsets), o.include_last_offset(), num_weights, padding_idx);
  const Device dev = weight.device();
  std::vector<int64_t> kept(b.pos.size());
  for (size_t i = 0; i < kept.size(); ++i) kept[i] = idx[b.pos[i]];
  const int64_t num_bags = static_cast<int64_t>(b.size.size());
  // One node, as 1.13's _embedding_bag (EmbeddingBagBackward0), whose
  // gradients autograd/derivatives/nn_composite.cc computes from the kept
  // indices, their bags and positions, a per-row factor (mean's 1 / bag
  // size, scale_grad_by_freq's) and, in max mode, the rows of the maxima.
  ::ember::detail::OpScope scope(weight, psw);
  const Tensor kept_idx = long_tensor(kept, dev);
  const Tensor kept_bag = long_tensor(b.bag, dev);
  Tensor rows = weight.index_select(0, kept_idx);
  Tensor out, max_word;
  if (mode == kMax) {
    if (!b.pos.empty()) {
      std::tie(out, max_word) = bag_max(rows, kept, b);
    } else {
      out = zeros({num_bags, dim}, weight.options());
      max_word = full({num_bags, dim}, -1, TensorOptions(kLong).device(dev));
    }
  } else {
    if (psw.defined()) {
      rows = rows * psw.index_select(0, long_tensor(b.pos, psw.device())).unsqueeze(1);
    }
    out = zeros({num_bags, dim}, weight.options()).index_add(0, kept_bag, rows);
    if (mode == EmbeddingBagMode::kMean) {
      std::vector<int64_t> count = b.size;
      for (int64_t& c : count) c = std::max<int64_t>(c, 1);  // an empty bag stays 0
      out = out / long_tensor(count, dev).to(weight.dtype()).unsqueeze(1);
    }
  }
  if (scope.active()) {
    // The weight's gradient per kept row: 1 / its bag's size (mean), and
    // 1 / its count over the input (scale_grad_by_freq, as documented:
    // PyTorch 1.13's CPU backward divides the k-th distinct index, in
    // sorted order, by the count of the k-th sorted input instead
    // (counts[indices_data[i]] for counts[indices_data[start]]); both
    // agree when every index occurs equally often).
    Tensor coef;
    if (mode == EmbeddingBagMode::kMean || o.scale_grad_by_freq()) {
      std::unordered_map<int64_t, int64_t> count;
      if (o.scale_grad_by_freq()) {
        for (int64_t i : idx) ++count[i];
      }
      std::vector<double> f(kept.size(), 1.0);
      for (size_t i = 0; i < kept.size(); ++i) {
        if (mode == EmbeddingBagMode::kMean) f[i] /= static_cast<double>(b.size[b.bag[i]]);
        if (o.scale_grad_by_freq()) f[i] /= static_cast<double>(count[kept[i]]);
      }
      coef = tensor(f, TensorOptions().dtype(kDouble))
                 .reshape({static_cast<int64_t>(f.size())})
                 .to(dev, weight.dtype());
    }
    scope.record("_embedding_bag",
                 {weight, psw, kept_idx, kept_bag, long_tensor(b.pos, dev), coef, max_word,
                  psw.defined() && psw.requires_grad() ? weight : Tensor()},
                 {out}, {Scalar(static_cast<int64_t>(mode.kind()))});
  }
  return out;
}

// ATen's one_hot: zeros with scatter_ of ones at the indices (on the
// CPU the index range is checked first, as 1.13's; on CUDA the scatter's
// device-side check reports it).
Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  EMBER_CHECK(tensor.dtype() == kLong, "one_hot is only applicable to index tensor.");
  DimVector shape(tensor.sizes().begin(), tensor.sizes().end());
  if (tensor.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, tensor.options());
  }
  if (!tensor.is_cuda()) {
    EMBER_CHECK(tensor.min().item<int64_t>() >= 0, "Class values must be non-negative.");
  }
  if (num_classes == -1) {
    num_classes = tensor.max().item<int64_t>() + 1;
  } else if (!tensor.is_cuda()) {
    EMBER_CHECK(num_classes > tensor.max().item<int64_t>(),
                "Class values must be smaller than num_classes.");
  } else {
    EMBER_CHECK(num_classes >= 1, "num_classes should be positive");
  }
  shape.push_back(num_classes);
  Tensor ret = zeros(shape, tensor.options());
  ret.scatter_(-1, tensor.unsqueeze(-1), 1);
  return ret;
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  int64_t padding_idx = -1;
  if (o.padding_idx()) {
    padding_idx = *o.padding_idx();
    const int64_t n = weight.dim() > 0 ? weight.size(0) : 0;
    EMBER_CHECK(padding_idx < n && padding_idx >= -n, "Padding_idx must be within num_embeddings");
    if (padding_idx < 0) padding_idx += n;
  }
  return ember::embedding(weight, input, padding_idx);
}

}  // namespace functional
}  // namespace nn
}  // namespace ember
