#include "distributed/init.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <ostream>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "distributed/file_store.h"
#include "distributed/prefix_store.h"
#include "distributed/slurm.h"
#include "distributed/tcp_store.h"

namespace ember::distributed {
namespace {

// Note [Line-buffered workers]: a worker started by a launcher (ours or
// torchrun: LOCAL_RANK is set) writes its stdout into a pipe, where stdio
// would buffer 4 KiB before anything reaches the launcher, and a killed
// worker's last lines would never arrive. Line-buffered from the start
// (static initialization, before the program prints), each line is relayed
// as it is printed. A terminal is line-buffered already.
[[maybe_unused]] const bool g_line_buffered_under_launcher = [] {
  if (std::getenv("LOCAL_RANK") == nullptr || isatty(STDOUT_FILENO)) return false;
  std::fflush(stdout);
  return std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ) == 0;
}();

using Clock = std::chrono::steady_clock;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Registry {
  std::mutex mu;
  std::map<std::string, BackendFactory> factories;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

BackendFactory find_factory(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.factories.find(name);
  return it == r.factories.end() ? BackendFactory() : it->second;
}

// The world as init_process_group left it.
struct World {
  std::mutex mu;
  std::shared_ptr<Store> store;  // the rendezvous store (unprefixed)
  Group default_group;
  bool initialized = false;
  bool initializing = false;  // init_process_group is running (without mu)
  int group_count = 0;
  std::chrono::milliseconds timeout{kDefaultPgTimeout};
  std::map<std::string, Group> groups;
};
World& world() {
  static World* w = new World;
  return *w;
}

constexpr const char* kDefaultGroupName = "default_pg";
constexpr const char* kNotInitialized =
    "Default process group has not been initialized, please make sure to call "
    "init_process_group.";

std::string seconds_str(std::chrono::milliseconds t) {
  return absl::StrCat(static_cast<double>(t.count()) / 1000.0, " s");
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

std::string unique_token() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  return absl::StrCat(host, ":", getpid(), ":", rd());
}

// Note [Store-based join] (init.h).
void join(Store& store, int rank, int size, const std::string& config,
          const std::string& config_description, std::chrono::milliseconds timeout,
          const std::string& group_name) {
  auto fail = [&](const std::string& msg) {
    try {
      store.set("init/error", msg);  // the ranks already waiting fail too
    } catch (const Error&) {
    }
    throw Error(msg);
  };
  std::string registered = text(store.compare_set("init/config", {}, bytes(config)));
  if (registered != config) {
    fail(absl::StrCat("Process group '", group_name, "': rank ", rank, " was started with ",
                      config_description, config, " but another rank registered ",
                      config_description, registered,
                      " (every rank must pass the same world size and ranks)"));
  }
  const std::string token = unique_token();
  std::string owner = text(store.compare_set(absl::StrCat("init/rank/", rank), {}, bytes(token)));
  if (owner != token) {
    fail(absl::StrCat("Process group '", group_name, "': rank ", rank,
                      " was claimed by two processes (", owner, " and ", token,
                      "); every process needs its own rank"));
  }
  if (store.add("init/joined", 1) == size) store.set("init/all_joined", std::string("1"));
  const bool unlimited = timeout.count() < 0;
  const auto deadline = Clock::now() + (unlimited ? std::chrono::milliseconds(0) : timeout);
  for (;;) {
    auto slice = std::chrono::milliseconds(100);
    if (!unlimited) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      slice = std::max(std::chrono::milliseconds(0), std::min(slice, left));
    }
    try {
      store.wait({"init/all_joined"}, slice);
      return;
    } catch (const TimeoutError&) {
    }
    if (store.check({"init/error"})) throw Error(store.get_string("init/error"));
    if (!unlimited && Clock::now() >= deadline) {
      int64_t joined = store.add("init/joined", 0);
      throw TimeoutError(absl::StrCat("Timed out after ", seconds_str(timeout),
                                      " initializing process group '", group_name, "' on rank ",
                                      rank, ": waited for every worker to join (", joined, "/",
                                      size, " workers joined)"));
    }
  }
}

[[noreturn]] void not_built(const Backend& b) {
  if (b.str() == Backend::NCCL) throw Error("Distributed package doesn't have NCCL built in");
  if (b.str() == Backend::GLOO) throw Error("Distributed package doesn't have Gloo built in");
  if (b.str() == Backend::MPI) {
    throw Error("Distributed package doesn't have MPI built in. MPI is only included if you "
                "build PyTorch from source on a host that has MPI installed.");
  }
  throw Error(absl::StrCat("Distributed package doesn't have backend '", b.str(), "' built in"));
}

// ---- rendezvous ----

struct Url {
  std::string scheme;  // "env", "tcp", "file"
  std::string rest;    // after "scheme://", before '?'
  std::map<std::string, std::string> query;
};

Url parse_url(const std::string& url) {
  auto pos = url.find("://");
  if (pos == std::string::npos) {
    throw ValueError(absl::StrCat("Invalid init_method '", url,
                                  "': expected env://, tcp://host:port or file:///path"));
  }
  Url u;
  u.scheme = url.substr(0, pos);
  std::string rest = url.substr(pos + 3);
  auto q = rest.find('?');
  if (q != std::string::npos) {
    for (absl::string_view kv : absl::StrSplit(rest.substr(q + 1), '&', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      u.query[p.first] = p.second;
    }
    rest = rest.substr(0, q);
  }
  u.rest = rest;
  return u;
}

int parse_int(const std::string& s, const std::string& what, const std::string& scheme) {
  int v;
  if (!absl::SimpleAtoi(s, &v)) {
    throw ValueError(absl::StrCat("Error initializing ember::distributed using ", scheme,
                                  ":// rendezvous: ", what, " must be an integer, got '", s,
                                  "'"));
  }
  return v;
}

// rank / world_size: the argument, else the query, else (env://) the variable.
int pick(int given, const Url& u, const std::string& param, const char* env_var) {
  if (given >= 0) return given;
  auto it = u.query.find(param);
  if (it != u.query.end()) return parse_int(it->second, param, u.scheme);
  if (env_var) {
    const char* v = std::getenv(env_var);
    if (!v) {
      throw ValueError(absl::StrCat(
          "Error initializing ember::distributed using env:// rendezvous: environment "
          "variable ",
          env_var, " expected, but not set"));
    }
    return parse_int(v, absl::StrCat("environment variable ", env_var), u.scheme);
  }
  throw ValueError(absl::StrCat("Error initializing ember::distributed using ", u.scheme,
                                ":// rendezvous: ", param, " parameter missing"));
}

std::string env_or_throw(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    throw ValueError(absl::StrCat(
        "Error initializing ember::distributed using env:// rendezvous: environment variable ",
        name, " expected, but not set"));
  }
  return v;
}

uint16_t parse_port(const std::string& s, const std::string& scheme) {
  int p = parse_int(s, "port", scheme);
  if (p < 0 || p > 65535) {
    throw ValueError(absl::StrCat("Error initializing ember::distributed using ", scheme,
                                  ":// rendezvous: port ", p, " is out of range"));
  }
  return static_cast<uint16_t>(p);
}

// `server` says who runs the server at host:port ("rank 0", "the
// launcher"); `is_server`: this process.
std::shared_ptr<Store> tcp_store(const std::string& host, uint16_t port, bool is_server,
                                 std::chrono::milliseconds timeout, const std::string& server) {
  TCPStoreOptions o;
  o.port = port;
  o.is_server = is_server;
  o.timeout = timeout;
  o.server_description = server;
  // The server listens on MASTER_ADDR's address only, unless asked to
  // listen everywhere (tcp_store.h).
  const char* all = std::getenv("EMBER_TCPSTORE_BIND_ALL");
  o.bind_all_interfaces = all != nullptr && std::string(all) == "1";
  return std::make_shared<TCPStore>(host, o);
}

}  // namespace

