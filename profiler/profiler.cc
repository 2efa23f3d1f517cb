#include "profiler/profiler.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tensor/error.h"

namespace ember {
namespace profiler {

std::vector<ProfilerActivity> supported_activities() {
  std::vector<ProfilerActivity> a{ProfilerActivity::CPU};
  detail::DeviceTimer* timer = detail::device_timer();
  if (timer != nullptr) {
    void* m = timer->mark();  // a marker is made only where a device works
    if (m != nullptr) {
      timer->release(m);
      a.push_back(ProfilerActivity::CUDA);
    }
  }
  return a;
}

namespace {

// --- PyTorch's number formats (torch/autograd/profiler_util.py) -------------

std::string format_time(double us) {
  if (us >= 1e6) return absl::StrFormat("%.3fs", us / 1e6);
  if (us >= 1e3) return absl::StrFormat("%.3fms", us / 1e3);
  return absl::StrFormat("%.3fus", us);
}

std::string format_time_share(double us, double total_us) {
  if (total_us == 0) return "NaN";
  return absl::StrFormat("%.2f%%", us * 100.0 / total_us);
}

std::string format_memory(int64_t nbytes) {
  const double kb = 1024, mb = 1024 * kb, gb = 1024 * mb;
  const double n = static_cast<double>(nbytes);
  if (std::abs(n) >= gb) return absl::StrFormat("%.2f Gb", n / gb);
  if (std::abs(n) >= mb) return absl::StrFormat("%.2f Mb", n / mb);
  if (std::abs(n) >= kb) return absl::StrFormat("%.2f Kb", n / kb);
  return absl::StrCat(nbytes, " b");
}

// Python's str() of a list of lists of ints.
std::string shapes_str(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) s += ", ";
    s += "[" + absl::StrJoin(shapes[i], ", ") + "]";
  }
  return s + "]";
}

std::string display_name(const detail::RawRange& r) {
  switch (r.kind) {
    case RangeKind::kOp:
      return absl::StrCat("aten::", r.name);
    case RangeKind::kInplaceOp: {
      std::string n = absl::StrCat("aten::", r.name);
      if (n.back() != '_') n += '_';
      return n;
    }
    default:
      return r.name;
  }
}

double sort_value(const FunctionEvent& e, const std::string& key) {
  if (key == "cpu_time_total") return e.cpu_time_total;
  if (key == "self_cpu_time_total") return e.self_cpu_time_total;
  if (key == "cuda_time_total") return e.cuda_time_total;
  if (key == "self_cuda_time_total") return e.self_cuda_time_total;
  if (key == "cpu_time") return e.cpu_time();
  if (key == "cuda_time") return e.cuda_time();
  if (key == "cpu_memory_usage") return static_cast<double>(e.cpu_memory_usage);
  if (key == "self_cpu_memory_usage") return static_cast<double>(e.self_cpu_memory_usage);
  if (key == "cuda_memory_usage") return static_cast<double>(e.cuda_memory_usage);
  if (key == "self_cuda_memory_usage") return static_cast<double>(e.self_cuda_memory_usage);
  if (key == "count") return static_cast<double>(e.count);
  throw ValueError(absl::StrCat(
      "table: sort_by must be one of cpu_time_total, self_cpu_time_total, cuda_time_total, "
      "self_cuda_time_total, cpu_time, cuda_time, cpu_memory_usage, self_cpu_memory_usage, "
      "cuda_memory_usage, self_cuda_memory_usage, count, but got '",
      key, "'"));
}

// The columns of one table, laid out as _build_table's row_format.
class Columns {
 public:
  void add(int64_t width, bool left = false) {
    widths_.push_back(width);
    left_.push_back(left);
    line_length_ += width + kSpacing;
  }
  std::string row(const std::vector<std::string>& values) const {
    std::string s;
    for (size_t i = 0; i < widths_.size(); ++i) {
      const std::string& v = values[i];
      const size_t w = static_cast<size_t>(widths_[i]);
      const std::string pad = v.size() < w ? std::string(w - v.size(), ' ') : "";
      s += left_[i] ? v + pad : pad + v;
      s += std::string(kSpacing, ' ');
    }
    return s;
  }
  std::string separator() const {
    std::string s;
    for (int64_t w : widths_) s += std::string(w, '-') + std::string(kSpacing, ' ');
    return s;
  }
  int64_t line_length() const { return line_length_; }

