#include "serialize/checkpoint.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "serialize/atomic_file.h"
#include "serialize/pt.h"
#include "serialize/test_util.h"
#include "tensor/crc32c.h"
#include "tensor/creation.h"
#include "tensor/cuda/cuda.h"
#include "tensor/error.h"
#include "tensor/shape.h"
#include "tensor/testing/golden.h"

namespace ember {
namespace {

using serialize_testing::read_bytes;
using serialize_testing::same_tensor;
using serialize_testing::TempDir;
using serialize_testing::write_bytes;

using ::ember::testing::error_of;

NamedTensors model_state() {
  return {{"conv1.weight", arange(6, TensorOptions(kFloat)).reshape({1, 2, 3})},
          {"conv1.bias", tensor({0.5f})},
          {"bn.running_mean", tensor({0.25, -0.25}, kDouble)},
          {"bn.num_batches_tracked", tensor(int64_t{7})}};
}

TEST(SaveLoadTest, RoundTripsAStateDictInOrder) {
  TempDir dir;
  std::string path = dir.file("model.safetensors");
  save(model_state(), path);
  NamedTensors loaded = load(path);
  NamedTensors want = model_state();
  ASSERT_EQ(loaded.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(loaded[i].first, want[i].first);
    EXPECT_TRUE(same_tensor(loaded[i].second, want[i].second)) << want[i].first;
    EXPECT_TRUE(loaded[i].second.is_cpu());
  }
  // A CPU-only state dict is plain safetensors: ember's metadata is only
  // the checksums (Note [Tensor checksums]), which other readers ignore.
  const Metadata m = safetensors::load_file(path).metadata;
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->first, "ember.crc32c");
}

TEST(SaveLoadTest, LoadsAnySafetensorsFile) {
  NamedTensors loaded = load("serialize/testdata/python_made.safetensors");
  EXPECT_EQ(loaded.size(), 13u);
}

// A file recording that "w" was saved from cuda:1 (as save() writes it on a
// machine with GPUs), made without needing one.
std::string cuda_saved_file(const TempDir& dir) {
  std::string path = dir.file("cuda.safetensors");
  safetensors::save_file({{"w", tensor({1.0f, 2.0f})}, {"b", tensor({3.0f})}}, path,
                         {{"ember.devices", R"({"w":"cuda:1"})"}});
  return path;
}

TEST(MapLocationTest, FunctionSeesKeyAndSavedDevice) {
  TempDir dir;
  std::string path = cuda_saved_file(dir);
  std::vector<std::string> seen;
  NamedTensors t = load(path, MapLocation([&](const std::string& key, const Device& saved) {
                          seen.push_back(key + "@" + saved.str());
                          return Device(kCPU);
                        }));
  EXPECT_EQ(seen, (std::vector<std::string>{"w@cuda:1", "b@cpu"}));
  EXPECT_TRUE(t[0].second.is_cpu());
  EXPECT_TRUE(same_tensor(t[0].second, tensor({1.0f, 2.0f})));
}

TEST(MapLocationTest, DeviceStringAndRemapForms) {
  TempDir dir;
  std::string path = cuda_saved_file(dir);
  for (const MapLocation& m : {MapLocation("cpu"), MapLocation(Device(kCPU)),
                               MapLocation(std::string("cpu")),
                               MapLocation::remap({{"cuda:1", "cpu"}})}) {
    NamedTensors t = load(path, m);
    EXPECT_TRUE(t[0].second.is_cpu());
    EXPECT_TRUE(t[1].second.is_cpu());
  }
  MapLocation remap = MapLocation::remap({{"cuda:1", "cuda:0"}});
  EXPECT_EQ(remap("w", Device("cuda:1")), Device("cuda:0"));
  EXPECT_EQ(remap("b", Device("cpu")), Device("cpu"));
  EXPECT_EQ(MapLocation()("x", Device("cuda:1")), Device("cuda:1"));
}

TEST(MapLocationTest, CudaTensorsWithoutCudaNeedAMapLocation) {
  if (cuda::device_count() >= 2) GTEST_SKIP() << "cuda:1 exists here";
  TempDir dir;
  std::string path = cuda_saved_file(dir);
  std::string msg = error_of([&] { load(path); });
  if (!cuda::is_available()) {
    EXPECT_EQ(msg,
              "Attempting to deserialize 'w' on a CUDA device (cuda:1) but "
              "ember::cuda::is_available() is false. If you are running on a CPU-only machine, "
              "load with map_location \"cpu\" to map your tensors to the CPU.");
  } else {
    EXPECT_NE(msg, "");  // one GPU: cuda:1 is an invalid device
  }
}

TEST(MapLocationTest, CudaRoundTripWhereAvailable) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  TempDir dir;
  std::string path = dir.file("gpu.safetensors");
  save({{"w", tensor({1.0f, 2.0f}).cuda()}, {"c", tensor({3.0f})}}, path);
  NamedTensors t = load(path);
  EXPECT_TRUE(t[0].second.is_cuda());
  EXPECT_TRUE(t[1].second.is_cpu());
  EXPECT_TRUE(same_tensor(t[0].second.cpu(), tensor({1.0f, 2.0f})));
  EXPECT_TRUE(load(path, "cpu")[0].second.is_cpu());
}

