// A remote-write receiver that only counts: answers every POST with 204 and keeps the number
// of requests and body bytes, so a benchmark measures the sender, not a TSDB.
//   counting_sink COUNTS_FILE     prints its port, then rewrites COUNTS_FILE
//                                 ("<requests> <bytes>") every 200 ms until SIGTERM/SIGINT.
#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "http_receiver.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int /*signo*/) {
  g_stop.store(true);
}

void write_counts(const std::string& path, size_t requests, uint64_t bytes) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << requests << ' ' << bytes << '\n';
  std::rename(tmp.c_str(), path.c_str());
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): escaping is a bug; std::terminate reports it
int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: counting_sink COUNTS_FILE\n");
    return 2;
  }
  ::signal(SIGTERM, on_signal);
  ::signal(SIGINT, on_signal);
  std::atomic<size_t> requests{0};
  ibpulse::testing::HttpReceiver sink(
      [&requests](size_t) {
        requests.fetch_add(1);
        return 204;
      },
      false);
  fmt::print("{}\n", sink.port());
  std::fflush(stdout);
  while (!g_stop.load()) {
    write_counts(argv[1], requests.load(), sink.bytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  write_counts(argv[1], requests.load(), sink.bytes());
  return 0;
}
