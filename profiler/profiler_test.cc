// //profiler: the tables against PyTorch 1.13's own _build_table on the same
// ranges (tools/golden/profiler_table.py), then what a profile records from
// real ops, autograd and threads, memory, device markers (a fake timer) and
// the Chrome trace.

#include "profiler/profiler.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autograd/autograd.h"
#include "gtest/gtest.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "serialize/json.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"

namespace ember {
namespace profiler {
namespace {

using detail::RawRange;
using detail::RawSession;

struct GoldenTable {
  const char* name;
  bool with_cuda, with_shapes, profile_memory, averaged, group_by_shapes;
  const char* sort_by;
  int64_t row_limit, max_name_column_width;
  const char* header;
  bool top_level_only;
  const char* table;
};

#include "profiler/testdata/profiler_table_golden.inc"

RawSession golden_session(bool with_cuda, bool with_shapes) {
  RawSession s;
  s.ranges = {EMBER_PROFILER_GOLDEN_RANGES};
  for (RawRange& r : s.ranges) {
    if (!with_cuda) r.device_start_us = r.device_end_us = -1;
    if (!with_shapes) r.input_shapes.clear();
  }
  return s;
}

TEST(ProfilerTable, MatchesPyTorchsTablesForTheSameRanges) {
  const GoldenTable cases[] = {EMBER_PROFILER_GOLDEN_TABLES};
  for (const GoldenTable& c : cases) {
    SCOPED_TRACE(c.name);
    EventList events =
        detail::build_event_list(golden_session(c.with_cuda, c.with_shapes), c.profile_memory);
    if (c.averaged) events = events.key_averages(c.group_by_shapes);
    TableOptions o;
    o.sort_by(c.sort_by).row_limit(c.row_limit).max_name_column_width(c.max_name_column_width);
    o.top_level_events_only(c.top_level_only);
    if (std::string(c.header) != "") o.header(std::string(c.header));
    EXPECT_EQ(events.table(o), c.table);
  }
}

TEST(ProfilerTable, EventsHaveSelfTimesChildrenAndMemoryTotals) {
  const EventList events = detail::build_event_list(golden_session(false, false), true);
  ASSERT_EQ(events.size(), 12u);
  // Sorted by start: model_inference, convolution, copy_, the long user range...
  EXPECT_EQ(events[0].name, "model_inference");
  EXPECT_EQ(events[1].name, "aten::convolution");
  EXPECT_EQ(events[2].name, "aten::copy_");
  EXPECT_EQ(events[3].name, "a_long_user_range_name_that_is_longer_than_the_name_column_is_wide");
  EXPECT_EQ(events[2].parent, 1);
  EXPECT_EQ(events[1].parent, 0);
  EXPECT_EQ(events[3].parent, -1);
  EXPECT_EQ(events[1].children, std::vector<int64_t>{2});
  EXPECT_DOUBLE_EQ(events[1].cpu_time_total, 1200.25);
  EXPECT_DOUBLE_EQ(events[1].self_cpu_time_total, 1200.25 - 50.0);
  // model_inference allocates nothing itself; its children's bytes add up.
  EXPECT_EQ(events[0].self_cpu_memory_usage, 0);
  EXPECT_EQ(events[0].cpu_memory_usage, 4096 - 2048 + 1572864 + 2147483648LL + 320);
  EXPECT_THROW(events.table("wall_time"), ValueError);
}

// --- live profiles ----------------------------------------------------------

const FunctionEvent* find(const EventList& events, const std::string& name) {
  for (const FunctionEvent& e : events) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

int64_t count_of(const EventList& averages, const std::string& name) {
  const FunctionEvent* e = find(averages, name);
  return e == nullptr ? 0 : e->count;
}

ProfileOptions cpu_only() { return ProfileOptions().activities({ProfilerActivity::CPU}); }

TEST(Profile, RecordsEachOpCallWithPyTorchsNames) {
  Tensor a = randn({4, 3});
  Tensor b = randn({4, 3});
  Tensor outside = a + b;  // before the profile: not recorded
  profile prof(cpu_only());
  for (int i = 0; i < 3; ++i) Tensor c = a + b;
  a.add_(b);
  Tensor m = a.mul(2);
  Tensor s = a.sum();
  Tensor t = mm(a, b.t());
  prof.stop();
  Tensor after = a + b;  // after stop: not recorded
  const EventList avg = prof.key_averages();
  EXPECT_EQ(count_of(avg, "aten::add"), 3);
  EXPECT_EQ(count_of(avg, "aten::add_"), 1);
  EXPECT_EQ(count_of(avg, "aten::mul"), 1);
  EXPECT_EQ(count_of(avg, "aten::sum_all"), 1);
  EXPECT_EQ(count_of(avg, "aten::mm"), 1);
  for (const FunctionEvent& e : prof.events()) {
    EXPECT_GE(e.start_us, 0);
    EXPECT_GE(e.end_us, e.start_us);
  }
}

TEST(Profile, NestsOpsInUserRangesAndComputesSelfTime) {
  Tensor a = randn({64, 64});
  profile prof(cpu_only());
  {
    record_function outer("outer");
    Tensor b = a + a;
    {
      record_function inner("inner");
      Tensor c = mm(a, a);
    }
  }
  prof.stop();
  const EventList& ev = prof.events();
  const FunctionEvent* outer = find(ev, "outer");
  const FunctionEvent* inner = find(ev, "inner");
  const FunctionEvent* add = find(ev, "aten::add");
  const FunctionEvent* mm_ev = find(ev, "aten::mm");
  ASSERT_TRUE(outer && inner && add && mm_ev);
  EXPECT_EQ(outer->parent, -1);
  EXPECT_EQ(ev[add->parent].name, "outer");
  EXPECT_EQ(ev[inner->parent].name, "outer");
  EXPECT_EQ(ev[mm_ev->parent].name, "inner");
  EXPECT_EQ(outer->children.size(), 2u);
  EXPECT_DOUBLE_EQ(outer->self_cpu_time_total,
                   outer->cpu_time_total - (add->cpu_time_total + inner->cpu_time_total));
  EXPECT_LE(inner->start_us, mm_ev->start_us);
  EXPECT_GE(inner->end_us, mm_ev->end_us);
  EXPECT_EQ(add->thread, outer->thread);
}

TEST(Profile, BackwardRecordsEngineRangesAroundEachNode) {
  Tensor x = randn({3, 3}).requires_grad_(true);
  profile prof(cpu_only());
  Tensor y = (x * x).sum();
  y.backward();
  prof.stop();
  const EventList& ev = prof.events();
  const FunctionEvent* eval = find(ev, "autograd::engine::evaluate_function: MulBackward0");
  const FunctionEvent* node = find(ev, "MulBackward0");
  ASSERT_TRUE(eval && node);
  EXPECT_EQ(ev[node->parent].name, eval->name);
  // The gradient's own ops run inside the node.
  bool mul_inside = false;
  for (int64_t c : node->children) mul_inside = mul_inside || ev[c].name == "aten::mul";
  EXPECT_TRUE(mul_inside);
  EXPECT_NE(find(ev, "torch::autograd::AccumulateGrad"), nullptr);
  EXPECT_NE(find(ev, "autograd::engine::evaluate_function: SumBackward0"), nullptr);
}

TEST(Profile, TrainingStepShowsForwardBackwardAndOptimizerOps) {
  manual_seed(0);
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(1, 4, 3)), nn::ReLU(),
                     nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                     nn::Linear(4 * 3 * 3, 10));
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  Tensor x = randn({8, 1, 8, 8});
  Tensor target = randint(0, 10, {8});
  profile prof(cpu_only());
  opt.zero_grad();
  Tensor loss = nn::functional::cross_entropy(net->forward(x), target);
  loss.backward();
  opt.step();
  prof.stop();
  const EventList avg = prof.key_averages();
  for (const char* name :
       {"aten::convolution", "aten::max_pool2d_with_indices", "aten::log_softmax",
        "autograd::engine::evaluate_function: ConvolutionBackward0", "ConvolutionBackward0",
        "aten::convolution_backward", "torch::autograd::AccumulateGrad",
        "Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step"}) {
    EXPECT_NE(find(avg, name), nullptr) << name << "\n" << avg.table("cpu_time_total");
  }
  // The table prints every key once.
  const std::string table = avg.table("self_cpu_time_total");
  EXPECT_NE(table.find("Self CPU time total: "), std::string::npos);
  EXPECT_NE(table.find("aten::convolution  "), std::string::npos);
}

TEST(Profile, RecordsInputShapesWhenAsked) {
  Tensor a = randn({2, 3});
  Tensor b = randn({5});
  {
    profile prof(cpu_only());
    Tensor c = a + a;
    prof.stop();
    EXPECT_TRUE(find(prof.events(), "aten::add")->input_shapes.empty());
  }
  profile prof(cpu_only().record_shapes(true));
  Tensor c = a + a;
  Tensor d = b + b;
  Tensor e = a + a;
  prof.stop();
  const FunctionEvent* add = find(prof.events(), "aten::add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {2, 3}}));
  EXPECT_EQ(count_of(prof.key_averages(), "aten::add"), 3);
  const EventList by_shape = prof.key_averages(/*group_by_input_shape=*/true);
  int64_t rows = 0;
  for (const FunctionEvent& ev : by_shape) {
    if (ev.name != "aten::add") continue;
    ++rows;
    EXPECT_EQ(ev.count, (ev.input_shapes[0] == std::vector<int64_t>{2, 3}) ? 2 : 1);
  }
  EXPECT_EQ(rows, 2);
  EXPECT_NE(by_shape.table().find("[[2, 3], [2, 3]]"), std::string::npos);
}

TEST(Profile, CountsMemoryAllocatedAndFreedInEachRange) {
  Tensor a = randn({256});
  Tensor kept;
  profile prof(cpu_only().profile_memory(true));
  {
    record_function keep("keep");
    kept = a + a;  // 1 KiB allocated by add, kept
  }
  {
    record_function drop("drop");
    Tensor t = a + a;  // allocated by add, freed when the scope ends
  }
  prof.stop();
  const EventList& ev = prof.events();
  const FunctionEvent* keep = find(ev, "keep");
  const FunctionEvent* drop = find(ev, "drop");
  ASSERT_TRUE(keep && drop);
  EXPECT_EQ(ev[keep->children.at(0)].self_cpu_memory_usage, 1024);
  EXPECT_EQ(keep->cpu_memory_usage, 1024);
  EXPECT_EQ(keep->self_cpu_memory_usage, 0);
  EXPECT_EQ(drop->cpu_memory_usage, 0);
  EXPECT_EQ(drop->self_cpu_memory_usage, -1024);
  const std::string table = prof.key_averages().table();
  EXPECT_NE(table.find("Self CPU Mem"), std::string::npos);
  EXPECT_NE(table.find("1.00 Kb"), std::string::npos);
  EXPECT_NE(table.find("-1.00 Kb"), std::string::npos);
}

TEST(Profile, SeesOpsOnOtherThreadsWithTheirOwnThreadId) {
  Tensor a = randn({8});
  profile prof(cpu_only());
  Tensor here = a + a;
  std::thread worker([&] {
    record_function r("worker");
    Tensor there = a * a;
  });
  worker.join();
  prof.stop();
  const EventList& ev = prof.events();
  const FunctionEvent* add = find(ev, "aten::add");
  const FunctionEvent* mul = find(ev, "aten::mul");
  ASSERT_TRUE(add && mul);
  EXPECT_NE(add->thread, mul->thread);
  EXPECT_EQ(ev[mul->parent].name, "worker");
}

TEST(Profile, OneAtATimeAndReadOnlyOnceStopped) {
  profile prof(cpu_only());
  try {
    profile second(cpu_only());
    FAIL() << "a second profile started";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Profiler is already enabled"), std::string::npos);
  }
  try {
    (void)prof.events();
    FAIL() << "events of a running profile";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Profiler didn't finish running"), std::string::npos);
  }
  prof.stop();
  prof.stop();  // a second stop does nothing
  EXPECT_TRUE(prof.events().empty());
  profile again(cpu_only());  // the first has ended: a new one may start
  again.stop();
}

TEST(Profile, AnOpThatThrowsStillClosesItsRanges) {
  profile prof(cpu_only());
  {
    record_function r("failing");
    EXPECT_THROW(randn({2, 3}) + randn({4, 5}), Error);
  }
  Tensor ok = randn({2}) + randn({2});
  prof.stop();
  const EventList& ev = prof.events();
  const FunctionEvent* failing = find(ev, "failing");
  ASSERT_NE(failing, nullptr);
  for (const FunctionEvent& e : ev) {
    if (e.name == "aten::add" && e.parent >= 0) {
      EXPECT_EQ(ev[e.parent].name, "failing");
    }
  }
  // The add after the failure is a top-level event, not failing's child.
  int64_t top_level_adds = 0;
  for (const FunctionEvent& e : ev) top_level_adds += e.name == "aten::add" && e.parent < 0;
  EXPECT_EQ(top_level_adds, 1);
}

// Device markers from a fake timer: each marker is 10 us after the last.
class FakeTimer : public detail::DeviceTimer {
 public:
  void* mark() override { return reinterpret_cast<void*>(++next_); }
  void synchronize() override { ++syncs; }
  double elapsed_us(void* a, void* b) override {
    return 10.0 *
           static_cast<double>(reinterpret_cast<intptr_t>(b) - reinterpret_cast<intptr_t>(a));
  }
  void release(void*) override { ++released; }
  int syncs = 0;
  int released = 0;

 private:
  intptr_t next_ = 0;
};

TEST(Profile, CudaActivityTimesRangesWithDeviceMarkers) {
  FakeTimer timer;
  detail::DeviceTimer* previous = detail::device_timer();
  detail::set_device_timer(&timer);
  {
    Tensor x = ones({4});  // before the profile: fill_ sets no markers
    profile prof(ProfileOptions().activities({ProfilerActivity::CPU, ProfilerActivity::CUDA}));
    {
      record_function outer("outer");  // markers 2 and 5 (1 is the profile's)
      Tensor c = x * 2;                // markers 3 and 4
    }
    prof.stop();
    EXPECT_EQ(timer.syncs, 1);
    const EventList& ev = prof.events();
    const FunctionEvent* outer = find(ev, "outer");
    const FunctionEvent* mul = find(ev, "aten::mul");
    ASSERT_TRUE(outer && mul);
    EXPECT_DOUBLE_EQ(outer->device_start_us, 10);
    EXPECT_DOUBLE_EQ(outer->cuda_time_total, 30);
    EXPECT_DOUBLE_EQ(mul->cuda_time_total, 10);
    EXPECT_DOUBLE_EQ(outer->self_cuda_time_total, 20);
    const std::string table = prof.key_averages().table("self_cuda_time_total");
    EXPECT_NE(table.find("Self CUDA %"), std::string::npos);
    EXPECT_NE(table.find("Self CUDA time total: 30.000us"), std::string::npos);
    EXPECT_EQ(timer.released, 5);  // every marker is given back
  }
  // Without the CUDA activity there are no markers.
  {
    Tensor x = ones({4});
    profile prof(cpu_only());
    Tensor c = x * 2;
    prof.stop();
    EXPECT_EQ(find(prof.events(), "aten::mul")->cuda_time_total, 0);
    EXPECT_EQ(timer.released, 5);
  }
  detail::set_device_timer(previous);
}

// On a GPU: the CUDA events of the real timer, and device memory.
TEST(Profile, CudaOpsGetDeviceTimeAndMemory) {
  if (!cuda::is_available()) GTEST_SKIP() << "no usable CUDA device on this machine";
  Tensor a = randn({512, 512}).to(kCUDA);
  Tensor warm = mm(a, a);  // cuBLAS's handle and workspace before the profile
  profile prof(ProfileOptions()
                   .activities({ProfilerActivity::CPU, ProfilerActivity::CUDA})
                   .profile_memory(true));
  Tensor c = mm(a, a);
  prof.stop();
  const FunctionEvent* mm_ev = find(prof.events(), "aten::mm");
  ASSERT_NE(mm_ev, nullptr);
  EXPECT_GT(mm_ev->cuda_time_total, 0);
  EXPECT_GE(mm_ev->device_start_us, 0);
  EXPECT_EQ(mm_ev->cuda_memory_usage, 512 * 512 * 4);
  EXPECT_EQ(mm_ev->cpu_memory_usage, 0);
  const std::string table = prof.key_averages().table("self_cuda_time_total");
  EXPECT_NE(table.find("Self CUDA time total: "), std::string::npos) << table;
  EXPECT_NE(table.find("Self CUDA Mem"), std::string::npos) << table;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The trace's complete ("ph": "X") events, read with serialize's strict
// JSON parser: a file it accepts is one a viewer can load.
std::vector<const json::Value*> complete_events(const json::Value& trace) {
  std::vector<const json::Value*> out;
  const json::Value* events = trace.find("traceEvents");
  EXPECT_TRUE(events != nullptr && events->is_array());
  if (events == nullptr || !events->is_array()) return out;
  for (const json::Value& e : events->array()) {
    const json::Value* ph = e.find("ph");
    if (ph != nullptr && ph->is_string() && ph->string() == "X") out.push_back(&e);
  }
  return out;
}

bool has_event_named(const std::vector<const json::Value*>& events, const std::string& name) {
  return std::any_of(events.begin(), events.end(), [&](const json::Value* e) {
    const json::Value* n = e->find("name");
    return n != nullptr && n->is_string() && n->string() == name;
  });
}

TEST(Profile, ExportsAChromeTraceWithEveryRange) {
  const std::string path = ::testing::TempDir() + "/trace.json";
  Tensor a = randn({2, 3});
  profile prof(cpu_only().record_shapes(true));
  {
    record_function r("step \"1\"");
    Tensor b = a + a;
  }
  prof.stop();
  prof.export_chrome_trace(path);
  const std::string text = read_file(path);
  const json::Value trace = json::parse(text);  // throws on malformed JSON
  const std::vector<const json::Value*> events = complete_events(trace);
  EXPECT_EQ(events.size(), prof.events().size());
  EXPECT_TRUE(has_event_named(events, "step \"1\""));  // escaped and read back
  EXPECT_TRUE(has_event_named(events, "aten::add"));
  EXPECT_NE(text.find("\"Input Dims\": [[2, 3], [2, 3]]"), std::string::npos);
  // An unwritable path is an error that names it, and leaves nothing behind.
  const std::string bad = ::testing::TempDir() + "/no/such/dir/trace.json";
  try {
    prof.export_chrome_trace(bad);
    FAIL() << "wrote into a missing directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
  }
  std::remove(path.c_str());
}

TEST(Profile, LibtorchsRecordProfileAndRecordFunctionMacro) {
  const std::string path = ::testing::TempDir() + "/record_profile.json";
  {
    autograd::profiler::RecordProfile guard(path);
    RECORD_FUNCTION("my_block", std::vector<Tensor>{});
    Tensor b = randn({3}) + 1;
  }
  const std::vector<const json::Value*> events = complete_events(json::parse(read_file(path)));
  EXPECT_TRUE(has_event_named(events, "my_block"));
  EXPECT_TRUE(has_event_named(events, "aten::add"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace profiler
}  // namespace ember