 private:
  static constexpr int64_t kSpacing = 2;
  std::vector<int64_t> widths_;
  std::vector<bool> left_;
  int64_t line_length_ = -kSpacing;
};

// FunctionEventAvg.add: e's times, memory and count summed into a.
void add_into(FunctionEvent& a, const FunctionEvent& e) {
  a.cpu_time_total += e.cpu_time_total;
  a.cuda_time_total += e.cuda_time_total;
  a.self_cpu_time_total += e.self_cpu_time_total;
  a.self_cuda_time_total += e.self_cuda_time_total;
  a.cpu_memory_usage += e.cpu_memory_usage;
  a.cuda_memory_usage += e.cuda_memory_usage;
  a.self_cpu_memory_usage += e.self_cpu_memory_usage;
  a.self_cuda_memory_usage += e.self_cuda_memory_usage;
  a.count += e.count;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

// --- EventList ------------------------------------------------------------

std::string EventList::table(const std::string& sort_by, int64_t row_limit) const {
  return table(TableOptions().sort_by(sort_by).row_limit(row_limit));
}

std::string EventList::table(const TableOptions& o) const {
  if (events_.empty()) return "";
  std::vector<const FunctionEvent*> events;
  for (const FunctionEvent& e : events_) events.push_back(&e);
  bool has_cuda_time = false, has_cuda_mem = false, has_shapes = false;
  for (const FunctionEvent* e : events) {
    has_cuda_time = has_cuda_time || e->self_cuda_time_total > 0;
    has_cuda_mem = has_cuda_mem || e->self_cuda_memory_usage > 0;
    has_shapes = has_shapes || !e->input_shapes.empty();
  }
  if (!o.sort_by().empty()) {
    std::vector<std::pair<double, const FunctionEvent*>> keyed;
    for (const FunctionEvent* e : events) keyed.emplace_back(sort_value(*e, o.sort_by()), e);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < keyed.size(); ++i) events[i] = keyed[i].second;
  }
  int64_t name_width = 0, shapes_width = 0;
  for (const FunctionEvent* e : events) {
    name_width = std::max<int64_t>(name_width, e->key().size() + 4);
    shapes_width = std::max<int64_t>(shapes_width, shapes_str(e->input_shapes).size() + 4);
  }
  name_width = std::min(name_width, o.max_name_column_width());
  shapes_width = std::min(shapes_width, o.max_shapes_column_width());

  std::vector<std::string> headers{"Name",        "Self CPU %", "Self CPU",
                                   "CPU total %", "CPU total",  "CPU time avg"};
  if (has_cuda_time) {
    for (const char* h : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"}) {
      headers.push_back(h);
    }
  }
  if (profile_memory_) {
    headers.push_back("CPU Mem");
    headers.push_back("Self CPU Mem");
    if (has_cuda_mem) {
      headers.push_back("CUDA Mem");
      headers.push_back("Self CUDA Mem");
    }
  }
  headers.push_back("# of Calls");
  constexpr int64_t kDefaultWidth = 12;
  Columns cols;
  cols.add(name_width);
  for (size_t i = 1; i < headers.size(); ++i) cols.add(kDefaultWidth);
  if (has_shapes) {
    headers.push_back("Input Shapes");
    cols.add(shapes_width);
  }

  double sum_self_cpu = 0, sum_self_cuda = 0;
  for (const FunctionEvent* e : events) {
    sum_self_cpu += e->self_cpu_time_total;
    sum_self_cuda += e->self_cuda_time_total;
  }
  std::string out;
  auto append = [&](const std::string& s) { out += s + "\n"; };
  if (o.header().has_value()) {
    append(std::string(cols.line_length(), '='));
    append(*o.header());
  }
  if (o.top_level_events_only()) {
    append(std::string(cols.line_length(), '='));
    append("This report only display top-level ops statistics");
  }
  append(cols.separator());
  append(cols.row(headers));
  append(cols.separator());
  int64_t shown = 0;
  for (const FunctionEvent* e : events) {
    if (shown == o.row_limit()) break;
    if (o.top_level_events_only() && e->parent >= 0) continue;
    ++shown;
    std::string name = e->key();
    const int64_t max_name = o.max_name_column_width();
    if (static_cast<int64_t>(name.size()) >= max_name - 3)
      name = name.substr(0, max_name - 3) + "...";
    std::vector<std::string> row{name,
                                 format_time_share(e->self_cpu_time_total, sum_self_cpu),
                                 format_time(e->self_cpu_time_total),
                                 format_time_share(e->cpu_time_total, sum_self_cpu),
                                 format_time(e->cpu_time_total),
                                 format_time(e->cpu_time())};
    if (has_cuda_time) {
      row.push_back(format_time(e->self_cuda_time_total));
      row.push_back(format_time_share(e->self_cuda_time_total, sum_self_cuda));
      row.push_back(format_time(e->cuda_time_total));
      row.push_back(format_time(e->cuda_time()));
    }
    if (profile_memory_) {
      row.push_back(format_memory(e->cpu_memory_usage));
      row.push_back(format_memory(e->self_cpu_memory_usage));
      if (has_cuda_mem) {
        row.push_back(format_memory(e->cuda_memory_usage));
        row.push_back(format_memory(e->self_cuda_memory_usage));
      }
    }
    row.push_back(absl::StrCat(e->count));
    if (has_shapes) row.push_back(shapes_str(e->input_shapes).substr(0, shapes_width));
    append(cols.row(row));
  }
  append(cols.separator());
  append("Self CPU time total: " + format_time(sum_self_cpu));
  if (has_cuda_time) append("Self CUDA time total: " + format_time(sum_self_cuda));
  return out;
}

EventList EventList::key_averages(bool group_by_input_shape) const {
  std::vector<FunctionEvent> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const FunctionEvent& e : events_) {
    const auto key =
        std::make_pair(e.key(), group_by_input_shape ? shapes_str(e.input_shapes) : "");
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      FunctionEvent a;
      a.id = static_cast<int64_t>(out.size());
      a.name = e.name;
      a.thread = e.thread;
      a.input_shapes = e.input_shapes;
      a.parent = e.parent;
      a.count = 0;
      out.push_back(std::move(a));
    }
    add_into(out[it->second], e);
  }
  return EventList(std::move(out), profile_memory_);
}

