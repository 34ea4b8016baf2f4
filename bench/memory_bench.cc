// Where the daemon's memory goes at scale: the synthetic fabric (70,000 ports by default) run
// through the pieces a daemon keeps (the topology, the converter fed a sample of every port
// each sweep, snapshots published on a virtual 10 s cadence, the alerts engine with the default
// rules, the SNMP view, a /metrics render into a sink that only counts, remote write's change
// table), then torn down one piece at a time: the heap bytes each piece gave back are what it
// held. Bytes per port, per piece and in total (docs/operations.md, "Memory").
//
// Heap bytes are glibc's in-use count over every arena (mallinfo2: uordblks + hblkhd), so
// freed-but-kept memory (fragmentation) is not in them; RSS is printed beside them for that.
//
//   build/bench/memory_bench [ports] [--core]
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/mapped_allocator.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/remote_write/change_filter.h"
#include "ibpulse/exporters/remote_write/snapshot_samples.h"
#include "ibpulse/exporters/snmp/mib_view.h"
#include "synthetic_fabric.h"

namespace {

using namespace std::chrono_literals;
using namespace ibpulse;
using converters::Clock;
using Snapshot = std::shared_ptr<const converters::FabricSnapshot>;

// The history slots of the alert rules are one per window/6 whatever the cadence, so a 10 s
// virtual publish interval keeps as many as the daemon's 1 s one, in a tenth of the snapshots.
constexpr auto kCadence = 10s;
constexpr int kSweeps = 40;  // 400 s: past the longest default window (5 min) plus its step
// Whether every port also reads the read plan's detail attributes (per-VL, per-lane), as the
// daemon does by default; `--core` leaves them out (PortCounters/Extended only).
bool details = true;

// The heap in use, and the snapshot storage the converters map outside it.
int64_t heap_bytes() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd + converters::detail::mapped_bytes());
}

