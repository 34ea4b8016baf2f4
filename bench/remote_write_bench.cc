// Remote write of the 70,000-port synthetic snapshot into a receiver that only counts bytes
// (tests/unit/http_receiver.h): how fast the writer thread turns a snapshot into queued samples,
// how fast they are acknowledged, and the bytes per sample on the wire, with and without
// changed-only. The second snapshot moves the four data and packet counters of every port, as
// a busy fabric does every sweep.
//
//   build/bench/remote_write_bench [ports]
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <string>
#include <thread>

#include "http_receiver.h"
#include "ibpulse/exporters/remote_write/writer.h"
#include "ibpulse/schema/counters.h"
#include "synthetic_fabric.h"

namespace {

using namespace std::chrono_literals;
using namespace ibpulse;
using Clock = std::chrono::steady_clock;

std::shared_ptr<const converters::FabricSnapshot> busier(const converters::FabricSnapshot& s) {
  auto next = std::make_shared<converters::FabricSnapshot>(s);
  next->published += 1s;
  for (auto& p : next->ports) {
    for (auto id : {schema::CounterId::kXmitData, schema::CounterId::kRcvData,
                    schema::CounterId::kXmitPackets, schema::CounterId::kRcvPackets}) {
      p.totals.set(schema::index_of(id), p.totals[schema::index_of(id)] + 4096);
    }
  }
  return next;
}

// CPU time of the calling thread: the machine may be shared, wall time alone misleads.
double thread_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Step {
  double write_seconds = 0, write_cpu_seconds = 0, ack_seconds = 0;
  uint64_t samples = 0, bytes = 0;
};

// write() of one snapshot, then until every sample is acknowledged.
Step step(exporters::remote_write::RemoteWriter& w, const testing::HttpReceiver& sink,
          std::shared_ptr<const converters::FabricSnapshot> snap) {
  const auto before = w.status()[0];
  const uint64_t bytes_before = sink.bytes();
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  w.write(std::move(snap), 0ms);
  const auto t1 = Clock::now();
  const double cpu1 = thread_cpu_seconds();
  const auto queued = w.status()[0];
  const uint64_t target = queued.sent + queued.queue_samples;
  while (w.status()[0].sent < target)
    std::this_thread::sleep_for(1ms);
  const auto t2 = Clock::now();
  Step s;
  s.write_seconds = std::chrono::duration<double>(t1 - t0).count();
  s.write_cpu_seconds = cpu1 - cpu0;
  s.ack_seconds = std::chrono::duration<double>(t2 - t0).count();
  s.samples = target - before.sent;
  s.bytes = sink.bytes() - bytes_before;
  if (queued.dropped != before.dropped) fmt::print("warning: {} dropped\n", queued.dropped);
  return s;
}

void run(uint32_t ports, bool changed_only) {
  testing::HttpReceiver sink([](size_t) { return 204; }, false);
  exporters::remote_write::WriterOptions o;
  exporters::remote_write::Endpoint e;
  e.url = sink.url();
  e.queue_samples = 20'000'000;
  e.queue_bytes = size_t{8} << 30;
  o.endpoints.push_back(e);
  o.changed_only = changed_only;
  exporters::remote_write::RemoteWriter w(o, {});
  const auto first = bench::synthetic_snapshot(ports);
  const auto second = busier(*first);
  uint64_t series = 0;  // every series is new in the first snapshot
  for (const auto& [name, snap] : {std::pair{"first (all new)", first}, {"next (busy)", second}}) {
    const Step s = step(w, sink, snap);
    if (series == 0) series = s.samples;
    fmt::print(
        "ports={} changed_only={} snapshot={}: series={} samples_sent={} writer_thread: "
        "wall={:.3f}s cpu={:.3f}s ({:.2f} M series/s of cpu) acknowledged_after={:.3f}s "
        "({:.2f} M samples/s) wire_bytes={} ({:.2f} bytes/sample)\n",
        ports, changed_only, name, series, s.samples, s.write_seconds, s.write_cpu_seconds,
        static_cast<double>(series) / s.write_cpu_seconds / 1e6, s.ack_seconds,
        static_cast<double>(s.samples) / s.ack_seconds / 1e6, s.bytes,
        static_cast<double>(s.bytes) / static_cast<double>(s.samples));
  }
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): escaping is a bug; std::terminate reports it
int main(int argc, char** argv) {
  const uint32_t ports = argc > 1 ? static_cast<uint32_t>(std::stoul(argv[1])) : 70'000;
  run(ports, true);
  run(ports, false);
  return 0;
}