TEST(MapLocationTest, RejectsBrokenDeviceMetadata) {
  TempDir dir;
  std::string path = dir.file("bad.safetensors");
  safetensors::save_file({{"w", tensor({1.0f})}}, path, {{"ember.devices", "{"}});
  EXPECT_NE(error_of([&] { load(path); }).find("invalid ember.devices metadata: invalid JSON"),
            std::string::npos);
  safetensors::save_file({{"w", tensor({1.0f})}}, path, {{"ember.devices", R"({"w":3})"}});
  EXPECT_EQ(error_of([&] { load(path); }),
            "invalid ember.devices metadata: the device of 'w' is not a string");
  safetensors::save_file({{"w", tensor({1.0f})}}, path, {{"ember.devices", R"({"w":"tpu"})"}});
  EXPECT_NE(error_of([&] { load(path); }).find("invalid ember.devices metadata for 'w'"),
            std::string::npos);
}

// Stands in for nn::Module until //nn exists (Note [Saving modules]).
struct FakeModule {
  NamedTensors state_dict() const { return model_state(); }
};

TEST(SaveLoadTest, SavesAnythingWithAStateDict) {
  TempDir dir;
  std::string path = dir.file("module.safetensors");
  save(FakeModule(), path);
  NamedTensors loaded = load(path);
  ASSERT_EQ(loaded.size(), 4u);
  EXPECT_EQ(loaded[3].first, "bn.num_batches_tracked");
  EXPECT_TRUE(same_tensor(loaded[3].second, tensor(int64_t{7})));
}

Checkpoint training_checkpoint() {
  Checkpoint c;
  c.add_state_dict("model", model_state());
  c.add_state_dict("optimizer", {{"state.0.momentum_buffer", tensor({0.1f, 0.2f})},
                                 {"param_groups.0.lr", tensor(0.01, kDouble)}});
  c.add_state_dict("scheduler", {});
  c.set("epoch", 3);
  c.set("loss", 0.125);
  c.set("best", true);
  c.set("note", "resumed \"run\" \xc3\xa9");
  return c;
}

TEST(CheckpointTest, RoundTripsStateDictsScalarsAndStrings) {
  TempDir dir;
  for (const char* name : {"ckpt.safetensors", "ckpt.pt"}) {
    SCOPED_TRACE(name);
    std::string path = dir.file(name);
    training_checkpoint().save(path);
    Checkpoint c = Checkpoint::load(path);
    EXPECT_EQ(c.state_dict_names(),
              (std::vector<std::string>{"model", "optimizer", "scheduler"}));
    NamedTensors model = c.state_dict("model");
    NamedTensors want = model_state();
    ASSERT_EQ(model.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(model[i].first, want[i].first);
      EXPECT_TRUE(same_tensor(model[i].second, want[i].second));
    }
    NamedTensors opt = c.state_dict("optimizer");
    ASSERT_EQ(opt.size(), 2u);
    EXPECT_EQ(opt[1].first, "param_groups.0.lr");
    EXPECT_EQ(opt[1].second.item<double>(), 0.01);
    EXPECT_TRUE(c.state_dict("scheduler").empty());
    EXPECT_EQ(c.get_int("epoch"), 3);
    EXPECT_EQ(c.get_double("loss"), 0.125);
    EXPECT_EQ(c.get_double("epoch"), 3.0);
    EXPECT_TRUE(c.get_bool("best"));
    EXPECT_EQ(c.get_string("note"), "resumed \"run\" \xc3\xa9");
    EXPECT_TRUE(c.contains("loss"));
    EXPECT_FALSE(c.contains("lr"));
  }
}

