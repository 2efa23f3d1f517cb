#ifndef EMBER_PROFILER_PROFILER_H_
#define EMBER_PROFILER_PROFILER_H_

// PyTorch's torch.profiler in C++: where a program's time goes, op by op.
//
//   profiler::profile prof(profiler::ProfileOptions().record_shapes(true));
//   {
//     profiler::record_function range("model_inference");
//     model->forward(inputs);
//   }
//   prof.stop();
//   std::cout << prof.key_averages().table("cpu_time_total", 10);
//   prof.export_chrome_trace("trace.json");   // Perfetto, chrome://tracing
//
// A profile records, from construction to stop() (or destruction), every
// op's range on every thread of the process (Note [Profiling ranges] in
// tensor/record_function.h says which ops open one), the autograd engine's
// nodes, and the ranges user code opens with record_function. Optionally
// the ops' input shapes, the memory each allocates and frees (the "CPU Mem"
// and "CUDA Mem" columns), and, with ProfilerActivity::CUDA on a machine
// with a GPU, each range's device time from CUDA events (PyTorch's legacy
// use_cuda timing: the device timeline between a range's start and end).
//
// The tables are PyTorch 1.13's (torch.autograd.profiler_util._build_table,
// column for column), so a user reads ember's as they read PyTorch's. Only
// one profile runs at a time. While none runs, an op's range costs one
// relaxed atomic load (BENCHMARKS.md: "Profiler overhead").

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tensor/arg.h"
#include "tensor/record_function.h"

namespace ember {
namespace profiler {

enum class ProfilerActivity { CPU, CUDA };

// The activities a profile records by default: the CPU, and CUDA where a
// device can be used (as torch.profiler's default).
std::vector<ProfilerActivity> supported_activities();

struct ProfileOptions {
  // Empty: supported_activities(), resolved when the profile starts.
  EMBER_ARG(std::vector<ProfilerActivity>, activities);
  // Keep each op's input shapes (key_averages(true) groups by them).
  EMBER_ARG(bool, record_shapes) = false;
  // Count the bytes each range allocates and frees.
  EMBER_ARG(bool, profile_memory) = false;
};

// One range, or (in key_averages' list) the sum of all ranges of one key.
// Times are in microseconds, from the profile's start.
struct FunctionEvent {
  int64_t id = 0;
  // The key the tables group by; "ProfilerStep#N" ranges all show as
  // "ProfilerStep*", as PyTorch's (trace_name keeps the number).
  std::string name;
  std::string trace_name;
  uint64_t thread = 0;
  double start_us = 0;
  double end_us = 0;
  std::vector<std::vector<int64_t>> input_shapes;
  int64_t count = 1;
  double cpu_time_total = 0;
  double self_cpu_time_total = 0;
  double cuda_time_total = 0;
  double self_cuda_time_total = 0;
  int64_t cpu_memory_usage = 0;  // bytes allocated minus freed, children included
  int64_t self_cpu_memory_usage = 0;
  int64_t cuda_memory_usage = 0;
  int64_t self_cuda_memory_usage = 0;
  // The device interval (from the first marker of the profile); -1: none.
  double device_start_us = -1;
  double device_end_us = -1;
  // Indices into the list this event came from (raw events only); -1: none.
  int64_t parent = -1;
  std::vector<int64_t> children;

  const std::string& key() const { return name; }
  double cpu_time() const { return count == 0 ? 0 : cpu_time_total / count; }
  double cuda_time() const { return count == 0 ? 0 : cuda_time_total / count; }
};

struct TableOptions {
  // Any FunctionEvent number: cpu_time_total, self_cpu_time_total,
  // cuda_time_total, self_cuda_time_total, cpu_time, cuda_time,
  // cpu_memory_usage, self_cpu_memory_usage, cuda_memory_usage,
  // self_cuda_memory_usage, count. Empty: the list's order.
  EMBER_ARG(std::string, sort_by);
  EMBER_ARG(int64_t, row_limit) = 100;
  EMBER_ARG(int64_t, max_name_column_width) = 55;
  EMBER_ARG(int64_t, max_shapes_column_width) = 80;
  EMBER_ARG(std::optional<std::string>, header);
  EMBER_ARG(bool, top_level_events_only) = false;
};

class EventList {
 public:
  EventList() = default;
  EventList(std::vector<FunctionEvent> events, bool profile_memory)
      : events_(std::move(events)), profile_memory_(profile_memory) {}

  // PyTorch's EventList.table(sort_by=None, row_limit=100, ...).
  std::string table(const std::string& sort_by = "", int64_t row_limit = 100) const;
  std::string table(const TableOptions& options) const;
  // One event per key (name, and input shapes when asked), in the order
  // the keys first appear, with times, memory and counts summed.
  EventList key_averages(bool group_by_input_shape = false) const;
  // Every event summed into one ("Total").
  FunctionEvent total_average() const;
  // Chrome's trace-event JSON (kineto's layout), for Perfetto.
  void export_chrome_trace(const std::string& path) const;

  size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  const FunctionEvent& operator[](size_t i) const { return events_[i]; }
  std::vector<FunctionEvent>::const_iterator begin() const { return events_.begin(); }
  std::vector<FunctionEvent>::const_iterator end() const { return events_.end(); }
  bool profile_memory() const { return profile_memory_; }

 private:
  std::vector<FunctionEvent> events_;
  bool profile_memory_ = false;
};

std::ostream& operator<<(std::ostream& os, const EventList& events);

// torch.profiler.profile: records from construction until stop().
class profile {
 public:
  explicit profile(ProfileOptions options = ProfileOptions());
  ~profile();
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  // Ends the recording (PyTorch's __exit__); a second call does nothing.
  void stop();
  bool running() const { return running_; }

  // The recorded ranges, in the order they started on each thread; these
  // throw while the profile still runs.
  const EventList& events() const;
  EventList key_averages(bool group_by_input_shape = false) const;
  void export_chrome_trace(const std::string& path) const;

 private:
  ProfileOptions options_;
  bool running_ = false;
  EventList events_;
};

namespace detail {
// The events of a finished session: names shown as PyTorch shows them,
// parents and children linked, self times and memory computed.
EventList build_event_list(const RawSession& session, bool profile_memory);
}  // namespace detail

}  // namespace profiler

// libtorch's legacy spelling: records while in scope, then writes a Chrome
// trace to `path`.
namespace autograd {
namespace profiler {
class RecordProfile {
 public:
  explicit RecordProfile(std::string path);
  ~RecordProfile();
  RecordProfile(const RecordProfile&) = delete;
  RecordProfile& operator=(const RecordProfile&) = delete;

 private:
  std::string path_;
  ::ember::profiler::profile profile_;
};
}  // namespace profiler
}  // namespace autograd
}  // namespace ember

// ATen's RECORD_FUNCTION(name, inputs): a range named `name` (a string)
// around the rest of the enclosing scope. The inputs are accepted for
// libtorch's spelling; the range keeps no shapes.
#define EMBER_PROFILER_CONCAT_(a, b) a##b
#define EMBER_PROFILER_CONCAT(a, b) EMBER_PROFILER_CONCAT_(a, b)
#define RECORD_FUNCTION(name, ...) \
  ::ember::profiler::record_function EMBER_PROFILER_CONCAT(ember_record_function_, __LINE__)(name)

#endif  // EMBER_PROFILER_PROFILER_H_
