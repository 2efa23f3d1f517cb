#ifndef EMBER_NN_UTILS_PRUNE_H_
#define EMBER_NN_UTILS_PRUNE_H_

// torch.nn.utils.prune (PyTorch 1.13): masks a parameter's entries.
//
//   namespace prune = ember::nn::utils::prune;
//   prune::l1_unstructured(*fc, "weight", 0.3);   // 30% of the entries, by |w|
//   prune::ln_structured(*conv, "weight", 2, /*n=*/2, /*dim=*/0);  // 2 channels
//   fc(x);                       // weight = weight_mask * weight_orig
//   prune::remove(*fc, "weight"); // weight: a plain parameter, zeros kept
//
// As PyTorch's: the parameter `name` becomes name_orig (a parameter) times
// name_mask (a buffer), both in the state_dict, recomputed by a forward
// pre-hook before each call (Note [Rebinding a parameter] in
// nn/module.h); pruning again combines the new mask with the old one
// (PruningContainer: the new method sees only the entries, or channels,
// still unpruned); the masks come from the same topk / kthvalue / rand
// calls, so they are PyTorch's, ties and random draws included. An amount
// is a count (an integer) or a fraction of the entries (a double in [0, 1],
// rounded half to even, as Python's round).
//
// Deviations: name_orig is a new tensor (PyTorch keeps the parameter
// object), so make the optimizer after pruning; `module->weight` read
// between calls is the last call's (or the pruning's) value; when pruning
// an already pruned tensor fails, its previous pruning is kept (PyTorch
// drops its hook).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/tensor.h"

namespace ember {
namespace nn {
namespace utils {
namespace prune {

// A number of entries (int) or a fraction of them (double in [0, 1]);
// PyTorch's ValueError otherwise.
class PruningAmount {
 public:
  PruningAmount(int count) : PruningAmount(static_cast<int64_t>(count)) {}  // NOLINT
  PruningAmount(int64_t count);                                             // NOLINT
  PruningAmount(double fraction);                                           // NOLINT
  // How many of `tensor_size` entries to prune (an error when a count
  // exceeds it).
  int64_t nparams_toprune(int64_t tensor_size) const;