TEST(CheckpointTest, AsAPtFileItIsTheDictAPyTorchUserWouldSave) {
  TempDir dir;
  Checkpoint c = training_checkpoint();
  c.set("temperature", tensor(0.5f));  // a tensor stays a tensor
  c.save(dir.file("ckpt.pt"));
  const pt::Value v = pt::load_file(dir.file("ckpt.pt"));
  ASSERT_TRUE(v.is_dict());
  EXPECT_FALSE(v.is_ordered_dict());
  std::vector<std::string> keys;
  for (const auto& kv : v.entries()) keys.push_back(kv.first.string());
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "optimizer", "scheduler", "epoch", "loss",
                                            "best", "temperature", "note"}));
  EXPECT_TRUE(v.at("model").is_ordered_dict());
  EXPECT_EQ(v.at("epoch").to_int(), 3);
  EXPECT_EQ(v.at("loss").kind(), pt::Value::Kind::kFloat);
  EXPECT_TRUE(v.at("best").to_bool());
  EXPECT_TRUE(same_tensor(v.at("temperature").tensor(), tensor(0.5f)));
  EXPECT_TRUE(same_tensor(Checkpoint::load(dir.file("ckpt.pt")).get_tensor("temperature"),
                          tensor(0.5f)));
  // What a Checkpoint cannot hold is refused with the key.
  pt::save_file(pt::Value::dict({{pt::Value("nested"), pt::Value::list({pt::Value("a")})}}),
                dir.file("odd.pt"));
  EXPECT_NE(error_of([&] { Checkpoint::load(dir.file("odd.pt")); })
                .find("invalid checkpoint: entry 'nested' is a list that is not one tensor"),
            std::string::npos);
}

TEST(CheckpointTest, IsPlainSafetensorsForPython) {
  TempDir dir;
  std::string path = dir.file("ckpt.safetensors");
  training_checkpoint().save(path);
  safetensors::Contents c = safetensors::load_file(path);
  EXPECT_TRUE(same_tensor(c.at("model/conv1.bias"), tensor({0.5f})));
  EXPECT_TRUE(same_tensor(c.at("epoch"), tensor(int64_t{3})));
  EXPECT_TRUE(same_tensor(c.at("loss"), tensor(0.125, kDouble)));
  EXPECT_TRUE(same_tensor(c.at("best"), tensor(true)));
  EXPECT_EQ(c.metadata.at("note"), "resumed \"run\" \xc3\xa9");
  EXPECT_EQ(c.metadata.at("ember.format"), "checkpoint");
  EXPECT_EQ(c.metadata.at("ember.state_dicts"), R"(["model","optimizer","scheduler"])");
}

// Note [Tensor checksums]: what is stored, and that it is checked.
TEST(ChecksumTest, EachTensorHasTheCrc32cOfItsDtypeShapeAndBytes) {
  TempDir dir;
  const std::string path = dir.file("w.safetensors");
  save({{"w", tensor({1.0f, -2.0f})}, {"n", tensor(int64_t{7})}}, path);
  const Metadata m = safetensors::load_file(path).metadata;
  const float w[2] = {1.0f, -2.0f};
  const int64_t n = 7;
  const uint32_t crc_w = crc32c(w, sizeof(w), crc32c("F32[2]"));
  const uint32_t crc_n = crc32c(&n, sizeof(n), crc32c("I64[]"));
  EXPECT_EQ(m.at("ember.crc32c"), absl::StrFormat(R"({"w":"%08x","n":"%08x"})", crc_w, crc_n));
}

