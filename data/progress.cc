#include "data/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "tensor/print.h"

namespace ember {
namespace data {
namespace {

// tqdm's UTF bar: a space, then the left eighths of a cell up to the full
// block.
const char* const kEighths[] = {" ", "\u258f", "\u258e", "\u258d", "\u258c",
                                "\u258b", "\u258a", "\u2589", "\u2588"};

std::string bar(double fraction, int width) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int64_t eighths = static_cast<int64_t>(fraction * width * 8);
  const int64_t full = eighths / 8, part = eighths % 8;
  std::string out;
  for (int64_t i = 0; i < full; ++i) out += kEighths[8];
  if (full < width) {
    out += kEighths[part];
    out.append(static_cast<size_t>(width - full - 1), ' ');
  }
  return out;
}

// tqdm's format_num: 3 significant digits unless Python's str() is shorter.
std::string format_num(double v) {
  std::string g = absl::StrFormat("%.3g", v);
  g = absl::StrReplaceAll(g, {{"e+0", "e+"}, {"e-0", "e-"}});
  const std::string repr = python_float_repr(v);
  return g.size() < repr.size() ? g : repr;
}

// How many columns `s` takes (UTF-8: count the non-continuation bytes).
size_t columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

std::string format_interval(double seconds) {
  const int64_t t = static_cast<int64_t>(std::max(0.0, seconds));
  const int64_t h = t / 3600, m = t / 60 % 60, s = t % 60;
  if (h > 0) return absl::StrFormat("%d:%02d:%02d", h, m, s);
  return absl::StrFormat("%02d:%02d", m, s);
}

ProgressBar::ProgressBar(int64_t total, ProgressBarOptions options)
    : total_(total), o_(std::move(options)) {
  out_ = o_.stream_ != nullptr ? o_.stream_ : &std::cerr;
  if (o_.terminal_ >= 0) {
    terminal_ = o_.terminal_ == 1;
  } else if (out_ == &std::cerr) {
    terminal_ = isatty(STDERR_FILENO) == 1;
  } else if (out_ == &std::cout) {
    terminal_ = isatty(STDOUT_FILENO) == 1;
  } else {
    terminal_ = false;
  }
  start_ = last_draw_ = now();
  if (terminal_ && !o_.disable_) draw(false);
}

ProgressBar::~ProgressBar() { close(); }

ProgressBar::Clock::time_point ProgressBar::now() const {
  return o_.clock_ ? o_.clock_() : Clock::now();
}

void ProgressBar::update(int64_t n) {
  n_ += n;
  maybe_draw();
}

void ProgressBar::set_postfix(const std::vector<std::pair<std::string, double>>& values) {
  std::string text;
  for (const auto& kv : values) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", kv.first, "=", format_num(kv.second));
  }
  postfix_ = std::move(text);
}

void ProgressBar::set_postfix_str(std::string text) { postfix_ = std::move(text); }

std::string ProgressBar::render() const {
  const double elapsed = std::chrono::duration<double>(now() - start_).count();
  const double rate = elapsed > 0 && n_ > 0 ? static_cast<double>(n_) / elapsed : 0;
  std::string rate_fmt;
  if (rate == 0) {
    rate_fmt = "?it/s";
  } else if (rate < 1) {
    rate_fmt = absl::StrFormat("%5.2fs/it", 1 / rate);
  } else {
    rate_fmt = absl::StrFormat("%5.2fit/s", rate);
  }
  const std::string postfix = postfix_.empty() ? "" : ", " + postfix_;
  const std::string prefix = o_.desc_.empty() ? "" : o_.desc_ + ": ";
  if (total_ <= 0) {
    return absl::StrCat(prefix, n_, "it [", format_interval(elapsed), ", ", rate_fmt, postfix,
                        "]");
  }
  const double fraction = static_cast<double>(n_) / static_cast<double>(total_);
  const std::string remaining =
      rate > 0 ? format_interval(static_cast<double>(total_ - n_) / rate) : "?";
  return absl::StrCat(prefix, absl::StrFormat("%3.0f%%|", fraction * 100),
                      bar(fraction, o_.bar_width_), "| ", n_, "/", total_, " [",
                      format_interval(elapsed), "<", remaining, ", ", rate_fmt, postfix, "]");
}

void ProgressBar::maybe_draw() {
  if (o_.disable_ || closed_) return;
  const double since = std::chrono::duration<double>(now() - last_draw_).count();
  if (since >= (terminal_ ? o_.min_interval_ : o_.log_interval_)) draw(false);
}

void ProgressBar::draw(bool final_draw) {
  const std::string line = render();
  if (terminal_) {
    // Carriage return, the line, and spaces over what a longer line left.
    const size_t width = columns(line);
    *out_ << '\r' << line << std::string(last_width_ > width ? last_width_ - width : 0, ' ');
    last_width_ = width;
    if (final_draw) *out_ << '\n';
  } else {
    *out_ << line << '\n';
  }
  out_->flush();
  last_draw_ = now();
}

void ProgressBar::close() {
  if (closed_) return;
  if (!o_.disable_) draw(true);
  closed_ = true;
}

}  // namespace data
}  // namespace ember
