#include "tensorboard/summary_writer.h"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tensor/error.h"
#include "tensorboard/event_file.h"

namespace ember {
namespace tensorboard {

namespace {

// One queued entry (Note [Event writing off the training thread]).
struct Pending {
  enum class Kind : uint8_t {
    kScalar,    // text: the tag; value: the number
    kSummary,   // text: a serialized Summary
    kDeferred,  // build(): a serialized Summary, made on the writer thread
    kEvent,     // text: a whole serialized Event (wall_time and step inside)
  };
  Pending(EventFile* f, double t, int64_t s, Kind k, std::string x, float v = 0,
          std::function<std::string()> b = nullptr, size_t payload = 0)
      : file(f), wall_time(t), step(s), value(v), kind(k), text(std::move(x)), build(std::move(b)),
        bytes(sizeof(Pending) + text.size() + payload) {}

  EventFile* file;
  double wall_time;
  int64_t step;
  float value;
  Kind kind;
  std::string text;
  std::function<std::string()> build;
  size_t bytes;  // memory held, roughly (the queue's cap counts it)
};

// The queue's cap: a caller that gets this far ahead of the writer thread
// waits for it (as PyTorch's callers wait on its bounded queue), so memory
// stays bounded; a training loop never comes near it.
constexpr size_t kMaxQueuedEntries = 1 << 16;
constexpr size_t kMaxQueuedBytes = size_t{64} << 20;

// Python's str(float): the shortest text that reads back as `v`.
std::string python_float(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string default_log_dir(const std::string& comment) {
  const std::time_t now = std::time(nullptr);
  std::tm local;
  localtime_r(&now, &local);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%b%d_%H-%M-%S", &local);
  return absl::StrCat("runs/", stamp, "_", host_name(), comment);
}

class SummaryWriter::Impl {
 public:
  explicit Impl(const SummaryWriterOptions& o);
  ~Impl();

  // Queues an entry; mu_ must be held.
  void enqueue_locked(Pending p) {
    queued_bytes_ += p.bytes;
    queue_.push_back(std::move(p));
  }
  // Runs `fill` (which queues entries) under mu_ once the queue has room,
  // then wakes the writer thread if it sleeps and the queue reached
  // max_queue (Note [Polling while events arrive]); after unlocking, so that
  // it does not wake up into a held mutex.
  template <typename Fill>
  void push(Fill&& fill) {
    bool wake;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wait_for_room(lock);
      const size_t before = queue_.size();
      fill();
      const size_t threshold = static_cast<size_t>(std::max<int64_t>(max_queue_, 0));
      wake = !polling_ && threshold > 0 && before < threshold && queue_.size() >= threshold;
    }
    if (wake) wake_.notify_one();
  }
  // The queue is at its cap (kMaxQueuedEntries / Bytes); mu_ must be held.
  bool full_locked() const {
    return queue_.size() >= kMaxQueuedEntries || queued_bytes_ >= kMaxQueuedBytes;
  }
  // Waits while the queue is full.
  void wait_for_room(std::unique_lock<std::mutex>& lock) {
    if (!full_locked()) return;
    wake_.notify_one();
    room_.wait(lock, [&] { return !full_locked(); });
  }
  // The main event file, opened again after close() as PyTorch does (with
  // the purge events first, once); mu_ must be held.
  EventFile* main_file_locked();
  // The file of add_scalars' run `dir`, opened on first use.
  EventFile* sub_file_locked(const std::string& dir);

  void add(Pending::Kind kind, std::optional<double> walltime, int64_t step, std::string text,
           std::function<std::string()> build = nullptr, size_t payload = 0) {
    const double t = walltime ? *walltime : wall_time_now();
    push([&] {
      enqueue_locked(Pending(main_file_locked(), t, step, kind, std::move(text), 0,
                             std::move(build), payload));
    });
  }

  // Waits until everything queued before the call is written; throws the
  // first unreported error when `report` is set.
  void flush(bool report);
  void close(bool report);
  bool owned_by_this_process() const { return pid_ == ::getpid(); }

  const std::string log_dir_;
  const std::string filename_suffix_;
  const int64_t max_queue_;

 private:
  void run();
  void write(std::vector<Pending>& batch);
  // Keeps the first unreported error, warns once.
  void record_error(const std::string& message);
  void throw_pending_error_locked();

  const std::chrono::duration<double> flush_period_;
  std::optional<int64_t> purge_step_;
  const pid_t pid_;

  std::mutex mu_;
  std::condition_variable wake_;  // the writer thread waits here
  std::condition_variable done_;  // flush() waits here
  std::condition_variable room_;  // callers wait here while the queue is full
  std::vector<Pending> queue_, spare_;
  size_t queued_bytes_ = 0;
  // PyTorch's all_writers: log directory -> its open file.
  std::map<std::string, std::unique_ptr<EventFile>> files_;
  EventFile* main_ = nullptr;
  uint64_t flush_requested_ = 0, flush_done_ = 0;
  bool stop_ = false;
  bool polling_ = false;  // the writer thread looks at the queue on its own
  std::string error_;
  bool warned_ = false;
  std::thread thread_;

  friend class SummaryWriter;
};

namespace {

// Writers alive in this process, flushed at normal exit.
struct LiveWriters {
  std::mutex mu;
  std::set<SummaryWriter::Impl*> writers;
};
LiveWriters& live_writers() {
  static auto* live = new LiveWriters();  // never destroyed: used at exit
  return *live;
}
void flush_live_writers() {
  LiveWriters& live = live_writers();
  std::lock_guard<std::mutex> lock(live.mu);
  for (SummaryWriter::Impl* w : live.writers) {
    if (!w->owned_by_this_process()) continue;
    try {
      w->flush(/*report=*/false);
    } catch (...) {
    }
  }
}

}  // namespace

SummaryWriter::Impl::Impl(const SummaryWriterOptions& o)
    : log_dir_(o.log_dir().empty() ? default_log_dir(o.comment()) : o.log_dir()),
      filename_suffix_(o.filename_suffix()),
      max_queue_(o.max_queue()),
      // At least a millisecond (PyTorch's 0 or less writes at once), NaN too.
      flush_period_(o.flush_secs() >= 1e-3 ? std::min(o.flush_secs(), 1e7) : 1e-3),
      purge_step_(o.purge_step()),
      pid_(::getpid()) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    main_file_locked();  // throws for an unusable log_dir, before the thread exists
  }
  thread_ = std::thread([this] { run(); });
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit(flush_live_writers); });
  LiveWriters& live = live_writers();
  std::lock_guard<std::mutex> lock(live.mu);
  live.writers.insert(this);
}

