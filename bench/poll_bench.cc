// End-to-end poll benchmark: the simulator's ceiling against ibpulse's engine, in one run, like
// with like: answered MADs over the whole of a window on both sides, the same attribute mix.
//
//  (a') the raw client: a minimal client on raw libibumad, 64 MADs in flight, PortCounters and
//       PortCountersExtended GETs alternating over every linked port, sweeps back to back,
//       nothing decoded; for S seconds right before (b), and right after it for as long as (b)
//       ran, since the simulator's speed drifts from minute to minute;
//  (b)  ibpulse: the real poller (scheduler, engine, decoding, ring) sweeping PortCounters and
//       PortCountersExtended of every port back to back, measured from the end of its first
//       sweep to the end of the first sweep S seconds later (at least one sweep).
// Both count answered MADs (a retry is not an answer) over the window's whole length, stalls
// included, and both print the ports they left unread: stale ports for (b), replies given up
// on for (a'). The ratio (b)/(a') is against the faster of the two baselines and their mean;
// each window also reports the process's CPU per answered MAD. ROUNDS (default 1) repeats (b)
// and the raw window after it, each poller window judged against the raw windows on either
// side, and prints the median round: one round moves by as much as 0.4 from run to run.
// Run it attached to a fabric: bench/run_poll_bench does that on the 2,016-host fabric.
//
// POLL_BENCH_BASELINE_SECONDS=S: only the raw client, for S seconds (run_scale_bench's
// ceiling), with its CPU per answered MAD.
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ibpulse/collector/discovery.h"
#include "ibpulse/collector/poller.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace ibpulse::collector;
using ibpulse::Err;
using ibpulse::Error;
using ibpulse::Result;

constexpr unsigned kWindow = 64;

struct Target {
  uint16_t lid;
  uint8_t port;
};

// Answered MADs over a window; `unread`: ports left unread (given up on, or stale).
// What this process (every thread) has used so far: CPU, and how often a thread gave up the
// CPU to wait (for a reply, a lock, the simulator).
struct Usage {
  double cpu_seconds = 0;
  uint64_t waits = 0;  // voluntary context switches: each costs the kernel a wake-up

  static Usage now() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return {seconds(usage.ru_utime) + seconds(usage.ru_stime),
            static_cast<uint64_t>(usage.ru_nvcsw)};
  }
  Usage operator-(const Usage& since) const {
    return {cpu_seconds - since.cpu_seconds, waits - since.waits};
  }
};

struct Window {
  double seconds = 0;
  uint64_t answered = 0;
  uint64_t sweeps = 0;
  uint64_t unread = 0;
  // The whole process over the window (every thread: umad2sim's receiver too): on a machine
  // the simulator shares, the client's CPU per answered MAD decides how many MADs the
  // simulator gets done.
  Usage used;
  double rate() const { return seconds > 0 ? static_cast<double>(answered) / seconds : 0; }
  double cpu_us_per_mad() const {
    return answered > 0 ? used.cpu_seconds * 1e6 / static_cast<double>(answered) : 0;
  }
  double waits_per_mad() const {
    return answered > 0 ? static_cast<double>(used.waits) / static_cast<double>(answered) : 0;
  }
};

// The raw client's local port and its PMA agent, closed when it goes.
class RawPort {
 public:
  RawPort() {
    fd_ = umad_open_port(nullptr, 0);
    if (fd_ < 0) {
      error_ = fmt::format("umad_open_port: {}", std::strerror(-fd_));
      return;
    }
    agent_ = umad_register(fd_, 0x04, 1, 0, nullptr);
    if (agent_ < 0) error_ = fmt::format("umad_register (PerfMgt): {}", std::strerror(-agent_));
  }
  ~RawPort() {
    if (agent_ >= 0) umad_unregister(fd_, agent_);
    if (fd_ >= 0) umad_close_port(fd_);
  }
  RawPort(const RawPort&) = delete;
  RawPort& operator=(const RawPort&) = delete;

  const std::string& error() const { return error_; }
  int fd() const { return fd_; }
  int agent() const { return agent_; }

 private:
  int fd_ = -1;
  int agent_ = -1;
  std::string error_;
};