int64_t rss_bytes() {
  long pages = 0;
  long resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

struct Report {
  double ports = 0;
  int64_t total = 0;
  void line(const char* what, int64_t bytes) {
    total += bytes;
    fmt::print("{:<44} {:>10.1f} MB {:>8.0f} B/port\n", what, static_cast<double>(bytes) / 1e6,
               static_cast<double>(bytes) / ports);
  }
};

// Bytes the heap gets back while `release` runs.
template <typename F>
int64_t freed_by(F&& release) {
  const int64_t before = heap_bytes();
  release();
  return before - heap_bytes();
}

// The pieces, as the daemon's threads hold them between two snapshots.
struct Daemon {
  std::shared_ptr<const collector::Topology> topology;
  std::unique_ptr<converters::Converter> converter;
  converters::SnapshotStore store;
  std::unique_ptr<exporters::alerts::ThresholdEngine> alerts;
  Snapshot alerts_last;  // the alert loop's last evaluated snapshot
  std::shared_ptr<const exporters::snmp::MibView> view;
  std::unique_ptr<exporters::remote_write::ChangeFilter> filter;
  Snapshot remote_previous;  // remote write renders it again for stale markers
  std::string render_scratch, remote_scratch;
};

void sweep(Daemon& d, uint64_t bump, Clock::time_point now) {
  for (const collector::RawSample& s : bench::synthetic_samples(*d.topology, bump, details))
    d.converter->apply(s);
  d.store.publish(d.converter->snapshot(now));
  d.alerts_last = d.store.load();
  d.alerts->evaluate(*d.alerts_last, std::chrono::system_clock::now());
}

// The readers that run once per snapshot whatever they cost: SNMP, a scrape, remote write.
void serve(Daemon& d, uint32_t now_s) {
  const Snapshot snap = d.store.load();
  d.view = std::make_shared<const exporters::snmp::MibView>(snap, exporters::snmp::SystemInfo{},
                                                            Clock::now());
  size_t scraped = 0;
  exporters::prometheus::FabricRenderer().render(
      *snap, d.render_scratch, [&](std::string_view chunk) { scraped += chunk.size(); });
  const exporters::remote_write::SnapshotSamples samples(
      {}, exporters::remote_write::MetricSelection{});
  d.filter->begin(now_s);
  size_t offered = 0;
  samples.read(*snap, 0ms, d.remote_scratch,
               [&](const exporters::remote_write::SeriesLine& line, uint64_t key, int64_t) {
                 offered += d.filter->offer(line.name, key, line.value);
               });
  d.filter->finish();
  d.remote_previous = snap;
  fmt::print("scrape {:.1f} MB, remote write {} series ({} sent)\n",
             static_cast<double>(scraped) / 1e6, d.filter->size(), offered);
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t ports = 70000;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--core") {
      details = false;
    } else {
      ports = static_cast<uint32_t>(std::atoi(argv[i]));
    }
  }
  fmt::print("{} ports{}; sizeof PortSnapshot {} B, PortState {} B, RawSample {} B\n", ports,
             details ? ", detail attributes read" : ", core counters only",
             sizeof(converters::PortSnapshot), sizeof(converters::Converter::PortState),
             sizeof(collector::RawSample));
  const int64_t heap0 = heap_bytes();
  const int64_t rss0 = rss_bytes();
  Daemon d;
  d.topology = bench::synthetic_topology(ports);
  d.converter = std::make_unique<converters::Converter>(converters::ConverterOptions{});
  d.converter->set_topology(d.topology);
  d.alerts = std::make_unique<exporters::alerts::ThresholdEngine>(
      exporters::alerts::default_rules(), exporters::alerts::EngineOptions{});
  d.filter = std::make_unique<exporters::remote_write::ChangeFilter>(true, 300);
  Clock::time_point now{};
  for (int i = 0; i < kSweeps; ++i) {
    now += kCadence;
    sweep(d, static_cast<uint64_t>(i), now);
    if (i >= kSweeps - 2) serve(d, static_cast<uint32_t>(i) * 10);
  }
  // A new snapshot the readers have not picked up yet, as they see it right after a publish.
  sweep(d, kSweeps, now + kCadence);
  const int64_t heap1 = heap_bytes();
  const int64_t rss1 = rss_bytes();
  fmt::print("held: heap {:.1f} MB, RSS {:.1f} MB ({:.0f} B/port, {:.0f} B/port)\n",
             static_cast<double>(heap1 - heap0) / 1e6, static_cast<double>(rss1 - rss0) / 1e6,
             static_cast<double>(heap1 - heap0) / ports, static_cast<double>(rss1 - rss0) / ports);

  Report r{static_cast<double>(ports)};
  r.line("render scratch (one scrape)", freed_by([&] { std::string().swap(d.render_scratch); }));
  r.line("remote write change table (per URL)", freed_by([&] {
           d.filter.reset();
           std::string().swap(d.remote_scratch);
         }));
  r.line("SNMP view (its tables)", freed_by([&] { d.view.reset(); }));
  r.line("alerts engine (histories, scopes)", freed_by([&] { d.alerts.reset(); }));
  r.line("previous snapshot (SNMP view, remote write)",
         freed_by([&] { d.remote_previous.reset(); }));
  r.line("current snapshot (store, alert loop)", freed_by([&] {
           d.alerts_last.reset();
           d.store.publish(nullptr);
         }));
  r.line("converter (port states, index, per-VL/lane)", freed_by([&] { d.converter.reset(); }));
  r.line("topology", freed_by([&] { d.topology.reset(); }));
  fmt::print("{:<44} {:>10.1f} MB {:>8.0f} B/port\n", "sum of the pieces",
             static_cast<double>(r.total) / 1e6, static_cast<double>(r.total) / ports);
  const double ring = 32768.0 * sizeof(collector::RawSample);  // collector.ring-size's default
  fmt::print("{:<44} {:>10.1f} MB {:>8.0f} B/port (not allocated here)\n",
             "sample ring per local port (32,768 x RawSample)", ring / 1e6, ring / ports);
  return 0;
}
