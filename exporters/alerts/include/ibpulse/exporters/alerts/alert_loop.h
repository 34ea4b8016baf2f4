#pragma once
// The daemon's alerts thread: runs the link health engine and the threshold engine on every
// new snapshot, publishes the health for the exporters, logs what it raises and clears, hands
// the notifications storm control lets through to a notifier (the SNMP agent's queue) and
// keeps a copy of the active alerts for /metrics and the SNMP scalars.
//
// Thread safety: run() on one thread; status() from any.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/exporters/alerts/health.h"

namespace ibpulse::exporters::alerts {

struct AlertStatus {
  std::vector<AlertEvent> active;
  EngineStats engine;
};

class AlertLoop {
 public:
  using Notifier = std::function<void(AlertEvent)>;
  // `health_file`: where the link health is kept across restarts (empty: nowhere), saved
  // every `save_interval` and at stop.
  AlertLoop(std::vector<Rule> rules, EngineOptions options, HealthOptions health,
            const converters::SnapshotStore& snapshots, HealthStore& healths,
            std::filesystem::path health_file = {},
            std::chrono::milliseconds save_interval = std::chrono::minutes(1));

  // Where notifications go (set before run(); none: only the log and /metrics).
  void set_notifier(Notifier notifier) { notifier_ = std::move(notifier); }
  void run(const std::atomic<bool>& stop);
  // A Notice the subnet manager forwarded (any thread): notified by run() within its next
  // wait for a snapshot (50 ms), named from the last snapshot evaluated (those that come
  // before a snapshot with a topology wait for one; beyond kMaxWaitingNotices, the oldest go).
  static constexpr size_t kMaxWaitingNotices = 4096;
  void post(collector::SmNotice notice);
  // A new rule set (SIGHUP), applied by run() before the next snapshot it evaluates.
  void reload(std::vector<Rule> rules);
  AlertStatus status() const;  // a copy of every active alert: for /metrics
  // The cheap part, for the SNMP agent's thread, which reads it often.
  size_t active_count() const;
  uint64_t suppressed() const;

 private:
  static void report(const Decision& d);
  void forward_notices();
  void load_health();
  void save_health();

  ThresholdEngine engine_;
  HealthEngine health_;
  const converters::SnapshotStore& snapshots_;
  HealthStore& healths_;
  std::filesystem::path health_file_;
  std::chrono::milliseconds save_interval_;
  Notifier notifier_;
  mutable std::mutex mutex_;  // guards status_, reloaded_ and notices_
  AlertStatus status_;
  std::optional<std::vector<Rule>> reloaded_;
  std::vector<collector::SmNotice> notices_;  // posted, not yet forwarded
  uint64_t notices_dropped_ = 0;
};

// Logs the rule set at start (one line per rule at debug, a summary at info).
void log_rules(const std::vector<Rule>& rules);

}  // namespace ibpulse::exporters::alerts