FunctionEvent EventList::total_average() const {
  FunctionEvent t;
  t.name = "Total";
  t.count = 0;
  for (const FunctionEvent& e : events_) add_into(t, e);
  return t;
}

void EventList::export_chrome_trace(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(f.good(), "export_chrome_trace: cannot open '", path, "' for writing");
    const int pid = static_cast<int>(getpid());
    f << "{\n  \"schemaVersion\": 1,\n  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [";
    bool first = true;
    auto sep = [&] {
      f << (first ? "\n    " : ",\n    ");
      first = false;
    };
    sep();
    f << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << pid
      << ", \"tid\": 0, \"args\": {\"name\": \"ember\"}}";
    bool any_device = false;
    for (const FunctionEvent& e : events_) {
      sep();
      const bool op = e.name.rfind("aten::", 0) == 0;
      const std::string& trace = e.trace_name.empty() ? e.name : e.trace_name;
      f << "{\"ph\": \"X\", \"cat\": \"" << (op ? "cpu_op" : "user_annotation")
        << "\", \"name\": " << json_string(trace) << ", \"pid\": " << pid
        << ", \"tid\": " << e.thread << ", \"ts\": " << absl::StrFormat("%.3f", e.start_us)
        << ", \"dur\": " << absl::StrFormat("%.3f", e.end_us - e.start_us) << ", \"args\": {";
      f << "\"External id\": " << e.id;
      if (!e.input_shapes.empty()) f << ", \"Input Dims\": " << shapes_str(e.input_shapes);
      f << "}}";
      if (e.device_start_us >= 0 && e.device_end_us >= e.device_start_us) {
        any_device = true;
        sep();
        f << "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": " << json_string(trace)
          << ", \"pid\": \"CUDA\", \"tid\": \"stream 0\", \"ts\": "
          << absl::StrFormat("%.3f", e.device_start_us)
          << ", \"dur\": " << absl::StrFormat("%.3f", e.device_end_us - e.device_start_us)
          << ", \"args\": {\"External id\": " << e.id << "}}";
      }
    }
    if (any_device) {
      sep();
      f << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": \"CUDA\", \"tid\": 0, "
           "\"args\": {\"name\": \"CUDA (device timeline, legacy default stream)\"}}";
    }
    f << "\n  ]\n}\n";
    f.flush();
    EMBER_CHECK(f.good(), "export_chrome_trace: writing '", path, "' failed");
  }
  EMBER_CHECK(std::rename(tmp.c_str(), path.c_str()) == 0, "export_chrome_trace: cannot rename '",
              tmp, "' to '", path, "'");
}

