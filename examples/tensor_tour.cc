// A tour of //tensor: the tensor examples of the seed tutorials
// (../shared/seeds/000_*, 001_*, 003_*) written with ember. Each block
// prints what the Python original prints.

#include "examples/tensor_tour.h"

#include "tensor/all.h"

namespace ember::examples {

namespace {
std::ostream& shape(std::ostream& out, const Tensor& t) { return out << size_repr(t.sizes()); }
const char* py_bool(bool b) { return b ? "True" : "False"; }
}  // namespace

void tensor_tour(std::ostream& out) {
  using namespace ember::indexing;  // Slice, None, Ellipsis
  manual_seed(0);

  out << "== creation ==\n";
  Tensor x = rand({4, 3});
  out << x << "\n";
  out << zeros({4, 3}, kLong) << "\n";
  out << tensor(1.3) << "\n";
  out << tensor({2., 3.2}) << "\n";
  out << tensor({{2., 3.2}, {1., 22.3}}) << "\n";
  out << ones({2, 2}) << "\n";
  out << eye(3) << "\n";
  out << full({2, 2}, 2) << "\n";
  out << arange(5) << "\n";
  out << arange(1, 4) << "\n";
  out << arange(1, 2.5, 0.5) << "\n";
  out << linspace(3, 10, 5) << "\n";
  out << linspace(-10, 10, 5) << "\n";
  out << linspace(-10, 10, 1) << "\n";
  out << logspace(0, 2, 3) << "\n";
  out << randperm(4).sizes().size() << "\n";
  Tensor q = quantize_per_tensor(tensor({-1.0, 0.0, 1.0, 2.0}), 0.1, 10, kQUInt8);
  out << q.int_repr() << "\n";
  out << q.dequantize() << "\n";

  out << "== add ==\n";
  Tensor y = rand({4, 3});
  out << py_bool((x + y).equal(add(x, y))) << "\n";
  Tensor sum = x + y;
  y.add_(x);
  out << py_bool(y.equal(sum)) << "\n";

  out << "== index and view ==\n";
  out << x.index({Slice(), 1}) << "\n";
  Tensor r = randn({5, 4});
  shape(out, r) << " ";
  shape(out, r.view({20})) << " ";
  shape(out, r.view({-1, 5})) << "\n";
  out << tensor({3.5}).item<double>() << "\n";

  out << "== broadcasting ==\n";
  Tensor bx = arange(1, 3).view({1, 2});
  Tensor by = arange(1, 4).view({3, 1});
  out << "x = " << bx << "\n";
  out << "y = " << by << "\n";
  out << "x + y = " << bx + by << "\n";

  out << "== shapes ==\n";
  shape(out, rand({4, 1, 28, 28}).unsqueeze(0)) << "\n";
  Tensor a = rand({4, 1, 1, 28});
  shape(out, a.squeeze()) << "\n";
  shape(out, a.squeeze(1)) << "\n";
  Tensor col = tensor({{1}, {2}, {3}});
  out << col.expand({3, 4}) << "\n";
  out << col.expand({-1, 4}) << "\n";
  Tensor row = tensor({1, 2, 3});
  shape(out, row.repeat({4, 2})) << "\n";
  shape(out, row.repeat({4, 2, 1})) << "\n";
  Tensor b = rand({4, 3, 28, 32});
  shape(out, b.transpose(1, 3)) << "\n";
  shape(out, b.permute({0, 2, 3, 1})) << "\n";
  Tensor m = randn({2, 3});
  Tensor n = randn({2, 3});
  shape(out, cat({m, n}, 0)) << "\n";
  shape(out, stack({m, n}, 0)) << "\n";
  out << cat({m, m, m}, 1).sizes().size() << "\n";
  out << chunk(arange(7), 3, 0).back() << "\n";

  out << "== slicing ==\n";
  Tensor img = rand({4, 3, 28, 28});
  shape(out, img.index({0, 0})) << "\n";
  shape(out, img.index({Slice(None, 2)})) << "\n";
  shape(out, img.index({Slice(None, 2), Slice(None, 2), Slice(), Slice()})) << "\n";
  shape(out, img.index({Slice(None, 2), Slice(-1, None), Slice(), Slice()})) << "\n";
  shape(out, img.index({Ellipsis})) << "\n";
  shape(out, img.index({0, Ellipsis})) << "\n";
  shape(out, img.index({Slice(), 1, Ellipsis})) << "\n";
  shape(out, img.index({Ellipsis, Slice(None, 2)})) << "\n";

  out << "== masks ==\n";
  Tensor mx = tensor({{0.4573, 0.8571}, {0.7237, 0.0265}});
  Tensor mask = mx.gt(0.5);
  out << mask << "\n";
  out << mx.index({mx > 0.5}) << "\n";
  out << masked_select(mx, mask) << "\n";
  std::vector<Tensor> w = where(mx > 0.5);
  out << "(" << w[0] << ", " << w[1] << ")\n";
  out << nonzero(mx > 0.5) << "\n";

  out << "== take and gather ==\n";
  Tensor src = tensor({{4, 3, 5}, {6, 7, 8}});
  out << take(src, tensor({0, 2, 5})) << "\n";
  Tensor t = tensor({{1, 2}, {3, 4}});
  out << gather(t, 1, tensor({{0, 0}, {1, 0}})) << "\n";

  out << "== math ==\n";
  out << full({2, 2}, 2).pow(2) << "\n";
  out << full({2, 2}, 4).sqrt() << "\n";
  Tensor v = tensor({-1.5, -0.5, 0.5, 1.5, 2.7});
  out << v.floor() << " " << v.ceil() << " " << v.round() << "\n";
  out << v.trunc() << " " << v.frac() << "\n";
  out << v.clamp(-1, 1) << "\n";
  out << v.mean() << " " << v.sum() << " " << v.max() << " " << v.argmax() << "\n";
  Tensor mat = arange(6.).view({2, 3});
  out << mm(mat, mat.t()) << "\n";
  out << matmul(arange(3.), mat.t()) << "\n";
  shape(out, matmul(randn({10, 3, 4}), randn({4, 5}))) << "\n";
}

}  // namespace ember::examples
