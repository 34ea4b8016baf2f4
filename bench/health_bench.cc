// The link health pass on a 70,000-port snapshot (an ~11,000-host fabric, its ports linked in
// pairs, 4X EDR), once per published snapshot as the daemon's alerts thread runs it: the time
// per pass, as a share of the 1 s publish interval, and against a baseline run in the same
// process that reads once per port every value the pass reads (the error counters, the
// covered times, the RS-FEC totals and the link).
//
//   build/bench/health_bench
#include <benchmark/benchmark.h>

#include <chrono>

#include "ibpulse/exporters/alerts/health.h"
#include "synthetic_fabric.h"

namespace ibpulse::bench {
namespace {

using namespace std::chrono_literals;
using schema::CounterId;
constexpr uint32_t kPorts = 70000;

// The synthetic snapshot, its ports linked in pairs (port 2k to 2k+1) as cables are.
converters::FabricSnapshot& snapshot() {
  static converters::FabricSnapshot s = [] {
    converters::FabricSnapshot copy = *synthetic_snapshot(kPorts);
    auto linked = std::make_shared<collector::Topology>(*copy.topology);
    for (size_t i = 0; i + 1 < linked->ports.size(); i += 2) {
      linked->ports[i].remote = linked->ports[i + 1].key;
      linked->ports[i + 1].remote = linked->ports[i].key;
    }
    copy.topology = std::move(linked);
    return copy;
  }();
  return s;
}

double read_only_seconds = 0;  // per snapshot, of BM_ReadHealthInputsOnce

void report(benchmark::State& state, double seconds_per_snapshot) {
  state.counters["ms_per_snapshot"] = seconds_per_snapshot * 1e3;
  state.counters["share_of_1s_interval"] = seconds_per_snapshot;
  if (read_only_seconds > 0) state.counters["vs_read"] = seconds_per_snapshot / read_only_seconds;
}

double seconds_per_iteration(benchmark::State& state, std::clock_t start) {
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC /
         static_cast<double>(state.iterations());
}

// The RS-FEC totals' extra counter indexes.
std::vector<size_t> rs_fec_totals() {
  std::vector<size_t> out;
  const auto table = schema::counter_table();
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    if (table[i].label.empty() && table[i].name.starts_with("fec_"))
      out.push_back(i - schema::kCoreCounterCount);
  }
  return out;
}

void BM_ReadHealthInputsOnce(benchmark::State& state) {
  const converters::FabricSnapshot& s = snapshot();
  const auto fec = rs_fec_totals();
  uint64_t sum = 0;
  const std::clock_t start = std::clock();
  for (auto _ : state) {
    size_t t = 0;
    for (const auto& p : s.ports) {
      for (const CounterId id :
           {CounterId::kSymbolError, CounterId::kLinkDowned, CounterId::kLinkErrorRecovery,
            CounterId::kLocalLinkIntegrityErrors, CounterId::kExcessiveBufferOverrunErrors})
        sum += p.total(id);
      sum += p.covered_symbol_ms + p.covered_fec_ms;
      if (p.extra) {
        for (const size_t i : fec) {
          if (const auto e = p.extra->find(i)) sum += e->total;
        }
      }
      while (t < s.topology->ports.size() && s.topology->ports[t].key < p.key)
        ++t;
      sum += s.topology->ports[t].link.speed_ext_active;
    }
  }
  benchmark::DoNotOptimize(sum);
  read_only_seconds = seconds_per_iteration(state, start);
  report(state, read_only_seconds);
}

// `erring`: ports (every 100th) whose symbol errors rise 20 per snapshot, so that 1% of the
// fabric fails throughout. Every port's counts cover each second.
void run_pass(benchmark::State& state, bool erring) {
  converters::FabricSnapshot& s = snapshot();
  exporters::alerts::HealthEngine engine;
  const size_t symbol = schema::index_of(CounterId::kSymbolError);
  size_t failing = 0;
  const auto next = [&] {
    s.published += 1s;
    ++s.sequence;
    for (auto& p : s.ports)
      p.covered_symbol_ms += 1000;
    if (erring) {
      for (size_t i = 0; i < s.ports.size(); i += 100)
        s.ports[i].totals.set(symbol, s.ports[i].totals[symbol] + 20);
    }
    const auto h = engine.evaluate(s);
    failing =
        static_cast<size_t>(std::count_if(h->ports.begin(), h->ports.end(), [](const auto& p) {
          return p.state == exporters::alerts::HealthState::kFailing;
        }));
  };
  // Measured once the one-minute flap windows are full (the 10-minute BER windows hold a
  // slot per 100 s: as many slots from there on).
  for (int warm_up = 0; warm_up < 90; ++warm_up)
    next();
  const std::clock_t start = std::clock();
  for (auto _ : state)
    next();
  state.counters["failing_ports"] = static_cast<double>(failing);
  report(state, seconds_per_iteration(state, start));
}

void BM_HealthPass(benchmark::State& state) {
  run_pass(state, false);
}

void BM_HealthPassOnePercentFailing(benchmark::State& state) {
  run_pass(state, true);
}

BENCHMARK(BM_ReadHealthInputsOnce)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HealthPass)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HealthPassOnePercentFailing)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ibpulse::bench

BENCHMARK_MAIN();
