// End-to-end poll benchmark: the simulator's ceiling against ibpulse's engine, in one run.
//
//  (a) baseline: a minimal client on raw libibumad, 64 MADs in flight, one PortCounters GET
//      per port and nothing else;
//  (b) ibpulse: the real poller (scheduler, engine, decoding, ring) sweeping PortCounters and
//      PortCountersExtended of every port back to back.
// Prints the median MADs/s of each over N sweeps and the ratio b/a. Run it attached to a
// fabric: bench/run_poll_bench does that on the 2,016-host benchmark fabric.
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ibpulse/collector/discovery.h"
#include "ibpulse/collector/poller.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ibpulse::collector;

struct Target {
  uint16_t lid;
  uint8_t port;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct BaselineSweep {
  double seconds = 0;
  size_t answered = 0;
};

// User and system CPU of every thread of this process so far.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// (a): one PortCounters GET per port, `window` in flight, nothing decoded.
BaselineSweep baseline_sweep(int fd, int agent, const std::vector<Target>& targets, unsigned window,
                             bool alternate) {
  std::vector<uint8_t> send(umad_size() + 256);
  std::vector<uint8_t> recv(umad_size() + 256);
  size_t next = 0;
  size_t done = 0;
  size_t in_flight = 0;
  uint32_t tid = 1;
  const auto start = Clock::now();
  while (done < targets.size()) {
    while (in_flight < window && next < targets.size()) {
      auto* mad = static_cast<uint8_t*>(umad_get_mad(send.data()));
      std::memset(mad, 0, 256);
      mad[0] = 1;
      mad[1] = 0x04;
      mad[2] = 1;
      mad[3] = 0x01;
      mad[12] = static_cast<uint8_t>(tid >> 24);
      mad[13] = static_cast<uint8_t>(tid >> 16);
      mad[14] = static_cast<uint8_t>(tid >> 8);
      mad[15] = static_cast<uint8_t>(tid);
      ++tid;
      // With `alternate`, every other GET is PortCountersExtended: the same mix as (b), since
      // the simulator answers that attribute more slowly than PortCounters.
      mad[17] = alternate && (tid & 1) ? 0x1D : 0x12;
      mad[64 + 1] = targets[next].port;
      umad_set_addr(send.data(), targets[next].lid, 1, 0, static_cast<int>(0x80010000u));
      if (umad_send(fd, agent, send.data(), 256, 1000, 0) != 0) break;
      ++next;
      ++in_flight;
    }
    int length = 256;
    if (umad_recv(fd, recv.data(), &length, 1000) < 0) {
      fmt::print(stderr, "baseline: a reply is missing, giving up on this sweep\n");
      break;
    }
    --in_flight;
    ++done;
  }
  return {std::chrono::duration<double>(Clock::now() - start).count(), done};
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): escaping is a bug; std::terminate reports it
int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows even if the run is cut short
  const unsigned sweeps = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 20;
  const unsigned window = 64;
  auto topology = discover(DiscoveryOptions{});
  if (!topology) {
    fmt::print(stderr, "discovery failed: {}\n", topology.error());
    return 1;
  }
  std::vector<Target> targets;
  for (const auto& p : topology->ports) {
    if (p.remote && p.lid != 0) targets.push_back({p.lid, p.key.port});
  }
  fmt::print("fabric: {} nodes, {} linked ports; {} sweeps each, window {}\n",
             topology->nodes.size(), targets.size(), sweeps, window);