SummaryWriter::Impl::~Impl() {
  {
    LiveWriters& live = live_writers();
    std::lock_guard<std::mutex> lock(live.mu);
    live.writers.erase(this);
  }
  try {
    close(/*report=*/false);
  } catch (...) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

EventFile* SummaryWriter::Impl::main_file_locked() {
  if (main_ != nullptr) return main_;
  auto file = std::make_unique<EventFile>(log_dir_, filename_suffix_);
  main_ = file.get();
  files_[log_dir_] = std::move(file);
  if (purge_step_.has_value()) {
    const double now = wall_time_now();
    enqueue_locked(Pending(main_, now, *purge_step_, Pending::Kind::kEvent,
                           file_version_event(now, *purge_step_)));
    enqueue_locked(Pending(main_, now, *purge_step_, Pending::Kind::kEvent,
                           session_start_event(now, *purge_step_)));
    purge_step_.reset();
  }
  return main_;
}

EventFile* SummaryWriter::Impl::sub_file_locked(const std::string& dir) {
  auto it = files_.find(dir);
  if (it != files_.end()) return it->second.get();
  auto file = std::make_unique<EventFile>(dir, filename_suffix_);
  EventFile* f = file.get();
  files_[dir] = std::move(file);
  return f;
}

// Note [Polling while events arrive]: waking the writer thread costs the
// caller a futex call and, on a virtual machine whose other vCPU idles, an
// inter-processor interrupt: ~12 us measured here, once every max_queue
// calls (1.3 us a call on average at PyTorch's max_queue of 10). So while
// entries keep coming the writer thread looks at the queue every
// kPollInterval on its own and callers leave it alone; once a look finds
// nothing it sleeps until max_queue entries wait (then a caller wakes it),
// flush_secs pass, or flush(), close() or a full queue call for it.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

void SummaryWriter::Impl::run() {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(flush_period_);
  std::unique_lock<std::mutex> lock(mu_);
  Clock::time_point next_write = Clock::now() + period;
  for (;;) {
    const Clock::time_point until =
        polling_ ? std::min(next_write, Clock::now() + kPollInterval) : next_write;
    wake_.wait_until(lock, until, [&] {
      return stop_ || flush_requested_ != flush_done_ || full_locked() ||
             (!polling_ && max_queue_ > 0 && queue_.size() >= static_cast<size_t>(max_queue_));
    });
    const Clock::time_point now = Clock::now();
    if (now >= next_write) next_write = now + period;
    const uint64_t ticket = flush_requested_;
    const bool stopping = stop_;
    std::vector<Pending> batch;
    batch.swap(queue_);
    queue_.swap(spare_);  // keeps the old capacity for the next entries
    queued_bytes_ = 0;
    polling_ = !batch.empty();
    room_.notify_all();
    lock.unlock();
    write(batch);
    batch.clear();
    lock.lock();
    spare_.swap(batch);
    flush_done_ = ticket;
    done_.notify_all();
    if (stopping && queue_.empty()) return;
  }
}

void SummaryWriter::Impl::write(std::vector<Pending>& batch) {
  std::vector<EventFile*> touched;
  for (Pending& p : batch) {
    std::string event;
    try {
      switch (p.kind) {
        case Pending::Kind::kScalar:
          event = summary_event(p.wall_time, p.step, scalar_summary(p.text, p.value));
          break;
        case Pending::Kind::kSummary:
          event = summary_event(p.wall_time, p.step, p.text);
          break;
        case Pending::Kind::kDeferred:
          event = summary_event(p.wall_time, p.step, p.build());
          break;
        case Pending::Kind::kEvent:
          event = std::move(p.text);
          break;
      }
    } catch (const std::exception& e) {
      record_error(absl::StrCat("an event for '", p.file->path(), "' could not be made: ",
                                e.what()));
      continue;
    }
    if (!p.file->has_buffered()) touched.push_back(p.file);
    p.file->append(event);
  }
  for (EventFile* f : touched) {
    const std::string error = f->write_buffered();
    if (!error.empty()) record_error(error);
  }
}

void SummaryWriter::Impl::record_error(const std::string& message) {
  bool warn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = message;
    warn = !warned_;
    warned_ = true;
  }
  if (warn) std::cerr << "ember::tensorboard::SummaryWriter: warning: " << message << std::endl;
}

