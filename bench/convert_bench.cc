// Converter throughput (issue 4): samples converted per second on one core, through the real
// ring, for 70,000 distinct ports in random order, each sample a PortCounters or
// PortCountersExtended reading with every field set; and the cost of a 70,000-port snapshot.
// BM_RingOnly is the baseline (the same samples through the ring, not converted): the
// counters show samples/s for both; their ratio is the converter's own cost.
//
//   build/bench/convert_bench   (targets: >= 5M samples/s, snapshot < 20 ms)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"

namespace {

using namespace ibpulse;
using collector::RawSample;
using schema::Attribute;

constexpr uint32_t kPorts = 70000;
constexpr size_t kBatch = 8192;

std::vector<RawSample> make_samples() {
  std::vector<RawSample> out;
  const uint64_t ext_all =
      (uint64_t{1} << schema::fields_of(Attribute::kPortCountersExtended).size()) - 1;
  for (uint32_t p = 0; p < kPorts; ++p) {
    for (Attribute a : {Attribute::kPortCounters, Attribute::kPortCountersExtended}) {
      RawSample s;
      s.port = {0x0002c90300000000ull + p / 36, static_cast<uint8_t>(1 + p % 36)};
      s.attribute = a;
      s.field_count = static_cast<uint8_t>(schema::fields_of(a).size());
      s.advertised = (uint64_t{1} << s.field_count) - 1;
      if (a == Attribute::kPortCounters) s.superseded = collector::superseded_fields(ext_all);
      for (size_t i = 0; i < s.field_count; ++i)
        s.values[i] = 1000 + i;
      out.push_back(s);
    }
  }
  std::shuffle(out.begin(), out.end(), std::mt19937(7));
  return out;
}

const std::vector<RawSample>& samples() {
  static const auto s = make_samples();
  return s;
}

// Each round moves every counter on, so every sample carries real deltas.
template <typename Consume>
void run(benchmark::State& state, Consume consume) {
  collector::SampleRing ring(kBatch);
  const auto& all = samples();
  size_t next = 0;
  uint64_t round = 0;
  auto now = converters::Clock::now();
  for (auto _ : state) {
    for (size_t i = 0; i < kBatch; ++i) {
      RawSample s = all[next];
      if (++next == all.size()) {
        next = 0;
        ++round;
      }
      for (size_t f = 0; f < s.field_count; ++f)
        s.values[f] += round * 7;
      s.received = now + std::chrono::seconds(round);
      ring.push(s);
    }
    RawSample s;
    while (ring.pop(s))
      consume(s);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kBatch));
}

void BM_RingOnly(benchmark::State& state) {
  uint64_t sum = 0;
  run(state, [&](const RawSample& s) { sum += s.values[0]; });
  benchmark::DoNotOptimize(sum);
}

void BM_ConvertSamples(benchmark::State& state) {
  converters::Converter converter({});
  run(state, [&](const RawSample& s) { converter.apply(s); });
}

void BM_Snapshot70kPorts(benchmark::State& state) {
  converters::Converter converter({});
  auto topology = std::make_shared<collector::Topology>();
  for (const RawSample& s : samples()) {
    converter.apply(s);
    if (s.attribute == Attribute::kPortCounters) {
      collector::Port& p = topology->ports.emplace_back();
      p.key = s.port;
      p.link.width_active = 2;
      p.link.speed_ext_active = 2;
    }
  }
  std::sort(topology->ports.begin(), topology->ports.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  converter.set_topology(topology);
  for (auto _ : state) {
    auto snap = converter.snapshot(converters::Clock::now());
    benchmark::DoNotOptimize(snap);
  }
  state.counters["ports"] = kPorts;
}

BENCHMARK(BM_RingOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertSamples)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Snapshot70kPorts)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
