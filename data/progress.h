#ifndef EMBER_DATA_PROGRESS_H_
#define EMBER_DATA_PROGRESS_H_

// A progress bar in tqdm's look, for loops over a DataLoader:
//
//   data::ProgressBar bar(loader.size(), data::ProgressBarOptions().desc("Epoch 1"));
//   for (data::Example<>& batch : loader) {
//     ...
//     bar.set_postfix({{"loss", loss.item<double>()}});
//     bar.update();
//   }
//   bar.close();
//
// prints, redrawn in place on a terminal,
//   Epoch 1:  45%|████▌     | 422/938 [00:06<00:07, 70.10it/s, loss=0.412]
// tqdm's fields: percentage, a bar in eighths of a cell, count/total,
// elapsed<remaining (MM:SS or H:MM:SS), rate ("s/it" below one per
// second; the mean rate so far, tqdm's smoothing=0), postfix. When the stream is not a terminal (a CI log, a file) the
// same text is written as a plain line at most every `log_interval`
// seconds and once at the end, instead of carriage returns. A bar that is
// disabled (`disable(true)`, as the trainers do on ranks other than 0)
// prints nothing.

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace ember {
namespace data {

struct ProgressBarOptions {
  using Clock = std::chrono::steady_clock;

  ProgressBarOptions& desc(std::string d) {
    desc_ = std::move(d);
    return *this;
  }
  // Where to draw; nullptr: std::cerr (tqdm's default).
  ProgressBarOptions& stream(std::ostream* s) {
    stream_ = s;
    return *this;
  }
  // Cells of the bar itself.
  ProgressBarOptions& bar_width(int w) {
    bar_width_ = w;
    return *this;
  }
  // Seconds between redraws on a terminal (tqdm's mininterval) and between
  // lines otherwise.
  ProgressBarOptions& min_interval(double s) {
    min_interval_ = s;
    return *this;
  }
  ProgressBarOptions& log_interval(double s) {
    log_interval_ = s;
    return *this;
  }
  ProgressBarOptions& disable(bool d) {
    disable_ = d;
    return *this;
  }
  // Terminal or not; unset: asked of the stream's file descriptor (std::cerr
  // and std::cout only; other streams are not terminals).
  ProgressBarOptions& is_terminal(bool t) {
    terminal_ = t ? 1 : 0;
    return *this;
  }
  // For tests: the time source.
  ProgressBarOptions& clock(std::function<Clock::time_point()> c) {
    clock_ = std::move(c);
    return *this;
  }

  std::string desc_;
  std::ostream* stream_ = nullptr;
  int bar_width_ = 10;
  double min_interval_ = 0.1;
  double log_interval_ = 10.0;
  bool disable_ = false;
  int terminal_ = -1;
  std::function<Clock::time_point()> clock_;
};

class ProgressBar {
 public:
  using Clock = ProgressBarOptions::Clock;

  // total <= 0: unknown (no percentage, bar or remaining time).
  explicit ProgressBar(int64_t total, ProgressBarOptions options = {});
  ~ProgressBar();  // close()
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(int64_t n = 1);
  // tqdm's set_postfix: ", name=value" after the rate; numbers as tqdm
  // formats them (3 significant digits, or Python's repr when shorter).
  void set_postfix(const std::vector<std::pair<std::string, double>>& values);
  void set_postfix_str(std::string text);
  // Draws the final state (on a terminal, ends the line). Idempotent.
  void close();

  int64_t n() const { return n_; }
  // The current line, as drawn.
  std::string render() const;

 private:
  void maybe_draw();
  void draw(bool final_draw);
  Clock::time_point now() const;

  int64_t total_;
  ProgressBarOptions o_;
  std::ostream* out_;
  bool terminal_;
  int64_t n_ = 0;
  std::string postfix_;
  Clock::time_point start_, last_draw_;
  bool closed_ = false;
  size_t last_width_ = 0;
};

// tqdm's format_interval: "05:07", "1:02:03".
std::string format_interval(double seconds);

}  // namespace data
}  // namespace ember

#endif  // EMBER_DATA_PROGRESS_H_