void SummaryWriter::Impl::throw_pending_error_locked() {
  if (error_.empty()) return;
  std::string message = std::move(error_);
  error_.clear();
  throw Error(absl::StrCat("SummaryWriter: ", message));
}

void SummaryWriter::Impl::flush(bool report) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = ++flush_requested_;
  wake_.notify_one();
  done_.wait(lock, [&] { return flush_done_ >= ticket; });
  if (report) throw_pending_error_locked();
}

void SummaryWriter::Impl::close(bool report) {
  std::vector<std::unique_ptr<EventFile>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& kv : files_) closing.push_back(std::move(kv.second));
    files_.clear();
    main_ = nullptr;
  }
  // Every entry for these files was queued before this point.
  flush(/*report=*/false);
  for (auto& f : closing) {
    const std::string error = f->close();
    if (!error.empty()) record_error(error);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (report) throw_pending_error_locked();
}

// ---------------------------------------------------------------------------

SummaryWriter::SummaryWriter(const SummaryWriterOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

SummaryWriter::SummaryWriter(const std::string& log_dir)
    : SummaryWriter(SummaryWriterOptions().log_dir(log_dir)) {}

namespace {

// Note [Writers in forked children]: a child forked while a writer was alive
// holds a copy with no thread behind it; its condition variables still count
// the parent's waiting writer thread, and glibc's pthread_cond_destroy would
// wait for that thread forever. The copy is left alone: never flushed (the
// atexit handler skips it), never destroyed.
void dispose(std::unique_ptr<SummaryWriter::Impl> impl) {
  if (impl != nullptr && !impl->owned_by_this_process()) impl.release();
}

}  // namespace

SummaryWriter::~SummaryWriter() { dispose(std::move(impl_)); }

SummaryWriter::SummaryWriter(SummaryWriter&&) noexcept = default;

SummaryWriter& SummaryWriter::operator=(SummaryWriter&& other) noexcept {
  if (this != &other) {
    dispose(std::move(impl_));
    impl_ = std::move(other.impl_);
  }
  return *this;
}

const std::string& SummaryWriter::get_logdir() const { return impl_->log_dir_; }

std::string SummaryWriter::event_file_path() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->main_ != nullptr ? impl_->main_->path() : "";
}