// ---- Backend and the registry ----

Backend::Backend(const std::string& name) : name_(lower(name)) {
  if (name_ == GLOO || name_ == NCCL || name_ == MPI) return;
  if (name_ != UNDEFINED && is_backend_registered(name_)) return;
  throw ValueError(absl::StrCat("Invalid backend: '", name, "'"));
}

Backend Backend::undefined() { return Backend(Unchecked{}, UNDEFINED); }

std::ostream& operator<<(std::ostream& os, const Backend& b) { return os << b.str(); }

void register_backend(const std::string& name, BackendFactory factory) {
  EMBER_CHECK_VALUE(!name.empty() && lower(name) != Backend::UNDEFINED,
                    "register_backend: invalid backend name '", name, "'");
  EMBER_CHECK_VALUE(factory != nullptr, "register_backend: null factory for '", name, "'");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[lower(name)] = std::move(factory);
}

bool is_backend_registered(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.factories.count(lower(name)) > 0;
}

ProcessGroup& Group::pg() const {
  if (!pg_) {
    throw Error(absl::StrCat("This process is not a member of process group '", name_,
                             "' (ranks [", absl::StrJoin(ranks_, ", "), "])"));
  }
  return *pg_;
}

// ---- rendezvous ----

RendezvousResult rendezvous(const std::string& init_method, int rank, int world_size,
                            std::chrono::milliseconds timeout) {
  Url u = parse_url(init_method);
  if (u.scheme == "env") {
    // Note [Slurm without a launcher]: Slurm's variables stand in for the
    // ones a launcher would have set.
    const SlurmEnv slurm = slurm_env();
    if (rank < 0 && !u.query.count("rank") && !std::getenv("RANK") && slurm.rank) {
      rank = *slurm.rank;
    }
    if (world_size < 0 && !u.query.count("world_size") && !std::getenv("WORLD_SIZE") &&
        slurm.world_size) {
      world_size = *slurm.world_size;
    }
    rank = pick(rank, u, "rank", "RANK");
    world_size = pick(world_size, u, "world_size", "WORLD_SIZE");
    const char* addr_env = std::getenv("MASTER_ADDR");
    std::string addr = addr_env && *addr_env    ? std::string(addr_env)
                       : slurm.master_addr ? *slurm.master_addr
                                               : env_or_throw("MASTER_ADDR");
    const char* port_env = std::getenv("MASTER_PORT");
    uint16_t port = port_env && *port_env ? parse_port(port_env, "env")
                    : slurm.master_port   ? static_cast<uint16_t>(*slurm.master_port)
                                          : parse_port(env_or_throw("MASTER_PORT"), "env");
    const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
    if (agent && std::string(agent) == "True") {
      // The launcher runs the server; each restart gets its own key space.
      const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
      auto store = tcp_store(addr, port, false, timeout, "the launcher");
      return {std::make_shared<PrefixStore>(
                  absl::StrCat("/worker/attempt_", attempt ? attempt : "0"), store),
              rank, world_size};
    }
    return {tcp_store(addr, port, rank == 0, timeout, "rank 0"), rank, world_size};
  }
  if (u.scheme == "tcp") {
    rank = pick(rank, u, "rank", nullptr);
    world_size = pick(world_size, u, "world_size", nullptr);
    std::string host;
    std::string port_str;
    if (!u.rest.empty() && u.rest[0] == '[') {  // [v6]:port
      auto close = u.rest.find(']');
      if (close == std::string::npos || close + 1 >= u.rest.size() || u.rest[close + 1] != ':') {
        throw ValueError(absl::StrCat("Invalid tcp:// init_method '", init_method, "'"));
      }
      host = u.rest.substr(1, close - 1);
      port_str = u.rest.substr(close + 2);
    } else {
      auto colon = u.rest.rfind(':');
      if (colon == std::string::npos || colon == 0) {
        throw ValueError(absl::StrCat("Invalid tcp:// init_method '", init_method,
                                      "': expected tcp://host:port"));
      }
      host = u.rest.substr(0, colon);
      port_str = u.rest.substr(colon + 1);
    }
    return {tcp_store(host, parse_port(port_str, "tcp"), rank == 0, timeout, "rank 0"), rank,
            world_size};
  }
  if (u.scheme == "file") {
    rank = pick(rank, u, "rank", nullptr);
    world_size = pick(world_size, u, "world_size", nullptr);
    if (u.rest.empty()) {
      throw ValueError(absl::StrCat("Invalid file:// init_method '", init_method,
                                    "': expected file:///path"));
    }
    return {std::make_shared<FileStore>(u.rest, timeout), rank, world_size};
  }
  throw ValueError(absl::StrCat("No rendezvous handler for ", u.scheme, "://"));
}

