#include "trainers/common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "distributed/init.h"
#include "tensor/all.h"
#include "tensor/cuda/cuda.h"
#include "tensor/files.h"

namespace ember {
namespace trainers {

namespace {

// Discards what ranks other than 0 would print.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

}  // namespace

RankInfo rank_info() {
  RankInfo r;
  r.parallel = distributed::is_initialized() && distributed::get_world_size() > 1;
  if (r.parallel) {
    r.rank = distributed::get_rank();
    r.world = distributed::get_world_size();
  }
  return r;
}

std::ostream& rank_zero_stream(std::ostream& out, const RankInfo& ranks) {
  static NullBuffer null_buffer;
  static std::ostream null_stream(&null_buffer);
  return ranks.rank == 0 ? out : null_stream;
}

Device training_device(const std::string& device, const RankInfo& ranks) {
  Device d(device);
  if (ranks.parallel && d.is_cuda() && !d.has_index()) {
    EMBER_CHECK(cuda::device_count() > 0, "--device=cuda: no CUDA device is available");
    d = Device(kCUDA, static_cast<int8_t>(ranks.rank % static_cast<int>(cuda::device_count())));
  }
  return d;
}

void prepare_checkpoint_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    EMBER_CHECK(S_ISDIR(st.st_mode), "checkpoint_dir '", dir, "' is ", describe_file_type(dir),
                ", not a directory");
  } else if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    const int err = errno;
    throw Error(absl::StrCat("cannot create checkpoint_dir '", dir, "': ", std::strerror(err)));
  }
  std::string probe = dir + "/.ember_write_test-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    const int err = errno;
    throw Error(absl::StrCat("checkpoint_dir '", dir, "' is not writable: ", std::strerror(err)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

std::string checkpoint_path(const std::string& dir, const std::string& prefix, int64_t n) {
  return absl::StrCat(dir, "/", prefix, "_", n, ".safetensors");
}

int64_t checkpoint_number(const std::string& filename, const std::string& prefix) {
  absl::string_view n = filename;
  int64_t number;
  if (!absl::ConsumePrefix(&n, prefix) || !absl::ConsumePrefix(&n, "_") ||
      !absl::ConsumeSuffix(&n, ".safetensors") || n.empty() ||
      n.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(n, &number)) {
    return -1;
  }
  return number;
}

void prune_checkpoints(const std::string& dir, const std::string& prefix, int64_t keep) {
  if (keep <= 0) return;
  std::vector<std::pair<int64_t, std::filesystem::path>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const int64_t n = checkpoint_number(e.path().filename().string(), prefix);
    if (n >= 0) found.emplace_back(n, e.path());
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = static_cast<size_t>(keep); i < found.size(); ++i) {
    std::filesystem::remove(found[i].second, ec);
  }
}

std::string latest_checkpoint(const std::string& dir, const std::string& prefix) {
  int64_t best = -1;
  std::string path;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const int64_t n = checkpoint_number(e.path().filename().string(), prefix);
    if (n > best) {
      best = n;
      path = e.path().string();
    }
  }
  return path;
}

std::string resume_path(const std::string& auto_resume, const std::string& resume,
                        const std::string& dir, const std::string& prefix) {
  EMBER_CHECK_VALUE(auto_resume == "true" || auto_resume == "false" || auto_resume == "auto",
                    "--auto_resume must be true, false or auto, got '", auto_resume, "'");
  if (!resume.empty() || dir.empty()) return resume;
  const bool on = auto_resume == "true" ||
                  (auto_resume == "auto" && std::getenv("TORCHELASTIC_RESTART_COUNT") != nullptr);
  return on ? latest_checkpoint(dir, prefix) : "";
}

void save_training_checkpoint(const std::string& dir, int64_t keep, const std::string& key,
                              int64_t n, const nn::Module& model, const optim::Optimizer& optimizer,
                              const std::function<void(Checkpoint&)>& extra) {
  Checkpoint ckpt;
  ckpt.add_state_dict("model", model.state_dict());
  ckpt.add_state_dict("optimizer", optimizer.state_dict().to_named_tensors());
  ckpt.set(key, n);
  if (extra) extra(ckpt);
  ckpt.save(checkpoint_path(dir, key, n));
  prune_checkpoints(dir, key, keep);
}

void check_finite(const NamedTensors& weights) {
  for (const auto& kv : weights) {
    EMBER_CHECK(!kv.second.is_floating_point() || kv.second.isfinite().all().item<bool>(),
                "parameter '", kv.first, "' holds non-finite values (NaN or inf)");
  }
}

void read_checkpoint(const std::string& path, bool verify_checksums, const std::string& purpose,
                     const std::function<void(const Checkpoint&)>& body) {
  try {
    body(Checkpoint::load(path, MapLocation(Device(kCPU)), verify_checksums));
  } catch (const Error& e) {
    throw Error(absl::StrCat("cannot ", purpose, " '", path, "': ", e.what()));
  }
}

int64_t resume_training(const std::string& path, bool verify_checksums, const std::string& key,
                        nn::Module& model, optim::Optimizer& optimizer,
                        const std::function<void(const Checkpoint&)>& check) {
  int64_t n = 0;
  read_checkpoint(path, verify_checksums, "resume from", [&](const Checkpoint& ckpt) {
    if (check) check(ckpt);
    const NamedTensors weights = ckpt.state_dict("model");
    check_finite(weights);
    model.load_state_dict(weights);
    optimizer.load_state_dict(
        optim::OptimizerStateDict::from_named_tensors(ckpt.state_dict("optimizer")));
    n = ckpt.get_int(key);
    EMBER_CHECK_VALUE(n >= 0, "its ", key, " is ", n, ", which is negative");
  });
  return n;
}

}  // namespace trainers
}  // namespace ember