  umad_init();
  const int fd = umad_open_port(nullptr, 0);
  const int agent = umad_register(fd, 0x04, 1, 0, nullptr);
  // POLL_BENCH_BASELINE_SECONDS: the alternating mix swept back to back for that long, and
  // its mean rate (answered MADs over the whole time, stalls included): the like of a daemon's
  // answered MADs over a window of the same length. The medians below skip the slow sweeps.
  if (const char* seconds = std::getenv("POLL_BENCH_BASELINE_SECONDS")) {
    const auto length = std::chrono::duration<double>(std::atof(seconds));
    const double cpu_start = process_cpu_seconds();
    const auto start = Clock::now();
    size_t rounds = 0;
    size_t answered = 0;
    while (Clock::now() - start < length) {
      answered += baseline_sweep(fd, agent, targets, window, true).answered;
      ++rounds;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    fmt::print(
        "(a') baseline, PortCounters and Extended alternating: mean over {} sweeps in {:.1f} s, "
        "{:.0f} MADs/s\n",
        rounds, elapsed, static_cast<double>(answered) / elapsed);
    // The client's whole CPU (its own thread and umad2sim's relay) per answered MAD: what a
    // daemon's threads are compared with, whatever the simulator's speed in that minute.
    if (answered > 0) {
      fmt::print("(a') client CPU: {:.3f} us per answered MAD\n",
                 (process_cpu_seconds() - cpu_start) * 1e6 / static_cast<double>(answered));
    }
    return 0;
  }
  std::vector<double> base;
  std::vector<double> mixed;
  for (unsigned i = 0; i < sweeps; ++i) {
    base.push_back(baseline_sweep(fd, agent, targets, window, false).seconds);
    mixed.push_back(baseline_sweep(fd, agent, targets, window, true).seconds);
  }
  umad_unregister(fd, agent);
  umad_close_port(fd);
  const double base_rate = static_cast<double>(targets.size()) / median(base);
  const double mixed_rate = static_cast<double>(targets.size()) / median(mixed);
  // POLL_BENCH_BASELINE_ONLY: the simulator's ceiling alone (run_scale_bench measures the
  // daemon itself).
  if (std::getenv("POLL_BENCH_BASELINE_ONLY") != nullptr) {
    fmt::print(
        "(a) baseline raw libibumad, PortCounters only: median {:.3f} s/sweep, {:.0f} MADs/s\n",
        median(base), base_rate);
    fmt::print(
        "(a') baseline, PortCounters and Extended alternating: median {:.3f} s/sweep, {:.0f} "
        "MADs/s\n",
        median(mixed), mixed_rate);
    return 0;
  }

  // (b): the poller with intervals short enough that sweeps run back to back.
  PollerOptions o;
  o.mad.window = window;
  // POLL_BENCH_PER_NODE overrides the per-node limit, to see how much it costs.
  if (const char* per_node = std::getenv("POLL_BENCH_PER_NODE"))
    o.mad.per_node = static_cast<unsigned>(std::atoi(per_node));
  o.intervals.counters = std::chrono::milliseconds(1);
  o.intervals.details = std::chrono::hours(1);
  o.intervals.idle = std::chrono::hours(1);
  o.rediscover = std::chrono::hours(1);
  o.intervals.port_info = std::chrono::milliseconds(0);  // (b) is PMA reads only, like (a)
  SampleRing ring(1 << 20);
  std::vector<double> ours;
  std::atomic<bool> stop{false};
  Poller* running = nullptr;
  Clock::time_point first_done{};
  uint64_t sent_at_first = 0;
  PollerEvents events;
  events.sweep_done = [&](const SweepSummary& s) {
    fmt::print(stderr, "ibpulse sweep {}: {:.3f} s, {} stale\n", s.number, s.seconds, s.stale);
    if (s.number == 1) {  // the first sweep includes ClassPortInfo: measure from its end
      first_done = Clock::now();
      sent_at_first = running->stats().mad.sent;
      return;
    }
    ours.push_back(s.seconds);
    if (ours.size() >= sweeps) stop.store(true);
  };
  std::atomic<bool> draining{true};
  std::thread consumer([&] {
    RawSample s;
    while (draining.load()) {
      while (ring.pop(s)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  Poller poller(o, ring, events);
  running = &poller;
  auto ran = poller.run(stop);
  const double elapsed = std::chrono::duration<double>(Clock::now() - first_done).count();
  draining.store(false);
  consumer.join();
  if (!ran || ours.empty()) {
    fmt::print(stderr, "poller failed: {}\n", ran ? "no sweep" : ran.error());
    return 1;
  }
  const auto stats = poller.stats();
  const double sent = static_cast<double>(stats.mad.sent - sent_at_first);
  const double our_rate = sent / elapsed;
  fmt::print(
      "(a) baseline raw libibumad, PortCounters only: median {:.3f} s/sweep, {:.0f} MADs/s\n",
      median(base), base_rate);
  fmt::print(
      "(b) ibpulse poller, PortCounters + Extended: median {:.3f} s/sweep, {:.0f} MADs/s "
      "({:.0f} MADs in {:.2f} s, ring drops {})\n",
      median(ours), our_rate, sent, elapsed, stats.ring_drops);
  fmt::print(
      "(a') baseline, PortCounters and Extended alternating: median {:.3f} s/sweep, {:.0f} "
      "MADs/s\n",
      median(mixed), mixed_rate);
  fmt::print("ratio (b)/(a) MADs/s: {:.2f} (target >= 0.9); (b)/(a') same attribute mix: {:.2f}\n",
             our_rate / base_rate, our_rate / mixed_rate);
  return 0;
}