 private:
  bool is_count_;
  int64_t count_ = 0;
  double fraction_ = 0;
};

enum class PruningType { kUnstructured, kStructured, kGlobal };

// PyTorch's BasePruningMethod: compute_mask(t, default_mask) gives the new
// mask of t, which default_mask (the current one) already restricts.
class BasePruningMethod {
 public:
  virtual ~BasePruningMethod() = default;
  virtual PruningType pruning_type() const = 0;
  virtual Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const = 0;
  // The dim that a structured method prunes along.
  virtual int64_t dim() const { return -1; }
  // The class name PyTorch prints.
  virtual std::string name() const = 0;
  // t * compute_mask(importance_scores or t, default_mask or ones).
  Tensor prune(const Tensor& t, const Tensor& default_mask = {},
               const Tensor& importance_scores = {}) const;
};

class Identity : public BasePruningMethod {
 public:
  PruningType pruning_type() const override { return PruningType::kUnstructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  std::string name() const override { return "Identity"; }
};

// The entries of highest rand_like(t) values.
class RandomUnstructured : public BasePruningMethod {
 public:
  explicit RandomUnstructured(PruningAmount amount) : amount_(amount) {}
  PruningType pruning_type() const override { return PruningType::kUnstructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  std::string name() const override { return "RandomUnstructured"; }

 private:
  PruningAmount amount_;
};

// The entries of smallest |t| (topk(largest=false): PyTorch's ties).
class L1Unstructured : public BasePruningMethod {
 public:
  explicit L1Unstructured(PruningAmount amount) : amount_(amount) {}
  PruningType pruning_type() const override { return PruningType::kUnstructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  std::string name() const override { return "L1Unstructured"; }

 private:
  PruningAmount amount_;
};

// Whole slices along dim, chosen at random (rand and kthvalue).
class RandomStructured : public BasePruningMethod {
 public:
  explicit RandomStructured(PruningAmount amount, int64_t dim = -1) : amount_(amount), dim_(dim) {}
  PruningType pruning_type() const override { return PruningType::kStructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  int64_t dim() const override { return dim_; }
  std::string name() const override { return "RandomStructured"; }

 private:
  PruningAmount amount_;
  int64_t dim_;
};

// The slices along dim of smallest n-norm (n: any p of torch.norm,
// inf included).
class LnStructured : public BasePruningMethod {
 public:
  LnStructured(PruningAmount amount, double n, int64_t dim = -1)
      : amount_(amount), n_(n), dim_(dim) {}
  PruningType pruning_type() const override { return PruningType::kStructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  int64_t dim() const override { return dim_; }
  std::string name() const override { return "LnStructured"; }

 private:
  PruningAmount amount_;
  double n_;
  int64_t dim_;
};

// A given mask (times the current one).
class CustomFromMask : public BasePruningMethod {
 public:
  explicit CustomFromMask(Tensor mask) : mask_(std::move(mask)) {}
  PruningType pruning_type() const override { return PruningType::kGlobal; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  std::string name() const override { return "CustomFromMask"; }

 private:
  Tensor mask_;
};

// The methods applied to one tensor, in order; its mask is the last
// method's, computed on what the earlier ones left.
class PruningContainer : public BasePruningMethod {
 public:
  PruningContainer() = default;
  void add_pruning_method(std::shared_ptr<const BasePruningMethod> method);
  size_t size() const { return methods_.size(); }
  const BasePruningMethod& operator[](size_t i) const { return *methods_.at(i); }
  PruningType pruning_type() const override { return PruningType::kUnstructured; }
  Tensor compute_mask(const Tensor& t, const Tensor& default_mask) const override;
  std::string name() const override { return "PruningContainer"; }

 private:
  std::vector<std::shared_ptr<const BasePruningMethod>> methods_;
};

// PyTorch's BasePruningMethod.apply: prunes module's parameter `name` with
// `method` (combined with an earlier pruning of it); importance_scores
// (t's shape) replace the tensor's values in choosing what to prune.
Module& apply(Module& module, const std::string& name,
              std::shared_ptr<const BasePruningMethod> method,
              const Tensor& importance_scores = {});

Module& identity(Module& module, const std::string& name);
Module& random_unstructured(Module& module, const std::string& name, PruningAmount amount);
Module& l1_unstructured(Module& module, const std::string& name, PruningAmount amount,
                        const Tensor& importance_scores = {});
Module& random_structured(Module& module, const std::string& name, PruningAmount amount,
                          int64_t dim);
Module& ln_structured(Module& module, const std::string& name, PruningAmount amount, double n,
                      int64_t dim, const Tensor& importance_scores = {});
Module& custom_from_mask(Module& module, const std::string& name, const Tensor& mask);

// Prunes the given (module, name) tensors together, as one vector, with an
// unstructured method (e.g. L1Unstructured(0.2): the 20% smallest of all).
// importance_scores, as PyTorch's dict, maps a (module, name) to the scores
// that replace that tensor's values in the ranking (any shape with its
// number of elements; PyTorch does not check, ember says which differs).
using ImportanceScores = std::map<std::pair<const Module*, std::string>, Tensor>;
void global_unstructured(
    const std::vector<std::pair<std::shared_ptr<Module>, std::string>>& parameters,
    const BasePruningMethod& method, const ImportanceScores& importance_scores = {});

// Makes the pruning permanent: `name` becomes a plain parameter holding
// mask * orig; name_orig and name_mask go.
Module& remove(Module& module, const std::string& name);

// Whether module or one of its submodules has a pruned tensor.
bool is_pruned(Module& module);

}  // namespace prune
}  // namespace utils
}  // namespace nn
}  // namespace ember

#endif  // EMBER_NN_UTILS_PRUNE_H_