TEST(ChecksumTest, AFlippedBitInTheDataIsAnErrorNamingTheFileAndTensor) {
  TempDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  save({{"fc.weight", ones({4, 4})}}, path);
  std::string bytes = read_bytes(path);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x10);  // inside fc.weight's data
  write_bytes(path, bytes);
  const std::string err = testing::error_of([&] { load(path); });
  EXPECT_EQ(err.rfind(path + ": checksum mismatch for tensor 'fc.weight' (stored crc32c ", 0), 0u)
      << err;
  // Asked to, it still reads (the bit flip is then the caller's business).
  EXPECT_EQ(load(path, {}, /*verify_checksums=*/false).at(0).second.numel(), 16);
  // Checkpoints check the same way.
  Checkpoint c;
  c.add_state_dict("model", {{"fc.weight", ones({4, 4})}});
  c.save(path);
  bytes = read_bytes(path);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x01);
  write_bytes(path, bytes);
  EXPECT_NE(testing::error_of([&] {
              Checkpoint::load(path);
            }).find("checksum mismatch for tensor 'model/fc.weight'"),
            std::string::npos);
}

TEST(ChecksumTest, ADtypeSwappedInTheHeaderIsCaught) {
  TempDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  save({{"w", full({3}, 1.5f)}}, path);
  std::string bytes = read_bytes(path);
  const size_t at = bytes.find("\"F32\"");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "\"I32\"");  // same size: only the checksum can tell
  write_bytes(path, bytes);
  EXPECT_NE(testing::error_of([&] { load(path); }).find("checksum mismatch for tensor 'w'"),
            std::string::npos);
  EXPECT_EQ(load(path, {}, false).at(0).second.dtype(), kInt);
}

TEST(ChecksumTest, FilesWithoutChecksumsLoadUnchecked) {
  TempDir dir;
  const std::string path = dir.file("python.safetensors");
  safetensors::save_file({{"w", ones({2})}}, path);  // as Python's safetensors writes it
  EXPECT_EQ(load(path).at(0).second.numel(), 2);
}

TEST(SaveLoadTest, AFifoIsRefusedInsteadOfBlocking) {
  TempDir dir;
  const std::string path = dir.file("fifo.safetensors");
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  EXPECT_EQ(testing::error_of([&] { Checkpoint::load(path); }),
            "cannot read '" + path + "': it is a FIFO, not a regular file");
  ::unlink(path.c_str());
}

TEST(CheckpointTest, SettingAKeyAgainReplacesIt) {
  Checkpoint c;
  c.set("x", 1);
  c.set("x", "one");
  EXPECT_EQ(c.get_string("x"), "one");
  EXPECT_EQ(c.tensors().size(), 0u);
  c.set("x", 2.5);
  EXPECT_EQ(c.get_double("x"), 2.5);
  EXPECT_TRUE(c.strings().empty());
  c.add_state_dict("m", {{"a", tensor({1.0f})}, {"b", tensor({2.0f})}});
  c.add_state_dict("m", {{"c", tensor({3.0f})}});
  ASSERT_EQ(c.state_dict("m").size(), 1u);
  EXPECT_EQ(c.state_dict("m")[0].first, "c");
  EXPECT_EQ(c.state_dict_names().size(), 1u);
}

