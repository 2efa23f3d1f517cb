// //distributed stores: round-trip cost of one request (PyTorch twin:
// store_torch.py, same operations and sizes).
//
//   bazel run -c opt //benchmarks:store
//
// TCPStore: server thread and client in this process, over 127.0.0.1 (as
// rank 0 talks to its own server; other ranks pay the same round trip).
// FileStore: one process, a file under /tmp.

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "distributed/file_store.h"
#include "distributed/tcp_store.h"

namespace {

using ember::distributed::FileStore;
using ember::distributed::TCPStore;
using ember::distributed::TCPStoreOptions;

std::unique_ptr<TCPStore> make_tcp() {
  TCPStoreOptions o;
  o.port = 0;
  o.is_server = true;
  return std::make_unique<TCPStore>("127.0.0.1", o);
}

void BM_TCPStoreSet(benchmark::State& state) {
  auto store = make_tcp();
  std::vector<uint8_t> value(state.range(0), 'x');
  for (auto _ : state) store->set("key", value);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TCPStoreSet)->Arg(64)->Arg(1 << 20);

void BM_TCPStoreGet(benchmark::State& state) {
  auto store = make_tcp();
  store->set("key", std::vector<uint8_t>(state.range(0), 'x'));
  for (auto _ : state) benchmark::DoNotOptimize(store->get("key"));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TCPStoreGet)->Arg(64)->Arg(1 << 20);

void BM_TCPStoreAdd(benchmark::State& state) {
  auto store = make_tcp();
  for (auto _ : state) benchmark::DoNotOptimize(store->add("counter", 1));
}
BENCHMARK(BM_TCPStoreAdd);

void BM_FileStoreAdd(benchmark::State& state) {
  std::string path = "/tmp/ember_store_bench_" + std::to_string(getpid());
  {
    FileStore store(path);
    for (auto _ : state) benchmark::DoNotOptimize(store.add("counter", 1));
  }
  unlink(path.c_str());
}
BENCHMARK(BM_FileStoreAdd);

}  // namespace

BENCHMARK_MAIN();