// One sweep of the raw client: PortCounters and PortCountersExtended alternating, `kWindow` in
// flight. Returns the replies received; a reply missing for a second ends the sweep.
uint64_t raw_sweep(const RawPort& p, const std::vector<Target>& targets) {
  std::vector<uint8_t> send(umad_size() + 256);
  std::vector<uint8_t> recv(umad_size() + 256);
  size_t next = 0;
  uint64_t done = 0;
  size_t in_flight = 0;
  uint32_t tid = 1;
  while (done < targets.size()) {
    while (in_flight < kWindow && next < targets.size()) {
      auto* mad = static_cast<uint8_t*>(umad_get_mad(send.data()));
      std::memset(mad, 0, 256);
      mad[0] = 1;     // base version
      mad[1] = 0x04;  // PerfMgt
      mad[2] = 1;     // class version
      mad[3] = 0x01;  // Get
      mad[12] = static_cast<uint8_t>(tid >> 24);
      mad[13] = static_cast<uint8_t>(tid >> 16);
      mad[14] = static_cast<uint8_t>(tid >> 8);
      mad[15] = static_cast<uint8_t>(tid);
      ++tid;
      mad[17] = (tid & 1) != 0 ? 0x1D : 0x12;  // PortCountersExtended, PortCounters
      mad[64 + 1] = targets[next].port;        // PortSelect
      umad_set_addr(send.data(), targets[next].lid, 1, 0, static_cast<int>(0x80010000u));
      if (umad_send(p.fd(), p.agent(), send.data(), 256, 1000, 0) != 0) break;
      ++next;
      ++in_flight;
    }
    int length = 256;
    if (umad_recv(p.fd(), recv.data(), &length, 1000) < 0) break;
    --in_flight;
    ++done;
  }
  return done;
}

// The raw client's sweeps back to back for `seconds`.
Window raw_window(const RawPort& p, const std::vector<Target>& targets, double seconds) {
  Window w;
  const auto start = Clock::now();
  const Usage started = Usage::now();
  const auto length = std::chrono::duration<double>(seconds);
  while (Clock::now() - start < length) {
    const uint64_t answered = raw_sweep(p, targets);
    w.answered += answered;
    w.unread += targets.size() - answered;
    ++w.sweeps;
  }
  w.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  w.used = Usage::now() - started;
  return w;
}