TEST(CheckpointTest, AccessorErrorsSayWhatIsWrong) {
  Checkpoint c = training_checkpoint();
  EXPECT_EQ(error_of([&] { c.get_int("missing"); }), "Checkpoint has no entry 'missing'");
  EXPECT_EQ(error_of([&] { c.get_int("loss"); }),
            "Checkpoint entry 'loss' is not an integer scalar (it is a float64 tensor with 1 "
            "elements)");
  EXPECT_EQ(error_of([&] { c.get_int("note"); }),
            "Checkpoint entry 'note' is a string, not a number");
  EXPECT_EQ(error_of([&] { c.get_string("epoch"); }),
            "Checkpoint entry 'epoch' is a tensor, not a string");
  EXPECT_EQ(error_of([&] { c.get_bool("epoch"); }),
            "Checkpoint entry 'epoch' is not a bool (it is a int64 tensor with 1 elements)");
  EXPECT_EQ(error_of([&] { c.state_dict("ema"); }),
            "Checkpoint has no state dict 'ema' (it has: model, optimizer, scheduler)");
  c.set("vec", tensor({1, 2}, kLong));
  EXPECT_NE(error_of([&] { c.get_double("vec"); }).find("is not a number"), std::string::npos);
}

TEST(CheckpointTest, RejectsReservedAndMalformedKeys) {
  Checkpoint c;
  EXPECT_EQ(error_of([&] { c.set("a/b", 1); }),
            "Checkpoint: key 'a/b' contains '/', which separates state dict names from their keys");
  EXPECT_EQ(error_of([&] { c.set("ember.x", 1); }), "Checkpoint: key 'ember.x' is reserved");
  EXPECT_EQ(error_of([&] { c.set("__metadata__", "x"); }),
            "Checkpoint: key '__metadata__' is reserved");
  EXPECT_EQ(error_of([&] { c.set("", 1); }), "Checkpoint: a key cannot be empty");
  EXPECT_NE(error_of([&] { c.add_state_dict("a/b", {}); }), "(no error)");
  EXPECT_EQ(error_of([&] { c.add_state_dict("m", {{"w", Tensor()}}); }),
            "Checkpoint: tensor 'w' of state dict 'm' is undefined");
}

TEST(CheckpointTest, RejectsInconsistentFiles) {
  TempDir dir;
  std::string path = dir.file("c.safetensors");
  auto write = [&](const Metadata& m) {
    safetensors::save_file({{"note", tensor({1.0f})}}, path, m);
  };
  write({{"ember.format", "other"}});
  EXPECT_EQ(error_of([&] { Checkpoint::load(path); }),
            path + ": invalid checkpoint: ember.format is 'other', not 'checkpoint'");
  write({{"ember.state_dicts", "[\"a\","}});
  EXPECT_NE(error_of([&] { Checkpoint::load(path); }).find("ember.state_dicts: invalid JSON"),
            std::string::npos);
  write({{"ember.state_dicts", "[\"a\",\"a\"]"}});
  EXPECT_NE(error_of([&] { Checkpoint::load(path); }).find("invalid or repeated name"),
            std::string::npos);
  write({{"ember.state_dicts", "{}"}});
  EXPECT_NE(error_of([&] { Checkpoint::load(path); }).find("is not a JSON array"),
            std::string::npos);
  write({{"note", "text"}});
  EXPECT_EQ(error_of([&] { Checkpoint::load(path); }),
            path + ": invalid checkpoint: 'note' is both a tensor and a string");
}

TEST(CheckpointTest, AppliesMapLocation) {
  TempDir dir;
  std::string path = dir.file("c.safetensors");
  training_checkpoint().save(path);
  int calls = 0;
  Checkpoint c = Checkpoint::load(path, MapLocation([&](const std::string&, const Device& d) {
                                    ++calls;
                                    EXPECT_TRUE(d.is_cpu());
                                    return d;
                                  }));
  EXPECT_EQ(calls, static_cast<int>(c.tensors().size()));
  EXPECT_EQ(calls, 9);
}

// --- atomic writes (Note [Atomic writes]) -------------------------------------

int g_notify_fd = -1;

// In the child: once 8 MiB are written, tell the parent and wait to be killed.
void notify_and_hang(int64_t bytes_written) {
  if (bytes_written < (int64_t{8} << 20)) return;
  char c = 1;
  if (::write(g_notify_fd, &c, 1) != 1) ::_exit(4);
  for (;;) ::pause();
}

