// How long the simulated fabric's bookkeeping takes on the benchmark fabric (2,016 hosts,
// radix 64, ~8,000 ports): generating and rendering the topology and reading ibsim's Dump,
// which `sim up` and the traffic generator do on every start.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "ibpulse/sim/dump.h"
#include "ibpulse/sim/topology.h"

namespace {

using namespace ibpulse::sim;

// A Dump of `t` as ibsim prints it (ports only; forwarding tables left out).
std::string synthetic_dump(const Topology& t) {
  std::vector<std::vector<std::pair<unsigned, Endpoint>>> peers(t.nodes.size());
  for (const auto& l : t.links) {
    peers[l.a.node].emplace_back(l.a.port, l.b);
    peers[l.b.node].emplace_back(l.b.port, l.a);
  }
  std::string out = "# Net status - now\n";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    const bool sw = n.type == NodeType::kSwitch;
    out += fmt::format("\n{} {} \"{}\"\tnodeguid {:x}\tsysimgguid {:x}\n", sw ? "Switch" : "Ca",
                       n.ports, n.id, 0x100000 + i, 0x100000 + i);
    if (sw)
      out += fmt::format(
          "{:x}\t[0]\t\"Sma Port\"[0]\t lid {} lmc 0 smlid 1  4x  2.5G Active/LinkUp\n", i, i + 1);
    for (const auto& [port, remote] : peers[i]) {
      out += fmt::format("{:x}\t[{}]\t\"{}\"[{}]\t{}  4x  2.5G Active/LinkUp\n", i, port,
                         t.nodes[remote.node].id, remote.port,
                         sw ? std::string(" ") : fmt::format(" lid {} lmc 0 smlid 1 ", i + 1));
    }
  }
  return out;
}

void BM_FatTreeGenerateAndRender(benchmark::State& state) {
  for (auto _ : state) {
    auto t = fat_tree(2016, 64);
    benchmark::DoNotOptimize(t->render());
  }
}
BENCHMARK(BM_FatTreeGenerateAndRender)->Unit(benchmark::kMillisecond);

void BM_ParseDump(benchmark::State& state) {
  const std::string dump = synthetic_dump(*fat_tree(2016, 64));
  for (auto _ : state) {
    auto ports = parse_dump(dump);
    benchmark::DoNotOptimize(ports);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(dump.size()));
}
BENCHMARK(BM_ParseDump)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
