#ifndef EMBER_EXAMPLES_FOLDER_DATASET_H_
#define EMBER_EXAMPLES_FOLDER_DATASET_H_

// A dataset of your own: the image files of a folder, listed once and
// decoded only when a sample is asked for, the way seed 003's audio dataset
// lists *.wav files in __init__ and loads one in __getitem__. The files are
// binary PGM (P5) images named "<label>_<anything>.pgm".

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/transforms.h"

namespace examples {

class PgmFolderDataset : public ember::data::MapStyleDataset<ember::data::Example<>> {
 public:
  // Lists root/*.pgm (sorted by name); throws if there are none.
  explicit PgmFolderDataset(const std::string& root,
                            ember::data::transforms::TensorFunction transform = nullptr);

  // {transform(uint8 H x W image), int64 label}; the file is read here.
  ember::data::Example<> get(int64_t index) const override;
  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::vector<std::string> files_;
  std::vector<int64_t> labels_;
  ember::data::transforms::TensorFunction transform_;
};

// Decodes a binary PGM (P5, maxval < 256) into a uint8 H x W tensor; a
// malformed file raises ember::Error naming it.
ember::Tensor read_pgm(const std::string& path);
// Writes `image` (uint8 H x W) as a binary PGM.
void write_pgm(const std::string& path, const ember::Tensor& image);

// Writes `n` small labelled PGM images into `dir` (for the demo and tests).
void write_demo_images(const std::string& dir, int n);

// The demo: batches of the folder's images through a DataLoader; prints one
// line per batch.
int folder_dataset_main(const std::string& dir, std::ostream& out);

}  // namespace examples

#endif  // EMBER_EXAMPLES_FOLDER_DATASET_H_
