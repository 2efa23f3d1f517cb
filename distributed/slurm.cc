#include "distributed/slurm.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tensor/error.h"

namespace ember::distributed {
namespace {

[[noreturn]] void bad(const std::string& hostlist, const std::string& why) {
  throw ValueError(absl::StrCat("invalid Slurm hostlist '", hostlist, "': ", why));
}

// "01-04,07" -> 01 02 03 04 07 (each as wide as its bound).
std::vector<std::string> expand_ranges(const std::string& all, const std::string& ranges) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= ranges.size()) {
    size_t comma = ranges.find(',', start);
    if (comma == std::string::npos) comma = ranges.size();
    const std::string part = ranges.substr(start, comma - start);
    if (part.empty()) bad(all, "an empty range");
    const size_t dash = part.find('-');
    const std::string lo_s = part.substr(0, dash);
    const std::string hi_s = dash == std::string::npos ? lo_s : part.substr(dash + 1);
    int64_t lo, hi;
    if (!absl::SimpleAtoi(lo_s, &lo) || !absl::SimpleAtoi(hi_s, &hi) || lo < 0 || hi < lo ||
        lo_s.find_first_not_of("0123456789") != std::string::npos ||
        hi_s.find_first_not_of("0123456789") != std::string::npos) {
      bad(all, absl::StrCat("'", part, "' is not a number or a range a-b"));
    }
    if (hi - lo > 100000) bad(all, absl::StrCat("the range '", part, "' is too long"));
    const size_t width = lo_s.size();
    for (int64_t v = lo; v <= hi; ++v) {
      std::string s = absl::StrCat(v);
      if (s.size() < width) s.insert(0, width - s.size(), '0');
      out.push_back(s);
    }
    start = comma + 1;
  }
  return out;
}

// One entry: text with any number of bracket groups.
void expand_entry(const std::string& all, const std::string& entry, size_t from,
                  const std::string& prefix, std::vector<std::string>* out) {
  const size_t open = entry.find('[', from);
  if (open == std::string::npos) {
    if (entry.find(']', from) != std::string::npos) bad(all, "a ']' without '['");
    out->push_back(prefix + entry.substr(from));
    return;
  }
  const size_t close = entry.find(']', open);
  if (close == std::string::npos) bad(all, "a '[' without ']'");
  const std::string head = entry.substr(from, open - from);
  if (head.find(']') != std::string::npos) bad(all, "a ']' without '['");
  for (const std::string& v : expand_ranges(all, entry.substr(open + 1, close - open - 1))) {
    expand_entry(all, entry, close + 1, prefix + head + v, out);
  }
}

std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  int x;
  if (v == nullptr || !absl::SimpleAtoi(v, &x)) return std::nullopt;
  return x;
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& hostlist) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= hostlist.size(); ++i) {
    const char c = i < hostlist.size() ? hostlist[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) bad(hostlist, "a ']' without '['");
    if (c == ',' && depth == 0) {
      const std::string entry = hostlist.substr(start, i - start);
      if (entry.empty()) bad(hostlist, "an empty host name");
      expand_entry(hostlist, entry, 0, "", &out);
      start = i + 1;
    }
  }
  if (depth != 0) bad(hostlist, "a '[' without ']'");
  return out;
}

SlurmEnv slurm_env() {
  SlurmEnv e;
  e.rank = env_int("SLURM_PROCID");
  if (!e.rank) return {};
  e.world_size = env_int("SLURM_NTASKS");
  e.local_rank = env_int("SLURM_LOCALID");
  if (const char* nodes = std::getenv("SLURM_JOB_NODELIST")) {
    const std::vector<std::string> hosts = expand_hostlist(nodes);
    if (!hosts.empty()) e.master_addr = hosts.front();
  }
  if (const char* job = std::getenv("SLURM_JOB_ID")) {
    const std::string id = job;
    int64_t tail;
    if (absl::SimpleAtoi(id.size() > 4 ? id.substr(id.size() - 4) : id, &tail)) {
      e.master_port = static_cast<int>(15000 + tail);
    }
  }
  return e;
}

}  // namespace ember::distributed
