#pragma once
// A snapshot's series as remote write sends them: rendered by the Prometheus renderer (so the
// names, labels and values are exactly those of /metrics), read back line by line, selected by
// remote-write.metrics, each with the time of the reading it comes from.
//
// Timestamps: a counter of a port (a `counter` family with node_guid and port labels) carries
// the port's last_read, converted from steady_clock to Unix time; every other series (gauges,
// computed when the snapshot is published or read by PortInfo at other times) carries the
// snapshot's publish time. A gauge stamped with last_read could take two values at one
// timestamp, which Prometheus rejects (the whole request with it).
//
// Thread safety: read() is const and uses only its arguments; one thread per scratch buffer.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/remote_write/series_text.h"

namespace ibpulse::exporters::remote_write {

// steady_clock -> Unix milliseconds: `offset` is system_clock minus steady_clock, measured once
// per snapshot (injected in tests).
int64_t unix_ms(converters::Clock::time_point t, std::chrono::milliseconds offset);
std::chrono::milliseconds clock_offset();

class SnapshotSamples {
 public:
  SnapshotSamples(prometheus::MetricGroups groups, MetricSelection selection)
      : renderer_(groups), selection_(std::move(selection)) {}

  // `key` is series_hash(line.series).
  using Each = std::function<void(const SeriesLine& line, uint64_t key, int64_t timestamp_ms)>;
  void read(const converters::FabricSnapshot& snapshot, std::chrono::milliseconds offset,
            std::string& scratch, const Each& each) const;
  // Other exposition text (the daemon's own metrics), every sample at `timestamp_ms`.
  void read_text(std::string_view text, int64_t timestamp_ms, const Each& each) const;

 private:
  prometheus::FabricRenderer renderer_;
  MetricSelection selection_;
};

}  // namespace ibpulse::exporters::remote_write