TEST(AtomicSaveTest, ProcessKilledMidSaveLeavesThePreviousCheckpoint) {
  TempDir dir;
  std::string path = dir.file("ckpt.safetensors");
  Checkpoint previous = training_checkpoint();
  previous.save(path);
  std::string previous_bytes = read_bytes(path);
  Tensor big = zeros({int64_t{16} << 20}, kFloat);  // 64 MiB

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    g_notify_fd = fds[1];
    serialize_internal::set_write_hook(&notify_and_hang);
    try {
      Checkpoint next;
      next.add_state_dict("model", {{"w", big}});
      next.set("epoch", 4);
      next.save(path);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(3);  // the save finished: the hook never ran
  }
  ::close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  int ready = ::poll(&p, 1, 30000);
  char c = 0;
  bool notified = ready == 1 && ::read(fds[0], &c, 1) == 1;
  ::close(fds[0]);
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(notified) << "the child never reached the middle of its save";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  // The half-written temporary file is there; the checkpoint is untouched.
  std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 2u);
  std::string temp = files[0] == "ckpt.safetensors" ? files[1] : files[0];
  EXPECT_EQ(temp.rfind(".ckpt.safetensors.tmp-", 0), 0u) << temp;
  struct stat st;
  ASSERT_EQ(::stat(dir.file(temp).c_str(), &st), 0);
  EXPECT_GE(st.st_size, int64_t{8} << 20);
  EXPECT_LT(st.st_size, int64_t{64} << 20);
  EXPECT_EQ(read_bytes(path), previous_bytes);
  Checkpoint loaded = Checkpoint::load(path);
  EXPECT_EQ(loaded.get_int("epoch"), 3);
  EXPECT_TRUE(same_tensor(loaded.state_dict("model")[0].second, model_state()[0].second));
  // The stale temporary file is no checkpoint: loading it fails cleanly.
  EXPECT_THROW(Checkpoint::load(dir.file(temp)), Error);

  // And the next save goes through, and sweeps the dead writer's temporary
  // file (Note [Atomic writes]).
  EXPECT_NE(temp.find(".tmp-"), std::string::npos);
  EXPECT_NE(temp.find("-" + std::to_string(pid) + "-"), std::string::npos) << temp;
  Checkpoint next;
  next.set("epoch", 5);
  next.save(path);
  EXPECT_EQ(Checkpoint::load(path).get_int("epoch"), 5);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST(AtomicSaveTest, SweepKeepsTemporariesOfLiveWriters) {
  TempDir dir;
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
  // This process is alive (its own are never swept), pid 1 too; another
  // host's pids mean nothing here.
  const std::vector<std::string> kept = {
      ".a.safetensors.tmp-" + std::string(host) + "-" + std::to_string(::getpid()) + "-abcdef",
      ".b.safetensors.tmp-" + std::string(host) + "-1-abcdef",
      ".c.safetensors.tmp-some-other-host-999999-abcdef"};
  for (const auto& f : kept) write_bytes(dir.file(f), "partial");
  serialize_internal::sweep_stale_temporaries(dir.path());
  std::vector<std::string> files = dir.files();
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, kept);
}

void fail_after_first_chunk(int64_t) { throw Error("disk full (simulated)"); }

TEST(AtomicSaveTest, FailedSaveRemovesItsTemporaryFile) {
  TempDir dir;
  std::string path = dir.file("ckpt.safetensors");
  save({{"a", tensor({1.0f})}}, path);
  // A write error in the middle (the hook stands in for ENOSPC): the error
  // reaches the caller, the temporary file is removed, the old file stays.
  serialize_internal::set_write_hook(&fail_after_first_chunk);
  std::string msg = error_of([&] { save({{"a", zeros({int64_t{4} << 20}, kFloat)}}, path); });
  serialize_internal::set_write_hook(nullptr);
  EXPECT_EQ(msg, "disk full (simulated)");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
  EXPECT_TRUE(same_tensor(load(path)[0].second, tensor({1.0f})));
  // A state dict the format cannot hold fails before any file is made.
  EXPECT_THROW(save({{"a", tensor({1.0f})}, {"a", tensor({2.0f})}}, path), Error);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.safetensors"});
}

}  // namespace
}  // namespace ember
