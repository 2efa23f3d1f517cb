#ifndef EMBER_TENSORBOARD_SUMMARY_WRITER_H_
#define EMBER_TENSORBOARD_SUMMARY_WRITER_H_

// PyTorch's torch.utils.tensorboard.SummaryWriter: event files that
// TensorBoard reads (`tensorboard --logdir runs`).
//
//   ember::tensorboard::SummaryWriter writer(
//       ember::tensorboard::SummaryWriterOptions().log_dir("runs/exp1"));
//   for (int64_t step = 0; ...; ++step) {
//     writer.add_scalar("train/loss", loss.item<double>(), step);
//   }
//   writer.add_histogram("fc1.weight", net->fc1->weight, step);
//   writer.add_images("samples", batch.data, step);   // N x C x H x W, in [0, 1]
//   writer.close();                                   // or let it go out of scope
//
// Note [Event writing off the training thread]: add_* copy what they need
// (the tag and number, an image's pixels, a histogram's counts) into a
// queue and return; one background thread per writer turns entries into
// Event messages (PNG encoding included), frames them as TFRecords and
// writes them. add_scalar costs the calling thread a lock and a copy, well
// under 2 us (BENCHMARKS.md). The queue goes to disk when it holds
// max_queue entries, every flush_secs, and on flush() or close(); close(),
// the destructor and normal exit (std::exit, returning from main: writers
// still alive are flushed by an atexit handler) lose nothing. A caller
// that gets 65536 entries or 64 MiB ahead of the writer thread waits for
// it, as PyTorch's callers wait on its bounded queue, so memory stays
// bounded; a training loop never comes near that.
//
// I/O errors never crash and never throw from add_* (a full disk must not
// end a training run): the writer prints one warning when a write fails or
// its file disappears (its directory removed), stops writing that file,
// and the next flush() or close() throws ember::Error with the same
// message. Bad arguments (a malformed image, an empty histogram) throw at
// once, as PyTorch's do. A writer belongs to the process that made it: in
// a forked child it does nothing (Note [Writers in forked children]).
//
// Deviations from PyTorch: options come in SummaryWriterOptions (libtorch
// style); global_step is an integer, with 0 written as no step (as proto3
// writes it); add_scalars takes ordered (tag, value) pairs; hyperparameters
// are HParamValue (number, string or bool); add_graph, add_embedding,
// add_audio, add_video, add_mesh, add_figure and add_custom_scalars are
// not offered.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/arg.h"
#include "tensor/tensor.h"
#include "tensorboard/summary.h"

namespace ember {
namespace tensorboard {

struct SummaryWriterOptions {
  // Where the event files go. Empty: runs/<Mon><DD>_<HH>-<MM>-<SS>_<host><comment>
  // (PyTorch's default, local time, e.g. runs/May04_22-14-54_myhost).
  EMBER_ARG(std::string, log_dir);
  // Appended to the default log_dir; ignored when log_dir is given.
  EMBER_ARG(std::string, comment);
  // When set, TensorBoard hides the events of an earlier run in log_dir
  // from this step on (the file starts with a SessionLog START at it).
  EMBER_ARG(std::optional<int64_t>, purge_step) = std::nullopt;
  // Entries queued before the writer thread is woken to write them (<= 0:
  // only on flush_secs, flush() and close()).
  EMBER_ARG(int64_t, max_queue) = 10;
  // Seconds between writes of whatever is queued.
  EMBER_ARG(double, flush_secs) = 120;
  // Appended to every event file's name.
  EMBER_ARG(std::string, filename_suffix);
};

class SummaryWriter {
 public:
  // Makes log_dir and its first event file (events.out.tfevents.<10-digit
  // seconds>.<host>.<pid>.<n><filename_suffix>); throws ember::Error naming
  // the path when it cannot.
  explicit SummaryWriter(const SummaryWriterOptions& options = SummaryWriterOptions());
  explicit SummaryWriter(const std::string& log_dir);
  // close(); an error there is printed (it was already warned about).
  ~SummaryWriter();
  SummaryWriter(SummaryWriter&&) noexcept;
  SummaryWriter& operator=(SummaryWriter&&) noexcept;
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  const std::string& get_logdir() const;
  // The event file now taking this writer's events (a new one after close()).
  std::string event_file_path() const;

  // walltime: seconds since the epoch to record instead of now.
  void add_scalar(const std::string& tag, double scalar_value, int64_t global_step = 0,
                  std::optional<double> walltime = std::nullopt);
  // A one-element tensor.
  void add_scalar(const std::string& tag, const Tensor& scalar_value, int64_t global_step = 0,
                  std::optional<double> walltime = std::nullopt);
  // Each (tag, value) goes to its own run, log_dir/<main_tag with '/' as
  // '_'>_<tag>/, under the tag main_tag, as PyTorch does.
  void add_scalars(const std::string& main_tag,
                   const std::vector<std::pair<std::string, double>>& tag_scalar_dict,
                   int64_t global_step = 0, std::optional<double> walltime = std::nullopt);
  // bins: "tensorflow" (TensorBoard's bucket limits), a count or the edges
  // (summary.h); max_bins caps the bins by summing neighbours.
  void add_histogram(const std::string& tag, const Tensor& values, int64_t global_step = 0,
                     const HistogramBins& bins = "tensorflow",
                     std::optional<double> walltime = std::nullopt,
                     std::optional<int64_t> max_bins = std::nullopt);
  // Float images in [0, 1] (scaled by 255), uint8 as is; dataformats any
  // order of CHW, HWC, HW, or NCHW for a grid (summary.h's to_hwc_image).
  void add_image(const std::string& tag, const Tensor& img_tensor, int64_t global_step = 0,
                 std::optional<double> walltime = std::nullopt,
                 const std::string& dataformats = "CHW");
  // A batch as one grid image of up to 8 columns (make_grid).
  void add_images(const std::string& tag, const Tensor& img_tensor, int64_t global_step = 0,
                  std::optional<double> walltime = std::nullopt,
                  const std::string& dataformats = "NCHW");
  // Markdown text, under the tag <tag>/text_summary.
  void add_text(const std::string& tag, const std::string& text_string, int64_t global_step = 0,
                std::optional<double> walltime = std::nullopt);
  // One session of the HParams dashboard, written (and closed) at once in
  // the run log_dir/<run_name> (default: the current time, as str(time.time())):
  // the experiment, the session's start and end, and each metric as a
  // scalar.
  void add_hparams(const HParamDict& hparam_dict, const MetricDict& metric_dict,
                   const HParamDomains& hparam_domain_discrete = {},
                   const std::string& run_name = "", int64_t global_step = 0);
  // labels (0/1 or weights of truth) and predictions in [0, 1], same size.
  void add_pr_curve(const std::string& tag, const Tensor& labels, const Tensor& predictions,
                    int64_t global_step = 0, int64_t num_thresholds = 127,
                    const Tensor& weights = Tensor(),
                    std::optional<double> walltime = std::nullopt);

  // Writes everything queued so far; throws ember::Error for a write error
  // not yet reported this way.
  void flush();
  // flush(), then closes every event file. Later add_* calls open new
  // files in the same log_dir, as PyTorch's do.
  void close();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// PyTorch's default log_dir: runs/<Mon><DD>_<HH>-<MM>-<SS>_<host><comment>.
std::string default_log_dir(const std::string& comment = "");

}  // namespace tensorboard
}  // namespace ember

#endif  // EMBER_TENSORBOARD_SUMMARY_WRITER_H_
