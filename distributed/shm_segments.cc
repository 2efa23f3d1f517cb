#include "distributed/shm_segments.h"

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ember::distributed {
namespace {

constexpr char kPrefix[] = "ember-gloo-";

// The inode of this process's pid namespace (0 when unknown).
uint64_t pid_namespace_inode() {
  struct stat st;
  if (::stat("/proc/self/ns/pid", &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace

bool process_alive(int pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/stat"));
  if (!f) return ::kill(pid, 0) == 0 || errno != ESRCH;
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  const char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

std::string new_shm_segment_name() {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return absl::StrCat("/", kPrefix, pid_namespace_inode(), "-", ::getpid(), "-", r % 1000000007);
}

int sweep_dead_shm_segments() {
  DIR* d = ::opendir("/dev/shm");
  if (d == nullptr) return 0;
  const uint64_t ns = pid_namespace_inode();
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    absl::string_view name = e->d_name;
    if (!absl::ConsumePrefix(&name, kPrefix)) continue;
    std::vector<absl::string_view> parts = absl::StrSplit(name, '-');
    uint64_t their_ns = 0;
    int pid = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &their_ns) ||
        !absl::SimpleAtoi(parts[1], &pid) || pid <= 0) {
      continue;  // not ours, or an older format
    }
    // Another pid namespace's pids mean nothing here.
    if (ns == 0 || their_ns != ns || process_alive(pid)) continue;
    if (::shm_unlink(absl::StrCat("/", e->d_name).c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace ember::distributed
