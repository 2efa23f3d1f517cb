// Writes one event file of every kind SummaryWriter makes into the log_dir
// given as the only argument, with known values, for a check by
// TensorBoard's own reader (tools/tensorboard_interop.py, where the
// tensorboard package is installed):
//
//   bazel-bin/tensorboard/write_sample /tmp/tb && python3 tools/tensorboard_interop.py /tmp/tb

#include <cstdio>

#include "tensor/all.h"
#include "tensorboard/summary_writer.h"

int main(int argc, char** argv) {
  using namespace ember;  // NOLINT
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOG_DIR\n", argv[0]);
    return 2;
  }
  tensorboard::SummaryWriter writer(argv[1]);
  for (int64_t step = 0; step < 5; ++step) {
    writer.add_scalar("train/loss", 1.0 / (step + 1), step);
  }
  writer.add_scalars("run", {{"a", 1.5}, {"b", -2.5}}, 3);
  writer.add_histogram("weights", arange(1000, TensorOptions(kFloat)) / 1000.0, 7);
  // A 3x4 image, red ramp along x.
  Tensor img = zeros({3, 4, 4}, TensorOptions(kFloat));
  img.select(0, 0).copy_((arange(4, TensorOptions(kFloat)) / 3.0).expand({4, 4}));
  writer.add_image("image", img, 2);
  writer.add_images("batch", ones({2, 1, 3, 3}, TensorOptions(kFloat)) * 0.5, 2);
  writer.add_text("note", "hello *tensorboard*", 1);
  writer.add_pr_curve("pr", tensor({1, 0, 1, 1}, TensorOptions(kLong)),
                      tensor({0.9, 0.2, 0.6, 0.4}, TensorOptions(kFloat)), 4);
  writer.add_hparams({{"lr", 0.1}, {"optimizer", "sgd"}}, {{"hparam/accuracy", 0.75}}, {},
                     "hp_run");
  writer.close();
  std::printf("wrote %s\n", argv[1]);
  return 0;
}