// ---- the default group ----

// Rendezvous, join and the backend's factory run without World::mu held, so
// a factory may call get_rank() and friends.
void init_process_group(const Backend& backend, const InitOptions& options) {
  World& w = world();
  {
    std::lock_guard<std::mutex> lock(w.mu);
    if (w.initialized || w.initializing) {
      throw Error("trying to initialize the default process group twice!");
    }
    w.initializing = true;
  }
  struct Reset {
    World& w;
    ~Reset() {
      std::lock_guard<std::mutex> lock(w.mu);
      w.initializing = false;
    }
  } reset{w};
  BackendFactory factory = find_factory(backend.str());
  if (!factory) not_built(backend);

  std::shared_ptr<Store> store;
  int rank = options.rank;
  int size = options.world_size;
  if (options.store) {
    if (!options.init_method.empty()) throw ValueError("Cannot specify both init_method and store.");
    if (size <= 0) throw ValueError("world_size must be positive if using store");
    if (rank < 0) throw ValueError("rank must be non-negative if using store");
    store = options.store;
  } else {
    // A rank out of range is refused before it could start a server.
    if (size > 0 && rank >= size) {
      throw ValueError(absl::StrCat("Invalid rank ", rank, ": rank must be in [0, ", size - 1,
                                    "] for world_size ", size));
    }
    RendezvousResult r = rendezvous(
        options.init_method.empty() ? "env://" : options.init_method, rank, size,
        options.timeout);
    store = r.store;
    rank = r.rank;
    size = r.world_size;
  }
  if (size <= 0) throw ValueError(absl::StrCat("Invalid world_size ", size, ": must be positive"));
  if (rank < 0 || rank >= size) {
    throw ValueError(absl::StrCat("Invalid rank ", rank, ": rank must be in [0, ", size - 1,
                                  "] for world_size ", size));
  }
  const std::string name = options.group_name.empty() ? kDefaultGroupName : options.group_name;
  auto group_store = std::make_shared<PrefixStore>(name, store);
  join(*group_store, rank, size, absl::StrCat(size), "world_size ", options.timeout, name);
  std::shared_ptr<ProcessGroup> pg = factory(group_store, rank, size, options.timeout);
  EMBER_CHECK(pg != nullptr, "backend '", backend.str(), "' returned no process group");
  std::vector<int> ranks(size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  std::lock_guard<std::mutex> lock(w.mu);
  w.store = store;
  w.default_group = Group(pg, name, std::move(ranks), backend);
  w.timeout = options.timeout;
  w.group_count = 0;
  w.groups.clear();
  w.initialized = true;
}

bool is_initialized() {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mu);
  return w.initialized;
}