// (b): the poller, intervals short enough that sweeps run back to back, measured from the end
// of its first sweep (which also reads ClassPortInfo) to the end of the first sweep `seconds`
// later.
Result<Window> poller_window(double seconds) {
  PollerOptions o;
  o.mad.window = kWindow;
  // POLL_BENCH_PER_NODE overrides the per-node limit, to see how much it costs.
  if (const char* per_node = std::getenv("POLL_BENCH_PER_NODE"))
    o.mad.per_node = static_cast<unsigned>(std::atoi(per_node));
  o.intervals.counters = std::chrono::milliseconds(1);
  o.intervals.details = std::chrono::hours(1);
  o.intervals.idle = std::chrono::hours(1);
  o.rediscover = std::chrono::hours(1);
  o.intervals.port_info = std::chrono::milliseconds(0);  // PMA reads only, like (a')
  // The daemon's ring (collector.ring-size's default): a larger one costs the poller page
  // faults on its first pass, which a daemon pays once, not in every window.
  SampleRing ring(32768);
  Window w;
  std::atomic<bool> stop{false};
  Poller* running = nullptr;
  Clock::time_point first_done{};
  uint64_t answered_at_first = 0;
  Usage used_at_first;
  PollerEvents events;
  events.sweep_done = [&](const SweepSummary& s) {
    fmt::print(stderr, "ibpulse sweep {}: {:.3f} s, {} stale\n", s.number, s.seconds, s.stale);
    if (s.number == 1) {
      first_done = Clock::now();
      answered_at_first = running->stats().mad.answered;
      used_at_first = Usage::now();
      return;
    }
    w.unread += s.stale;
    ++w.sweeps;
    if (std::chrono::duration<double>(Clock::now() - first_done).count() >= seconds)
      stop.store(true);
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
  w.seconds = std::chrono::duration<double>(Clock::now() - first_done).count();
  w.used = Usage::now() - used_at_first;
  draining.store(false);
  consumer.join();
  if (!ran) return Error{ran.error()};
  if (w.sweeps == 0) return Err("no sweep after the first");
  w.answered = poller.stats().mad.answered - answered_at_first;
  if (poller.stats().ring_drops > 0) fmt::print("(b) ring drops: {}\n", poller.stats().ring_drops);
  return w;
}

void print_raw(const char* when, const Window& w) {
  fmt::print(
      "(a') raw client {}: {} answered in {:.2f} s over {} sweeps = {:.0f} MADs/s, {} replies "
      "given up on, {:.2f} us CPU and {:.2f} waits per answered MAD\n",
      when, w.answered, w.seconds, w.sweeps, w.rate(), w.unread, w.cpu_us_per_mad(),
      w.waits_per_mad());
}

int usage() {
  fmt::print(stderr,
             "usage: poll_bench [SECONDS [ROUNDS]]   (each window, 1 to 3600 s, default 10; "
             "poller windows, each between two raw ones, 1 to 20, default 1)\n");
  return 2;
}

// A whole number from `low` to `high`, or nothing.
std::optional<unsigned> parse_count(const std::string& text, unsigned low, unsigned high) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const auto n = static_cast<unsigned>(std::stoul(text));
  if (n < low || n > high) return std::nullopt;
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One poller window against the raw windows right before and after it: the two ratios.
struct RoundRatios {
  double rate = 0;  // poller MADs/s over the raw clients' mean
  double cpu = 0;   // poller CPU per answered MAD over the raw clients' mean (0: unknown)
};

RoundRatios print_round(const Window& before, const Window& ours, const Window& after) {
  const double best = std::max(before.rate(), after.rate());
  const double mean = (before.rate() + after.rate()) / 2;
  fmt::print(
      "ratio (b)/(a') answered MADs/s: {:.2f} against the faster raw client, {:.2f} against "
      "their mean (target >= 0.9)\n",
      ours.rate() / best, ours.rate() / mean);
  RoundRatios r{ours.rate() / mean, 0};
  const double raw_cpu = (before.cpu_us_per_mad() + after.cpu_us_per_mad()) / 2;
  if (raw_cpu > 0) {
    r.cpu = ours.cpu_us_per_mad() / raw_cpu;
    fmt::print(
        "CPU per answered MAD: poller {:.2f} us, raw client {:.2f} us (their mean): {:.2f}x\n",
        ours.cpu_us_per_mad(), raw_cpu, r.cpu);
  }
  return r;
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): escaping is a bug; std::terminate reports it
int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows even if the run is cut short
  double window = 10;
  unsigned rounds = 1;
  if (argc > 3) return usage();
  if (argc >= 2) {
    const auto seconds = parse_count(argv[1], 1, 3600);
    if (!seconds) return usage();
    window = *seconds;
  }
  if (argc == 3) {
    const auto n = parse_count(argv[2], 1, 20);
    if (!n) return usage();
    rounds = *n;
  }
  auto topology = discover(DiscoveryOptions{});
  if (!topology) {
    fmt::print(stderr, "discovery failed: {}\n", topology.error());
    return 1;
  }
  std::vector<Target> targets;
  for (const auto& p : topology->ports) {
    if (p.remote && p.lid != 0) targets.push_back({p.lid, p.key.port});
  }
  if (targets.empty()) {
    fmt::print(stderr, "no linked port with a LID to read\n");
    return 1;
  }
  fmt::print("fabric: {} nodes, {} linked ports; window {}\n", topology->nodes.size(),
             targets.size(), kWindow);
  umad_init();
  // The raw client for `seconds`; nothing (and why, said) when its port cannot be opened.
  const auto raw_for = [&](double seconds) -> std::optional<Window> {
    const RawPort port;
    if (!port.error().empty()) {
      fmt::print(stderr, "raw client: {}\n", port.error());
      return std::nullopt;
    }
    return raw_window(port, targets, seconds);
  };
  if (const char* baseline = std::getenv("POLL_BENCH_BASELINE_SECONDS")) {
    auto w = raw_for(std::atof(baseline));
    if (!w) return 1;
    // run_scale_bench reads these two lines.
    fmt::print(
        "(a') baseline, PortCounters and Extended alternating: mean over {} sweeps in {:.1f} s, "
        "{:.0f} MADs/s\n",
        w->sweeps, w->seconds, w->rate());
    if (w->answered > 0) {
      fmt::print("(a') client CPU: {:.3f} us per answered MAD\n", w->cpu_us_per_mad());
    }
    return 0;
  }
  auto before = raw_for(window);
  if (!before) return 1;
  print_raw("before", *before);
  // A client's rate moves between windows (the simulator drifts; unpinned, threads land on
  // other cores): with several rounds, each poller window is judged against the raw windows on
  // either side of it, and the median round is the figure.
  std::vector<double> rate_ratios;
  std::vector<double> cpu_ratios;
  for (unsigned round = 1; round <= rounds; ++round) {
    if (rounds > 1) fmt::print("== round {} of {}\n", round, rounds);
    auto ours = poller_window(window);
    if (!ours) {
      fmt::print(stderr, "poller failed: {}\n", ours.error());
      return 1;
    }
    fmt::print(
        "(b) ibpulse poller: {} answered in {:.2f} s over {} sweeps = {:.0f} MADs/s, {} stale "
        "port reads, {:.2f} us CPU and {:.2f} waits per answered MAD\n",
        ours->answered, ours->seconds, ours->sweeps, ours->rate(), ours->unread,
        ours->cpu_us_per_mad(), ours->waits_per_mad());
    auto after = raw_for(ours->seconds);
    if (!after) return 1;
    print_raw("after", *after);
    const RoundRatios r = print_round(*before, *ours, *after);
    rate_ratios.push_back(r.rate);
    if (r.cpu > 0) cpu_ratios.push_back(r.cpu);
    before = after;  // the next poller window's "before"
  }
  if (rounds > 1) {
    fmt::print("median of {} rounds: (b)/(a') answered MADs/s {:.2f} against their mean{}\n",
               rounds, median(rate_ratios),
               cpu_ratios.empty()
                   ? std::string()
                   : fmt::format(", CPU per answered MAD {:.2f}x", median(cpu_ratios)));
  }
  return 0;
}
