// Converter throughput: samples converted per second on one core, through the real
// ring, for 70,000 distinct ports in random order, each sample a PortCounters or
// PortCountersExtended reading with every field set; and the cost of a 70,000-port snapshot.
// BM_RingOnly is the baseline (the same samples through the ring, popped the same way, not
// converted); the convert benchmarks print `vs_ring`, their rate as a fraction of the
// baseline's in this process, so the converter's own cost shows apart from the machine's speed.
// The daemon drains the ring kDrain samples at a time into Converter::apply_batch
// (BM_ConvertSamples); BM_ConvertOneByOne pops and applies one sample at a time.
//
//   build/bench/convert_bench   (targets: >= 5M samples/s, snapshot < 20 ms)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <span>
#include <vector>

#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/state_file.h"

namespace {

using namespace ibpulse;
using collector::RawSample;
using schema::Attribute;

constexpr uint32_t kPorts = 70000;
constexpr size_t kBatch = 8192;
constexpr size_t kDrain = 64;  // samples popped at once, as app/src/convert_loop.cc does

double ring_only_rate = 0;  // samples/s of BM_RingOnly, for the ratios

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

// The kPorts ports, sorted by key as discovery lists them, on 4X EDR links.
std::shared_ptr<const collector::Topology> topology() {
  static const auto t = [] {
    auto out = std::make_shared<collector::Topology>();
    for (const RawSample& s : samples()) {
      if (s.attribute != Attribute::kPortCounters) continue;
      collector::Port& p = out->ports.emplace_back();
      p.key = s.port;
      p.link.width_active = 2;
      p.link.speed_ext_active = 2;
    }
    std::sort(out->ports.begin(), out->ports.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
    return out;
  }();
  return t;
}

// Each round moves every counter on, so every sample carries real deltas. `consume` gets the
// samples popped at once (a span of up to kDrain, or of one with one_by_one). Returns the rate
// in samples/s of CPU time, as items_per_second counts it.
template <typename Consume>
double run(benchmark::State& state, Consume consume, bool one_by_one = false) {
  collector::SampleRing ring(kBatch);
  const auto& all = samples();
  size_t next = 0;
  uint64_t round = 0;
  auto now = converters::Clock::now();
  std::vector<RawSample> drained(kDrain);
  const std::clock_t start = std::clock();
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
    while (const size_t n = ring.pop(drained.data(), one_by_one ? 1 : kDrain))
      consume(std::span<const RawSample>(drained.data(), n));
  }
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  const auto items = state.iterations() * static_cast<int64_t>(kBatch);
  state.SetItemsProcessed(items);
  return static_cast<double>(items) / seconds;
}

void report_ratio(benchmark::State& state, double rate) {
  if (ring_only_rate > 0) state.counters["vs_ring"] = rate / ring_only_rate;
}

void BM_RingOnly(benchmark::State& state) {
  uint64_t sum = 0;
  ring_only_rate = run(state, [&](std::span<const RawSample> batch) {
    for (const RawSample& s : batch)
      sum += s.values[0];
  });
  benchmark::DoNotOptimize(sum);
}

void BM_ConvertSamples(benchmark::State& state) {
  converters::Converter converter({});
  if (state.range(0) != 0) converter.set_topology(topology());
  std::vector<converters::ApplyEvents> events(kDrain);
  report_ratio(state, run(state, [&](std::span<const RawSample> batch) {
                 converter.apply_batch(batch, events);
               }));
}

void BM_ConvertOneByOne(benchmark::State& state) {
  converters::Converter converter({});
  report_ratio(state, run(
                          state,
                          [&](std::span<const RawSample> batch) {
                            for (const RawSample& s : batch)
                              converter.apply(s);
                          },
                          true));
}

void BM_Snapshot70kPorts(benchmark::State& state) {
  converters::Converter converter({});
  for (const RawSample& s : samples())
    converter.apply(s);
  converter.set_topology(topology());
  for (auto _ : state) {
    auto snap = converter.snapshot(converters::Clock::now());
    benchmark::DoNotOptimize(snap);
  }
  state.counters["ports"] = kPorts;
}

// The same with one port gone from discovery (notPresent rows are merged in, not sorted).
void BM_Snapshot70kPortsOneGone(benchmark::State& state) {
  converters::Converter converter({});
  for (const RawSample& s : samples())
    converter.apply(s);
  auto fewer = std::make_shared<collector::Topology>(*topology());
  fewer->ports.erase(fewer->ports.begin() + static_cast<std::ptrdiff_t>(fewer->ports.size() / 2));
  converter.set_topology(fewer);
  for (auto _ : state) {
    auto snap = converter.snapshot(converters::Clock::now());
    benchmark::DoNotOptimize(snap);
  }
  state.counters["ports"] = kPorts;
}

// A topology whose port set changed: the converter lays its states out anew.
void BM_TopologyChange70kPorts(benchmark::State& state) {
  converters::Converter converter({});
  for (const RawSample& s : samples())
    converter.apply(s);
  const auto all = topology();
  auto fewer = std::make_shared<collector::Topology>(*all);
  fewer->ports.pop_back();
  bool which = false;
  for (auto _ : state) {
    converter.set_topology((which = !which) ? all : fewer);
  }
  state.counters["ports"] = kPorts;
}

// The state file's encoding on the converter thread (the write and fsync run on another).
void BM_EncodeState70kPorts(benchmark::State& state) {
  converters::Converter converter({});
  for (const RawSample& s : samples())
    converter.apply(s);
  converter.set_topology(topology());
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string encoded = converters::encode_state(converter, 0xfe80000000000000ull);
    bytes = encoded.size();
    benchmark::DoNotOptimize(encoded.data());
  }
  state.counters["ports"] = kPorts;
  state.counters["megabytes"] = static_cast<double>(bytes) / 1e6;
}

BENCHMARK(BM_RingOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvertSamples)->Unit(benchmark::kMillisecond)->Arg(0)->Arg(1);
BENCHMARK(BM_ConvertOneByOne)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Snapshot70kPorts)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Snapshot70kPortsOneGone)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopologyChange70kPorts)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeState70kPorts)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