void destroy_process_group() {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mu);
  if (!w.initialized) throw Error(kNotInitialized);
  // Groups first (their backends may still talk through the store), then
  // the store (and with it the TCPStore server this rank may run).
  w.groups.clear();
  w.default_group = Group();
  // Note [Server outlives its clients]: the rank that runs the TCPStore
  // server keeps serving until the other ranks let go of the store (they
  // destroyed their groups or exited), at most min(timeout, 10 s): a rank
  // that stopped the server right after a barrier would cut off the
  // requests the others still have in flight.
  if (auto* tcp = dynamic_cast<TCPStore*>(w.store.get()); tcp && tcp->is_server()) {
    const auto limit = std::min<std::chrono::milliseconds>(
        w.timeout.count() < 0 ? std::chrono::milliseconds(10000) : w.timeout,
        std::chrono::milliseconds(10000));
    const auto deadline = Clock::now() + limit;
    while (tcp->num_server_connections() > 1 && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  w.store.reset();
  w.group_count = 0;
  w.initialized = false;
}

void destroy_process_group(const Group& group) {
  World& w = world();
  {
    std::lock_guard<std::mutex> lock(w.mu);
    if (!w.initialized) throw Error(kNotInitialized);
    if (group.name() != w.default_group.name()) {
      if (w.groups.erase(group.name()) == 0) {
        throw ValueError(absl::StrCat("Invalid process group specified: '", group.name(),
                                      "' is not a live group"));
      }
      return;
    }
  }
  destroy_process_group();
}

Group get_default_group() {
  World& w = world();
  std::lock_guard<std::mutex> lock(w.mu);
  if (!w.initialized) throw Error(kNotInitialized);
  return w.default_group;
}

Group new_group(std::vector<int> ranks, std::chrono::milliseconds timeout,
                const std::string& backend_name) {
  World& w = world();
  std::unique_lock<std::mutex> lock(w.mu);
  if (!w.initialized) throw Error(kNotInitialized);
  const int world_size = w.default_group.size();
  const int global_rank = w.default_group.rank();
  if (ranks.empty()) {
    for (int i = 0; i < world_size; ++i) ranks.push_back(i);
  }
  std::sort(ranks.begin(), ranks.end());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= world_size) {
      throw ValueError(absl::StrCat("new_group: rank ", ranks[i],
                                    " is not in the default group (world_size ", world_size,
                                    ")"));
    }
    if (i > 0 && ranks[i] == ranks[i - 1]) {
      throw ValueError(absl::StrCat("new_group: rank ", ranks[i], " is listed twice"));
    }
  }
  Backend backend = backend_name.empty() ? w.default_group.backend() : Backend(backend_name);
  BackendFactory factory = find_factory(backend.str());
  if (!factory) not_built(backend);
  if (timeout == Store::kNoTimeout) timeout = w.timeout;
  // Every rank counts every group, members or not, so names agree.
  const std::string name = absl::StrCat(++w.group_count);
  std::shared_ptr<Store> base = w.store;
  lock.unlock();  // the join and the factory run without the lock (see init_process_group)

  auto pos = std::find(ranks.begin(), ranks.end(), global_rank);
  std::shared_ptr<ProcessGroup> pg;
  if (pos != ranks.end()) {
    const int group_rank = static_cast<int>(pos - ranks.begin());
    const int size = static_cast<int>(ranks.size());
    auto group_store = std::make_shared<PrefixStore>(name, base);
    join(*group_store, group_rank, size, absl::StrCat("[", absl::StrJoin(ranks, ", "), "]"),
         "ranks ", timeout, name);
    pg = factory(group_store, group_rank, size, timeout);
    EMBER_CHECK(pg != nullptr, "backend '", backend.str(), "' returned no process group");
  }
  Group g(std::move(pg), name, std::move(ranks), backend);
  lock.lock();
  if (w.initialized) w.groups[name] = g;
  return g;
}

