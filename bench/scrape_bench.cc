// A 70,000-port /metrics scrape end to end over loopback: the daemon's HTTP server rendering a
// synthetic snapshot, read by an in-process client until the server closes the connection.
// Prints the median time and the bytes received for an identity and a gzip scrape (5 each).
// Built the same way against each HTTP server the project has had, so two binaries of this
// source compare servers like with like (same snapshot, same renderer, same client):
//
//   build/bench/scrape_bench [RUNS]
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "ibpulse/exporters/prometheus/http_server.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "synthetic_fabric.h"

namespace {

using namespace ibpulse;
using Clock = std::chrono::steady_clock;
namespace prom = exporters::prometheus;

constexpr uint32_t kPorts = 70000;

struct Scrape {
  double seconds = 0;
  size_t bytes = 0;  // head and body as received
  bool ok = false;   // a 200 and the chunked body's end
};

Scrape scrape(uint16_t port, bool gzip) {
  Scrape result;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto start = Clock::now();
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return result;
  }
  const std::string request = fmt::format("GET /metrics HTTP/1.1\r\nHost: localhost\r\n{}\r\n",
                                          gzip ? "Accept-Encoding: gzip\r\n" : "");
  if (send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return result;
  }
  std::vector<char> buffer(size_t{1} << 20);
  std::string head;
  std::array<char, 5> tail{};  // the last bytes: "0\r\n\r\n" ends a chunked body
  for (;;) {
    const ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    if (head.size() < 64) head.append(buffer.data(), std::min<size_t>(64, static_cast<size_t>(n)));
    const size_t got = static_cast<size_t>(n);
    for (size_t i = got >= tail.size() ? got - tail.size() : 0; i < got; ++i) {
      std::rotate(tail.begin(), tail.begin() + 1, tail.end());
      tail.back() = buffer[i];
    }
    result.bytes += got;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  close(fd);
  result.ok = head.starts_with("HTTP/1.1 200") && std::string_view(tail.data(), 5) == "0\r\n\r\n";
  return result;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1) {
    fmt::print(stderr, "usage: scrape_bench [RUNS >= 1]\n");
    return 2;
  }
  const auto snapshot = bench::synthetic_snapshot(kPorts);
  const prom::FabricRenderer renderer;
  prom::HttpOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = prom::MetricsServer::start(
      options,
      [&](const prom::MetricsServer::BodyWriter& write) {
        thread_local std::string scratch;
        renderer.render(*snapshot, scratch, write);
      },
      [] { return std::string("<html></html>"); });
  if (!server) {
    fmt::print(stderr, "scrape_bench: {}\n", server.error());
    return 1;
  }
  const uint16_t port = (*server)->port();
  scrape(port, false);  // warm-up: first-touch of the renderer's buffers
  for (const bool gzip : {false, true}) {
    std::vector<double> times;
    size_t bytes = 0;
    for (int i = 0; i < runs; ++i) {
      const Scrape s = scrape(port, gzip);
      if (!s.ok) {
        fmt::print(stderr, "scrape_bench: scrape {} failed\n", i);
        return 1;
      }
      times.push_back(s.seconds);
      bytes = s.bytes;
    }
    fmt::print("{:<8} median {:8.1f} ms over {} scrapes, {:>11} bytes received\n",
               gzip ? "gzip" : "identity", median(times) * 1e3, runs, bytes);
  }
  return 0;
}
