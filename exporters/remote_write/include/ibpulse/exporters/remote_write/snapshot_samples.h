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

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/remote_write/series_text.h"

namespace ibpulse::exporters::remote_write {

// steady_clock -> Unix milliseconds: `offset` is system_clock minus steady_clock (a
// StableClockOffset's in the writer; injected in tests).
int64_t unix_ms(converters::Clock::time_point t, std::chrono::milliseconds offset);
std::chrono::milliseconds clock_offset();

// The offset the writer stamps samples with, steady from one snapshot to the next. Measured
// anew each time, it moves by a millisecond either way (the two clocks are read apart and
// each truncated), and a reading sent twice (resent unchanged, or again after the fabric's
// layout changed) went out 1 ms earlier the second time: Prometheus rejects such a request
// whole ("out of order sample"). Only a move of more than a second, the system clock set, is
// taken (samples after a step back are then out of order at the receiver: unavoidable).
//
// Thread safety: update() from one thread, current() from any.
class StableClockOffset {
 public:
  explicit StableClockOffset(std::chrono::milliseconds first) : offset_ms_(first.count()) {}
  // The offset to use with a fresh measurement; `stepped` (if given) says it moved.
  std::chrono::milliseconds update(std::chrono::milliseconds fresh, bool* stepped = nullptr);
  std::chrono::milliseconds current() const {
    return std::chrono::milliseconds(offset_ms_.load(std::memory_order_relaxed));
  }

 private:
  std::atomic<int64_t> offset_ms_;
};

class SnapshotSamples {
 public:
  SnapshotSamples(prometheus::MetricGroups groups, MetricSelection selection)
      : renderer_(groups), selection_(std::move(selection)) {}

  // `key` is series_hash(line.series).
  using Each = std::function<void(const SeriesLine& line, uint64_t key, int64_t timestamp_ms)>;
  void read(const converters::FabricSnapshot& snapshot, std::chrono::milliseconds offset,
            std::string& scratch, const Each& each) const;
  // The link health gauges (metric group `health`), every sample at `timestamp_ms`.
  void read_health(const alerts::HealthSnapshot& health, int64_t timestamp_ms, std::string& scratch,
                   const Each& each) const;
  // Other exposition text (the daemon's own metrics), every sample at `timestamp_ms`.
  void read_text(std::string_view text, int64_t timestamp_ms, const Each& each) const;

 private:
  prometheus::FabricRenderer renderer_;
  MetricSelection selection_;
};

}  // namespace ibpulse::exporters::remote_write
