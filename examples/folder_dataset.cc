#include "examples/folder_dataset.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>

#include "data/dataloader.h"
#include "tensor/creation.h"
#include "tensor/empty.h"
#include "tensor/error.h"
#include "tensor/reduce.h"

namespace examples {

using ember::Error;
using ember::Tensor;
namespace data = ember::data;

PgmFolderDataset::PgmFolderDataset(const std::string& root, data::transforms::TensorFunction transform)
    : transform_(std::move(transform)) {
  DIR* dir = opendir(root.c_str());
  EMBER_CHECK(dir != nullptr, root, ": cannot open folder: ", std::strerror(errno));
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".pgm") == 0) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  EMBER_CHECK(!names.empty(), root, ": no .pgm files");
  for (const std::string& name : names) {
    const size_t us = name.find('_');
    int64_t label = -1;
    EMBER_CHECK(us != std::string::npos && us > 0 &&
                    std::all_of(name.begin(), name.begin() + us, ::isdigit),
                root, "/", name, ": the name should be <label>_<anything>.pgm");
    label = std::stoll(name.substr(0, us));
    files_.push_back(root + "/" + name);
    labels_.push_back(label);
  }
}

data::Example<> PgmFolderDataset::get(int64_t index) const {
  index = data::check_index(index, size(), "PgmFolderDataset");
  data::Example<> e{read_pgm(files_[index]), ember::tensor(labels_[index], ember::kLong)};
  if (transform_) e.data = transform_(e.data);
  return e;
}

Tensor read_pgm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EMBER_CHECK(f.good(), path, ": cannot open");
  std::string magic;
  int64_t w = -1, h = -1, maxval = -1;
  f >> magic >> w >> h >> maxval;
  EMBER_CHECK(magic == "P5", path, ": not a binary PGM file (magic '", magic, "', expected 'P5')");
  EMBER_CHECK(f && w > 0 && h > 0 && maxval > 0 && maxval < 256, path,
              ": bad PGM header (width ", w, ", height ", h, ", maxval ", maxval, ")");
  f.get();  // the single whitespace byte before the pixels
  Tensor img = ember::empty({h, w}, ember::kByte);
  f.read(reinterpret_cast<char*>(img.data_ptr<uint8_t>()), h * w);
  EMBER_CHECK(f.gcount() == h * w, path, ": truncated PGM (", f.gcount(), " of ", h * w,
              " pixel bytes)");
  return img;
}

void write_pgm(const std::string& path, const Tensor& image) {
  EMBER_CHECK(image.dim() == 2 && image.dtype() == ember::kByte, "write_pgm: uint8 H x W expected");
  const Tensor c = image.contiguous();
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << c.size(1) << " " << c.size(0) << "\n255\n";
  f.write(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), c.numel());
  EMBER_CHECK(f.good(), path, ": write failed");
}

void write_demo_images(const std::string& dir, int n) {
  for (int i = 0; i < n; ++i) {
    // A label in 0..2 and an 8 x 8 image whose brightness encodes it.
    const int label = i % 3;
    Tensor img = ember::full({8, 8}, 40 + 80 * label + i % 5, ember::kByte);
    std::ostringstream name;
    name << dir << "/" << label << "_" << i << ".pgm";
    write_pgm(name.str(), img);
  }
}

int folder_dataset_main(const std::string& dir, std::ostream& out) {
  namespace T = data::transforms;
  auto ds = std::make_shared<PgmFolderDataset>(
      dir, T::Compose({T::ToTensor(), T::Normalize({0.5}, {0.5})}));
  data::DataLoader loader(ds, data::DataLoaderOptions().batch_size(4).num_workers(2));
  out << ds->size() << " images, " << loader.size() << " batches\n";
  int64_t b = 0;
  for (data::Example<>& batch : loader) {
    out << "batch " << b++ << ": data [" << batch.data.size(0) << ", " << batch.data.size(1)
        << ", " << batch.data.size(2) << ", " << batch.data.size(3) << "], labels";
    for (int64_t i = 0; i < batch.target.size(0); ++i) out << " " << batch.target[i].item<int64_t>();
    out << ", mean " << batch.data.mean().item<float>() << "\n";
  }
  return 0;
}

}  // namespace examples
