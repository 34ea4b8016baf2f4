#pragma once
// Prometheus remote write of every published snapshot (docs/remote-write.md): a thread of its
// own reads the latest snapshot from the store (it never blocks polling or converting), turns
// it into samples (snapshot_samples.h), filters them (change_filter.h, one filter per
// receiver) and queues them per receiver and shard; each shard's sender POSTs them
// (shard_sender.h). A series always goes to the same shard of a receiver, so its samples stay
// in order.
//
// Thread safety: status() may be called from any thread. write() is for one thread: the
// writer's own once follow() ran, else the caller's (tests, benchmarks).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/prometheus/renderer.h"
#include "ibpulse/exporters/prometheus/self_metrics.h"
#include "ibpulse/exporters/remote_write/options.h"
#include "ibpulse/exporters/remote_write/snapshot_samples.h"

namespace ibpulse::exporters::remote_write {

class GoneSeries;

// `text` (exposition format) with `instance="<instance>"` added to every sample line: the
// daemon's own series as a scrape would label them.
std::string with_instance(std::string_view text, std::string_view instance);

class RemoteWriter {
 public:
  // The daemon's writer: none (nullptr) without endpoints; else started on `store` (which
  // outlives it), each receiver logged.
  // The daemon's own metrics (`ibpulse_*`) as exposition text, appended to its argument: sent
  // with every snapshot at its publish time, so that a collector that only pushes is still
  // visible (ibpulse_shard_info). Called on the writer's thread.
  using DaemonText = std::function<void(std::string&)>;

  // `healths`: the link health to send with each snapshot (none: no health gauges).
  static std::unique_ptr<RemoteWriter> start(const WriterOptions& options,
                                             prometheus::MetricGroups groups,
                                             const converters::SnapshotStore& store,
                                             DaemonText daemon_text = {},
                                             const alerts::HealthStore* healths = nullptr);

  // `groups` are the collect.* groups /metrics uses. Starts the senders (not the reading
  // thread: see follow()).
  RemoteWriter(WriterOptions options, prometheus::MetricGroups groups);
  ~RemoteWriter();  // stops every thread; queued samples are not sent
  RemoteWriter(const RemoteWriter&) = delete;
  RemoteWriter& operator=(const RemoteWriter&) = delete;

  // The reading thread: every new snapshot of `store` goes to write(). `store` outlives it.
  void follow(const converters::SnapshotStore& store);
  void stop();  // idempotent; status() stays valid

  // One snapshot: samples into the queues, stale markers for the series that left since the
  // previous one. `offset` converts steady_clock to Unix time (snapshot_samples.h).
  void write(std::shared_ptr<const converters::FabricSnapshot> snapshot,
             std::chrono::milliseconds offset);

  // Per receiver, in the configured order.
  std::vector<prometheus::RemoteWriteStatus> status() const;

 private:
  struct Target;
  void stale_markers(const std::vector<GoneSeries>& gone, int64_t publish_ms);
  size_t queued_bytes() const;  // over every target and shard

  WriterOptions options_;
  DaemonText daemon_text_;
  std::string instance_;  // the daemon's own series' `instance` label
  struct Reader;
  std::unique_ptr<Reader> reader_;
  std::vector<std::unique_ptr<Target>> targets_;
  std::shared_ptr<const converters::FabricSnapshot> previous_;
  // The link health sent with each snapshot (its gauges after the snapshot's series, in the
  // order the filters keep), and the one sent last, for its stale markers.
  const alerts::HealthStore* healths_ = nullptr;
  std::shared_ptr<const alerts::HealthSnapshot> previous_health_;
  StableClockOffset clock_offset_{clock_offset()};
  std::atomic<uint64_t> snapshots_written_{0}, snapshots_skipped_{0};
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ibpulse::exporters::remote_write