void SummaryWriter::add_scalar(const std::string& tag, double scalar_value, int64_t global_step,
                               std::optional<double> walltime) {
  const double t = walltime ? *walltime : wall_time_now();
  impl_->push([&] {
    impl_->enqueue_locked(Pending(impl_->main_file_locked(), t, global_step,
                                  Pending::Kind::kScalar, tag, static_cast<float>(scalar_value)));
  });
}

void SummaryWriter::add_scalar(const std::string& tag, const Tensor& scalar_value,
                               int64_t global_step, std::optional<double> walltime) {
  EMBER_CHECK_VALUE(scalar_value.numel() == 1,
                    "Tensor should contain one element (0 dimensions). Was given size: ",
                    scalar_value.numel(), " and ", scalar_value.dim(), " dimensions.");
  add_scalar(tag, scalar_value.item<double>(), global_step, walltime);
}

void SummaryWriter::add_scalars(const std::string& main_tag,
                                const std::vector<std::pair<std::string, double>>& tag_scalar_dict,
                                int64_t global_step, std::optional<double> walltime) {
  const double t = walltime ? *walltime : wall_time_now();
  const std::string prefix = absl::StrReplaceAll(main_tag, {{"/", "_"}});
  impl_->push([&] {
    const std::string base = impl_->main_file_locked()->log_dir();
    for (const auto& [tag, value] : tag_scalar_dict) {
      EventFile* f = impl_->sub_file_locked(absl::StrCat(base, "/", prefix, "_", tag));
      impl_->enqueue_locked(
          Pending(f, t, global_step, Pending::Kind::kScalar, main_tag, static_cast<float>(value)));
    }
  });
}

void SummaryWriter::add_histogram(const std::string& tag, const Tensor& values,
                                  int64_t global_step, const HistogramBins& bins,
                                  std::optional<double> walltime,
                                  std::optional<int64_t> max_bins) {
  impl_->add(Pending::Kind::kSummary, walltime, global_step,
             histogram_summary(tag, make_histogram(values, bins, max_bins)));
}

void SummaryWriter::add_image(const std::string& tag, const Tensor& img_tensor,
                              int64_t global_step, std::optional<double> walltime,
                              const std::string& dataformats) {
  // The pixels are copied here; the PNG is made on the writer thread.
  auto image = std::make_shared<const Image>(to_hwc_image(img_tensor, dataformats));
  impl_->add(Pending::Kind::kDeferred, walltime, global_step, "",
             [tag, image] { return image_summary(tag, *image); }, image->pixels.size());
}

void SummaryWriter::add_images(const std::string& tag, const Tensor& img_tensor,
                               int64_t global_step, std::optional<double> walltime,
                               const std::string& dataformats) {
  add_image(tag, img_tensor, global_step, walltime, dataformats);
}

void SummaryWriter::add_text(const std::string& tag, const std::string& text_string,
                             int64_t global_step, std::optional<double> walltime) {
  impl_->add(Pending::Kind::kSummary, walltime, global_step, text_summary(tag, text_string));
}

void SummaryWriter::add_hparams(const HParamDict& hparam_dict, const MetricDict& metric_dict,
                                const HParamDomains& hparam_domain_discrete,
                                const std::string& run_name, int64_t global_step) {
  const HParamsSummaries s = hparams_summaries(hparam_dict, metric_dict, hparam_domain_discrete);
  std::string base;
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    base = impl_->main_file_locked()->log_dir();
  }
  SummaryWriter run(absl::StrCat(base, "/", run_name.empty() ? python_float(wall_time_now())
                                                             : run_name));
  for (const std::string* summary : {&s.experiment, &s.session_start, &s.session_end}) {
    run.impl_->add(Pending::Kind::kSummary, std::nullopt, global_step, *summary);
  }
  for (const auto& [name, value] : metric_dict) run.add_scalar(name, value, global_step);
  run.close();
}

void SummaryWriter::add_pr_curve(const std::string& tag, const Tensor& labels,
                                 const Tensor& predictions, int64_t global_step,
                                 int64_t num_thresholds, const Tensor& weights,
                                 std::optional<double> walltime) {
  impl_->add(Pending::Kind::kSummary, walltime, global_step,
             pr_curve_summary(tag, labels, predictions, num_thresholds, weights));
}

void SummaryWriter::flush() { impl_->flush(/*report=*/true); }

void SummaryWriter::close() { impl_->close(/*report=*/true); }

}  // namespace tensorboard
}  // namespace ember
