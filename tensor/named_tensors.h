#ifndef EMBER_TENSOR_NAMED_TENSORS_H_
#define EMBER_TENSOR_NAMED_TENSORS_H_

// Named tensors in order: a state dict, named_parameters(), named_buffers(),
// what safetensors files hold. One definition for nn, optim and serialize.
// libtorch returns an OrderedDict there; NamedTensors offers its item
// accessors (key(), value()) and lookups while staying a vector of pairs.

#include <string>
#include <utility>
#include <vector>

#include "tensor/error.h"
#include "tensor/tensor.h"

namespace ember {

// One entry: a std::pair (first, second; `auto& [name, t]` works) with the
// accessors of libtorch's OrderedDict items, so that
// `for (auto& p : model->named_parameters()) use(p.key(), p.value());`
// reads as in libtorch.
struct NamedTensor : std::pair<std::string, Tensor> {
  using Base = std::pair<std::string, Tensor>;
  using Base::Base;
  NamedTensor() = default;
  NamedTensor(Base p) : Base(std::move(p)) {}  // NOLINT: from make_pair / a pair
  const std::string& key() const { return first; }
  Tensor& value() { return second; }
  const Tensor& value() const { return second; }
};

// The list, in order, with libtorch OrderedDict's lookups by key:
// `model->named_parameters()["fc1.weight"]`, find(), contains(), keys(),
// values(). Lookups walk the list (state dicts are short; order is what
// matters). Indexing by position works as on the vector.
class NamedTensors : public std::vector<NamedTensor> {
 public:
  using Base = std::vector<NamedTensor>;
  using Base::Base;
  using Base::operator[];
  NamedTensors() = default;
  NamedTensors(Base v) : Base(std::move(v)) {}  // NOLINT

  // The tensor named `key`; throws ember::Error when there is none.
  Tensor& operator[](const std::string& key) { return at_key(key); }
  const Tensor& operator[](const std::string& key) const {
    return const_cast<NamedTensors*>(this)->at_key(key);
  }
  Tensor* find(const std::string& key) {
    for (NamedTensor& e : *this) {
      if (e.first == key) return &e.second;
    }
    return nullptr;
  }
  const Tensor* find(const std::string& key) const {
    return const_cast<NamedTensors*>(this)->find(key);
  }
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const NamedTensor& e : *this) out.push_back(e.first);
    return out;
  }
  std::vector<Tensor> values() const {
    std::vector<Tensor> out;
    for (const NamedTensor& e : *this) out.push_back(e.second);
    return out;
  }

 private:
  Tensor& at_key(const std::string& key) {
    if (Tensor* t = find(key)) return *t;
    std::string known;
    for (const NamedTensor& e : *this) known += (known.empty() ? "'" : ", '") + e.first + "'";
    throw Error("Key '" + key + "' is not defined (keys: " + (known.empty() ? "none" : known) +
                ")");
  }
};

}  // namespace ember

#endif  // EMBER_TENSOR_NAMED_TENSORS_H_
