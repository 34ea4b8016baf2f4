// The threshold engine on a 70,000-port snapshot (an ~11,000-host fabric) with the default rule
// set, once per published snapshot as the daemon runs it: the time per evaluation, as a share
// of the 1 s publish interval, and against a baseline run in the same process that only reads
// every counter the rules read once per port (the least any evaluation must do).
//
//   build/bench/alerts_bench
#include <benchmark/benchmark.h>

#include <chrono>

#include "ibpulse/exporters/alerts/engine.h"
#include "synthetic_fabric.h"

namespace ibpulse::bench {
namespace {

using namespace std::chrono_literals;
constexpr uint32_t kPorts = 70000;

converters::FabricSnapshot& snapshot() {
  static converters::FabricSnapshot s = *synthetic_snapshot(kPorts);
  return s;
}

double read_only_seconds = 0;  // per snapshot, of BM_ReadCountersOnce

void report(benchmark::State& state, double seconds_per_snapshot) {
  state.counters["ms_per_snapshot"] = seconds_per_snapshot * 1e3;
  state.counters["share_of_1s_interval"] = seconds_per_snapshot;
  if (read_only_seconds > 0) state.counters["vs_read"] = seconds_per_snapshot / read_only_seconds;
}

double seconds_per_iteration(benchmark::State& state, std::clock_t start) {
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC /
         static_cast<double>(state.iterations());
}

void BM_ReadCountersOnce(benchmark::State& state) {
  const auto rules = exporters::alerts::default_rules();
  uint64_t sum = 0;
  const std::clock_t start = std::clock();
  for (auto _ : state) {
    for (const auto& p : snapshot().ports) {
      for (const auto& r : rules) {
        if (r.kind != exporters::alerts::RuleKind::kCounter) continue;
        if (r.source.kind == exporters::alerts::CounterSource::Kind::kCounter) {
          sum += p.totals[r.source.index];
        }
      }
      sum += p.oper_status == converters::OperStatus::kUp;
    }
  }
  benchmark::DoNotOptimize(sum);
  read_only_seconds = seconds_per_iteration(state, start);
  report(state, read_only_seconds);
}

// `alerting`: ports (every 100th) whose symbol errors rise 20 per snapshot, so that 1% of the
// fabric has a raised alert throughout.
void run_engine(benchmark::State& state, bool alerting) {
  converters::FabricSnapshot& s = snapshot();
  exporters::alerts::ThresholdEngine engine(exporters::alerts::default_rules(), {});
  const auto wall = std::chrono::system_clock::now();
  const size_t symbol = schema::index_of(schema::CounterId::kSymbolError);
  size_t decisions = 0;
  const auto next = [&] {
    s.published += 1s;
    if (alerting) {
      for (size_t i = 0; i < s.ports.size(); i += 100)
        s.ports[i].totals.set(symbol, s.ports[i].totals[symbol] + 20);
    }
    decisions += engine.evaluate(s, wall).size();
  };
  // A daemon runs for hours: measured once the rules' one-minute windows are full, not while
  // their histories fill.
  for (int warm_up = 0; warm_up < 90; ++warm_up)
    next();
  const std::clock_t start = std::clock();
  for (auto _ : state)
    next();
  state.counters["active_alerts"] = static_cast<double>(engine.active().size());
  benchmark::DoNotOptimize(decisions);
  report(state, seconds_per_iteration(state, start));
}

void BM_EvaluateDefaultRules(benchmark::State& state) {
  run_engine(state, false);
}

void BM_EvaluateDefaultRulesOnePercentAlerting(benchmark::State& state) {
  run_engine(state, true);
}

BENCHMARK(BM_ReadCountersOnce)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EvaluateDefaultRules)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EvaluateDefaultRulesOnePercentAlerting)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ibpulse::bench

BENCHMARK_MAIN();
