#pragma once
// The daemon's converter thread: drains the poller's ring into the Converter, publishes a
// snapshot every publish interval and logs what operators must know (foreign clears, our own
// clears, latched counters).
//
// Thread safety: run() on one thread; set_topology(), update_port() and stats() from any.

#include <atomic>
#include <memory>
#include <mutex>

#include "daemon_config.h"
#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"

namespace ibpulse::cli {

class ConvertLoop {
 public:
  using SampleLogger = void (*)(const collector::RawSample&);
  ConvertLoop(const DaemonConfig& config, collector::SampleRing& ring, collector::ClearRing& clears,
              converters::SnapshotStore& store, SampleLogger trace_sample = nullptr);

  void run(const std::atomic<bool>& stop);

  void set_topology(const collector::Topology& topology);
  void update_port(const collector::Port& port);  // a PortInfo read saw it change

  converters::ConverterStats stats() const;
  // At trace level: every port's non-zero totals (what the exporters will serve).
  void log_totals() const;

 private:
  void report(const collector::RawSample& s, const converters::ApplyEvents& events);
  void take_topology();

  collector::SampleRing& ring_;
  SampleLogger trace_sample_;
  converters::SnapshotStore& store_;
  std::chrono::milliseconds publish_interval_;
  converters::Converter converter_;
  mutable std::mutex mutex_;  // guards pending_, topology_, stats_
  std::shared_ptr<collector::Topology> pending_;
  std::shared_ptr<const collector::Topology> topology_;
  converters::ConverterStats stats_;
  unsigned foreign_logged_ = 0;
};

}  // namespace ibpulse::cli
