// tcp_store_tool: a command line for a TCPStore, ember's or PyTorch's (1.13,
// or 2.4 and newer; Note [TCPStore wire protocol]). For looking into a job's
// store, and for tools/tcpstore_interop.py.
//
//   tcp_store_tool serve [--host=127.0.0.1] [--port=0]
//       runs a server; prints "listening on PORT"; stops at SIGINT/SIGTERM
//   tcp_store_tool [--host=H] --port=N [--timeout_ms=T] COMMAND ARGS...
//       set KEY VALUE | get KEY | add KEY N | compare_set KEY EXPECTED DESIRED
//       | check KEY... | wait KEY... | delete KEY | num_keys | append KEY VALUE
//       | multi_get KEY... | dialect
//
// Keys are the user's (the "/" PyTorch puts before each is added on the
// wire, as PyTorch's own clients do). Output: one line per result.

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "distributed/tcp_store.h"

namespace {

using ember::distributed::TCPStore;
using ember::distributed::TCPStoreOptions;

int usage() {
  std::cerr << "usage: tcp_store_tool serve [--host=H] [--port=N]\n"
               "       tcp_store_tool [--host=H] --port=N [--timeout_ms=T] COMMAND ARGS...\n"
               "COMMAND: set KEY VALUE | get KEY | add KEY N | compare_set KEY EXPECTED "
               "DESIRED | check KEY... | wait KEY... | delete KEY | num_keys | append KEY "
               "VALUE | multi_get KEY... | dialect\n";
  return 2;
}

std::string text(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

int run(const std::string& host, TCPStoreOptions o, const std::vector<std::string>& a) {
  if (a.empty()) return usage();
  const std::string& cmd = a[0];
  auto need = [&](size_t n) {
    if (a.size() != n + 1) throw std::invalid_argument(cmd + " takes " + std::to_string(n) +
                                                       " argument(s)");
  };
  if (cmd == "serve") {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before the server's thread starts
    o.is_server = true;
    TCPStore store(host, o);
    std::cout << "listening on " << store.port() << std::endl;
    int sig = 0;
    sigwait(&set, &sig);
    return 0;
  }
  TCPStore store(host, o);
  std::vector<std::string> keys(a.begin() + 1, a.end());
  if (cmd == "set") {
    need(2);
    store.set(a[1], a[2]);
  } else if (cmd == "get") {
    need(1);
    std::cout << store.get_string(a[1]) << "\n";
  } else if (cmd == "add") {
    need(2);
    std::cout << store.add(a[1], std::stoll(a[2])) << "\n";
  } else if (cmd == "compare_set") {
    need(3);
    std::cout << text(store.compare_set(a[1], bytes(a[2]), bytes(a[3]))) << "\n";
  } else if (cmd == "check") {
    std::cout << (store.check(keys) ? "true" : "false") << "\n";
  } else if (cmd == "wait") {
    store.wait(keys);
    std::cout << "ready\n";
  } else if (cmd == "delete") {
    need(1);
    std::cout << (store.delete_key(a[1]) ? "true" : "false") << "\n";
  } else if (cmd == "num_keys") {
    need(0);
    std::cout << store.num_keys() << "\n";
  } else if (cmd == "append") {
    need(2);
    store.append(a[1], bytes(a[2]));
  } else if (cmd == "multi_get") {
    for (const auto& v : store.multi_get(keys)) std::cout << text(v) << "\n";
  } else if (cmd == "dialect") {
    need(0);
    std::cout << (store.legacy_server() ? "pytorch-1.13" : "pytorch-2") << "\n";
  } else {
    return usage();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  TCPStoreOptions o;
  o.port = 0;
  o.timeout = std::chrono::milliseconds(30000);
  std::vector<std::string> args;
  bool port_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const std::string f = std::string(flag) + "=";
      return s.rfind(f, 0) == 0 ? argv[i] + f.size() : nullptr;
    };
    if (const char* v = value("--host")) {
      host = v;
    } else if (const char* v = value("--port")) {
      o.port = static_cast<uint16_t>(std::atoi(v));
      port_given = true;
    } else if (const char* v = value("--timeout_ms")) {
      o.timeout = std::chrono::milliseconds(std::atoll(v));
    } else if (s.rfind("--", 0) == 0) {
      return usage();
    } else {
      args.push_back(s);
    }
  }
  if (args.empty() || (args[0] != "serve" && !port_given)) return usage();
  try {
    return run(host, o, args);
  } catch (const std::exception& e) {
    std::cerr << "tcp_store_tool: " << e.what() << "\n";
    return 1;
  }
}
