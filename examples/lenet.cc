#include "examples/lenet.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "autograd/autograd.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "serialize/checkpoint.h"
#include "tensor/all.h"

namespace ember {
namespace examples {

namespace {

namespace F = nn::functional;

std::string shape(const Tensor& t) { return size_repr(t.sizes()); }

// Python prints None for a missing .grad.
void print_grad(std::ostream& out, const Tensor& g) {
  if (g.defined()) {
    out << g << "\n";
  } else {
    out << "None\n";
  }
}

}  // namespace

NetImpl::NetImpl()
    : conv1(register_module("conv1", nn::Conv2d(1, 6, 5))),
      conv2(register_module("conv2", nn::Conv2d(6, 16, 5))),
      fc1(register_module("fc1", nn::Linear(16 * 5 * 5, 120))),
      fc2(register_module("fc2", nn::Linear(120, 84))),
      fc3(register_module("fc3", nn::Linear(84, 10))) {}

Tensor NetImpl::forward(Tensor x) {
  x = F::max_pool2d(F::relu(conv1->forward(x)), F::MaxPool2dFuncOptions({2, 2}));
  x = F::max_pool2d(F::relu(conv2->forward(x)), F::MaxPool2dFuncOptions(2));
  x = x.view({-1, num_flat_features(x)});
  x = F::relu(fc1->forward(x));
  x = F::relu(fc2->forward(x));
  return fc3->forward(x);
}

int64_t NetImpl::num_flat_features(const Tensor& x) {
  int64_t n = 1;
  for (int64_t d = 1; d < x.dim(); ++d) n *= x.size(d);
  return n;
}

void lenet(std::ostream& out) {
  manual_seed(0);
  Net net;
  out << *net << "\n";

  std::vector<Tensor> params = net->parameters();
  out << params.size() << "\n";
  out << shape(params[0]) << "\n";  // conv1's weight

  Tensor input = randn({1, 1, 32, 32});
  Tensor output = net->forward(input);
  out << output << "\n";

  Tensor target = randn({10}).reshape({1, -1});
  nn::MSELoss criterion;
  Tensor loss = criterion->forward(output, target);
  out << loss << "\n";
  // The graph behind the loss, as the seed follows it back.
  auto mse = loss.grad_fn();
  auto linear = mse->next_edge(0).function;
  out << mse->name() << "\n" << linear->name() << "\n"
      << linear->next_edge(0).function->name() << "\n";

  net->zero_grad();
  out << "conv1.bias.grad before backward\n";
  print_grad(out, net->conv1->bias.grad());
  loss.backward();
  out << "conv1.bias.grad after backward\n";
  print_grad(out, net->conv1->bias.grad());

  optim::SGD optimizer(net->parameters(), optim::SGDOptions(0.01));
  optimizer.zero_grad();
  loss = criterion->forward(net->forward(input), target);
  loss.backward();
  optimizer.step();
  out << "loss after one SGD step\n";
  out << criterion->forward(net->forward(input), target) << "\n";

  out << "Model's state_dict:\n";
  for (const auto& [name, t] : net->state_dict()) out << name << " \t " << shape(t) << "\n";

  char dir[] = "/tmp/ember_lenet_XXXXXX";
  if (mkdtemp(dir) == nullptr) throw Error("lenet: cannot make a temporary folder");
  const std::string path = std::string(dir) + "/lenet.pt";  // torch.save's format
  save(*net, path);
  Net net2;
  net2->load_state_dict(load(path));
  out << "loaded model gives the same output: "
      << (equal(net2->forward(input), net->forward(input)) ? "True" : "False") << "\n";
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace examples
}  // namespace ember
