#include "nn/adaptive.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/nn_util.h"
#include "tensor/shape.h"

namespace ember {
namespace nn {

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(
    AdaptiveLogSoftmaxWithLossOptions options)
    : options(std::move(options)) {
  const std::vector<int64_t>& c = this->options.cutoffs();
  const int64_t n_classes = this->options.n_classes();
  bool valid = !c.empty() && c.front() > 0 && c.back() <= n_classes - 1;
  for (size_t i = 1; i < c.size(); ++i) valid = valid && c[i - 1] < c[i];
  EMBER_CHECK_VALUE(valid,
                    "cutoffs should be a sequence of unique, positive integers sorted in an "
                    "increasing order, where each value is between 1 and n_classes-1");
  cutoffs = c;
  cutoffs.push_back(n_classes);
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  const int64_t in = this->options.in_features();
  head =
      register_module("head", Linear(LinearOptions(in, head_size).bias(this->options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    // Python's in_features // div_value ** (i + 1), a float floor division.
    const auto hsz = static_cast<int64_t>(
        std::floor(static_cast<double>(in) / std::pow(this->options.div_value(), i + 1)));
    const int64_t osz = cutoffs[i + 1] - cutoffs[i];
    // Two statements: PyTorch draws the first projection first (function
    // arguments have no evaluation order).
    Linear down(LinearOptions(in, hsz).bias(false));
    Linear up(LinearOptions(hsz, osz).bias(false));
    tail->push_back(Sequential(down, up));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (int64_t i = 0; i < n_clusters; ++i) {
    auto& projection = tail->at<SequentialImpl>(i);
    for (int64_t j = 0; j < 2; ++j) projection.at<LinearImpl>(j).reset_parameters();
  }
}

Tensor AdaptiveLogSoftmaxWithLossImpl::cluster(int64_t i, const Tensor& input) {
  return tail->at<SequentialImpl>(i).forward(input);
}

// PyTorch 1.13's AdaptiveLogSoftmaxWithLoss.forward: each row's cluster
// log-probability (0 for the shortlist), plus the head's log-probability
// of the row's class or cluster.
ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  const int64_t targ_dim = target_.dim();
  if (targ_dim == 1) {
    EMBER_CHECK(input_.dim() > 0 && input_.size(0) == target_.size(0),
                "Input and target should have the same size in the batch dimension.");
    EMBER_CHECK(input_.dim() == 2,
                "1D target tensor expects 2D input tensors, but found inputs with size ",
                ::ember::detail::bracketed(input_.sizes()));
  } else if (targ_dim == 0) {
    EMBER_CHECK(input_.dim() == 1,
                "0D target tensor expects 1D input tensors, but found inputs with size ",
                ::ember::detail::bracketed(input_.sizes()));
  } else {
    EMBER_CHECK(false, "0D or 1D target tensor expected, multi-target not supported");
  }
  const bool is_batched = targ_dim > 0;
  const Tensor input = is_batched ? input_ : input_.unsqueeze(0);
  const Tensor target_cpu =
      (is_batched ? target_ : target_.unsqueeze(0)).to(kCPU).to(kLong).contiguous();
  const int64_t batch_size = target_cpu.size(0);
  const int64_t* target = target_cpu.data_ptr<int64_t>();

  Tensor output = zeros({batch_size}, input.options());
  std::vector<int64_t> gather_inds(batch_size, 0);
  int64_t used_rows = 0;
  for (int64_t i = 0; i < n_clusters + 1; ++i) {
    const int64_t low = i == 0 ? 0 : cutoffs[i - 1], high = cutoffs[i];
    std::vector<int64_t> rows, relative;
    for (int64_t r = 0; r < batch_size; ++r) {
      if (target[r] >= low && target[r] < high) {
        rows.push_back(r);
        relative.push_back(target[r] - low);
        gather_inds[r] = i == 0 ? target[r] : shortlist_size + i - 1;
      }
    }
    if (rows.empty()) continue;
    if (i > 0) {
      const Tensor index = tensor(rows, kLong).to(input.device());
      const Tensor cluster_logprob = cluster(i - 1, input.index_select(0, index)).log_softmax(1);
      const Tensor local =
          cluster_logprob.gather(1, tensor(relative, kLong).to(input.device()).unsqueeze(1));
      output = output.index_copy(0, index, local.squeeze(1));
    }
    used_rows += static_cast<int64_t>(rows.size());
  }
  if (used_rows != batch_size) {
    const auto [lo, hi] = std::minmax_element(target, target + batch_size);
    EMBER_CHECK(false, "Target values should be in [0, ", options.n_classes() - 1,
                "], but values in range [", *lo, ", ", *hi, "] were found. ");
  }
  const Tensor head_logprob = head(input).log_softmax(1);
  output =
      output +
      head_logprob.gather(1, tensor(gather_inds, kLong).to(input.device()).unsqueeze(1)).squeeze();
  Tensor loss = (-output).mean();
  return ASMoutput(is_batched ? output : output.squeeze(0), loss);
}

// Python's _get_full_log_prob: the shortlist's log-probabilities, then each
// cluster's plus its head entry.
Tensor AdaptiveLogSoftmaxWithLossImpl::full_log_prob(const Tensor& input,
                                                     const Tensor& head_output) {
  const Tensor head_logprob = head_output.log_softmax(1);
  std::vector<Tensor> parts{head_logprob.narrow(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    parts.push_back(cluster(i, input).log_softmax(1) +
                    head_logprob.select(1, shortlist_size + i).unsqueeze(1));
  }
  return cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  return full_log_prob(input, head(input));
}

// A row whose head argmax is a shortlist class keeps it (no cluster class
// can be likelier); the others take the argmax of the full distribution.
Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  const Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  const Tensor rows = (output >= shortlist_size).nonzero().squeeze(1);
  if (rows.numel() == 0) return output;
  const Tensor log_prob =
      full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows));
  return output.index_copy(0, rows, log_prob.argmax(1));
}

}  // namespace nn
}  // namespace ember