std::ostream& operator<<(std::ostream& os, const EventList& events) { return os << events.table(); }

// --- profile ------------------------------------------------------------------

profile::profile(ProfileOptions options) : options_(std::move(options)) {
  detail::SessionOptions s;
  s.record_shapes = options_.record_shapes();
  s.profile_memory = options_.profile_memory();
  if (options_.activities().empty()) options_.activities(supported_activities());
  s.device_timing = std::find(options_.activities().begin(), options_.activities().end(),
                              ProfilerActivity::CUDA) != options_.activities().end();
  detail::start(s);
  running_ = true;
}

profile::~profile() {
  if (running_) detail::stop();
}

void profile::stop() {
  if (!running_) return;
  running_ = false;
  events_ = detail::build_event_list(detail::stop(), options_.profile_memory());
}

const EventList& profile::events() const {
  EMBER_CHECK(!running_, "Profiler didn't finish running: call stop() before reading its events");
  return events_;
}

EventList profile::key_averages(bool group_by_input_shape) const {
  return events().key_averages(group_by_input_shape);
}

void profile::export_chrome_trace(const std::string& path) const {
  events().export_chrome_trace(path);
}

namespace detail {

EventList build_event_list(const RawSession& session, bool profile_memory) {
  const size_t n = session.ranges.size();
  // PyTorch's order: by start, the enclosing range first.
  std::vector<size_t> order(n), position(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const RawRange& x = session.ranges[a];
    const RawRange& y = session.ranges[b];
    return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
  });
  for (size_t i = 0; i < n; ++i) position[order[i]] = i;
  std::vector<FunctionEvent> events(n);
  for (size_t i = 0; i < n; ++i) {
    const RawRange& r = session.ranges[order[i]];
    FunctionEvent& e = events[i];
    e.id = static_cast<int64_t>(i);
    e.trace_name = display_name(r);
    e.name = e.trace_name.rfind("ProfilerStep#", 0) == 0 ? "ProfilerStep*" : e.trace_name;
    e.thread = r.thread;
    e.start_us = static_cast<double>(r.start_ns - session.start_ns) / 1000.0;
    e.end_us = static_cast<double>(r.end_ns - session.start_ns) / 1000.0;
    e.cpu_time_total = e.end_us - e.start_us;
    e.input_shapes = r.input_shapes;
    e.self_cpu_memory_usage = r.self_cpu_mem;
    e.self_cuda_memory_usage = r.self_cuda_mem;
    e.device_start_us = r.device_start_us;
    e.device_end_us = r.device_end_us;
    if (r.device_start_us >= 0 && r.device_end_us >= r.device_start_us) {
      e.cuda_time_total = r.device_end_us - r.device_start_us;
    }
    e.parent = r.parent >= 0 ? static_cast<int64_t>(position[r.parent]) : -1;
  }
  for (const FunctionEvent& e : events) {
    if (e.parent >= 0) events[e.parent].children.push_back(e.id);
  }
  // Children follow their parents: totals of memory accumulate upward.
  for (size_t i = n; i-- > 0;) {
    FunctionEvent& e = events[i];
    e.cpu_memory_usage = e.self_cpu_memory_usage;
    e.cuda_memory_usage = e.self_cuda_memory_usage;
    for (int64_t c : e.children) {
      e.cpu_memory_usage += events[c].cpu_memory_usage;
      e.cuda_memory_usage += events[c].cuda_memory_usage;
    }
  }
  for (FunctionEvent& e : events) {
    double cpu = 0, cuda = 0;
    for (int64_t c : e.children) {
      cpu += events[c].cpu_time_total;
      cuda += events[c].cuda_time_total;
    }
    e.self_cpu_time_total = e.cpu_time_total - cpu;
    e.self_cuda_time_total = e.cuda_time_total - cuda;
  }
  return EventList(std::move(events), profile_memory);
}

}  // namespace detail
}  // namespace profiler

namespace autograd {
namespace profiler {

RecordProfile::RecordProfile(std::string path) : path_(std::move(path)) {}

RecordProfile::~RecordProfile() {
  profile_.stop();
  try {
    profile_.export_chrome_trace(path_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "RecordProfile: %s\n", e.what());  // a destructor cannot throw
  }
}

}  // namespace profiler
}  // namespace autograd
}  // namespace ember