int get_rank() { return get_default_group().rank(); }
int get_rank(const Group& group) { return group.rank(); }
int get_world_size() { return get_default_group().size(); }
int get_world_size(const Group& group) { return group.is_member() ? group.size() : -1; }
Backend get_backend() { return get_default_group().backend(); }
Backend get_backend(const Group& group) {
  if (!group.is_member()) throw ValueError("Invalid process group specified");
  return group.backend();
}

int get_global_rank(const Group& group, int group_rank) {
  if (group_rank < 0 || group_rank >= group.size()) {
    throw ValueError(absl::StrCat("Group rank ", group_rank, " is not part of group '",
                                  group.name(), "'"));
  }
  return group.ranks()[group_rank];
}

int get_group_rank(const Group& group, int global_rank) {
  auto it = std::find(group.ranks().begin(), group.ranks().end(), global_rank);
  if (it == group.ranks().end()) {
    throw ValueError(absl::StrCat("Global rank ", global_rank, " is not part of group '",
                                  group.name(), "'"));
  }
  return static_cast<int>(it - group.ranks().begin());
}

bool is_available() { return true; }
bool is_gloo_available() { return is_backend_registered(Backend::GLOO); }
bool is_nccl_available() { return is_backend_registered(Backend::NCCL); }
LaunchedRank launched_rank_from_env(
    const std::vector<std::pair<const char*, const char*>>& extra) {
  std::vector<std::pair<const char*, const char*>> pairs{
      {"RANK", "WORLD_SIZE"}, {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"}};
  pairs.insert(pairs.end(), extra.begin(), extra.end());
  for (const auto& [rank_name, size_name] : pairs) {
    const char* r = std::getenv(rank_name);
    const char* n = std::getenv(size_name);
    if (r == nullptr && n == nullptr) continue;
    EMBER_CHECK_VALUE(r != nullptr && n != nullptr, "found ", r != nullptr ? rank_name : size_name,
                      " but not ", r != nullptr ? size_name : rank_name,
                      " in the environment: a launcher sets both");
    LaunchedRank out;
    EMBER_CHECK_VALUE(absl::SimpleAtoi(r, &out.rank) && absl::SimpleAtoi(n, &out.world_size) &&
                          out.world_size > 0 && out.rank >= 0 && out.rank < out.world_size,
                      rank_name, "=", r, " and ", size_name, "=", n,
                      " are not a rank and a world size it belongs to");
    return out;
  }
  return {};
}

RendezvousResult launcher_rendezvous(
    const std::string& who, const std::vector<std::pair<const char*, const char*>>& extra) {
  const LaunchedRank me = launched_rank_from_env(extra);
  if (me.rank < 0 || me.world_size == 1) {
    TCPStoreOptions so;
    so.port = 0;
    so.is_server = true;
    return {std::make_shared<TCPStore>("127.0.0.1", so), 0, 1};
  }
  EMBER_CHECK_VALUE(std::getenv("MASTER_ADDR") != nullptr && std::getenv("MASTER_PORT") != nullptr,
                    who, ": rank ", me.rank, " of ", me.world_size,
                    " needs MASTER_ADDR and MASTER_PORT to meet the other ranks (ember's launcher "
                    "and torchrun set them; under mpirun or horovodrun, export them: mpirun -x "
                    "MASTER_ADDR=... -x MASTER_PORT=...)");
  return rendezvous("env://", me.rank, me.world_size);
}

bool is_mpi_available() { return is_backend_registered(Backend::MPI); }

}  // namespace ember::distributed
