#pragma once
// The threshold engine: evaluates every rule on every port of each new snapshot, with the
// rule's window, hold time and hysteresis, follows port state (IF-MIB linkDown/linkUp), and
// applies storm control before anything is notified. It only computes: the daemon logs the
// decisions, hands the notified ones to the SNMP agent and exports active() to Prometheus.
//
// Thread safety: one thread calls evaluate(); active() and stats() only from that thread too
// (the daemon publishes copies).

#include <chrono>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/event.h"
#include "ibpulse/exporters/alerts/health.h"
#include "ibpulse/exporters/alerts/rule.h"

namespace ibpulse::exporters::alerts {

struct EngineOptions {
  // Storm control: at most rate_limit notifications per rate_interval over the whole fabric;
  // each interval that withholds any ends with one kRateLimited summary.
  unsigned rate_limit = 50;
  milliseconds rate_interval{10000};
  // A port's linkDown/linkUp pair is notified; further link changes of that port within the
  // hold-down are withheld, and its final state is notified when the hold-down ends.
  milliseconds link_hold_down{60000};
  // IB-SMA-MIB's threshold traps: 129 (130) when a port's LocalLinkIntegrityErrors
  // (ExcessiveBufferOverrunErrors) grew past its PortInfo LocalPhysErrorThreshold
  // (OverrunErrorThreshold) within this window; once per window and port.
  milliseconds sma_window{60000};
};

struct Decision {
  AlertEvent event;
  bool notify = false;  // false: storm control withheld it (it is still logged and counted)
};

struct EngineStats {
  uint64_t raised = 0, cleared = 0, link_changes = 0;
  uint64_t sma_events = 0;         // IB-SMA-MIB notifications (kSma)
  uint64_t sm_master_changes = 0;  // a subnet's master SM changed or was lost (kSmMaster)
  uint64_t notified = 0, suppressed = 0;
};

class ThresholdEngine {
 public:
  ThresholdEngine(std::vector<Rule> rules, EngineOptions options);
  ~ThresholdEngine();

  // One new snapshot (call once per published snapshot); `wall` stamps the events. `health`:
  // the link health of this same snapshot, for the kHealth rules (none: they judge nothing).
  std::vector<Decision> evaluate(const converters::FabricSnapshot& snapshot,
                                 std::chrono::system_clock::time_point wall,
                                 const HealthSnapshot* health = nullptr);

  // Notices the subnet manager forwarded (collector/sm_subscription.h) as IB-SMA-MIB
  // notifications (kSma, `notice` set), through storm control. Each names the node (and port)
  // its LID has in the topology of the last snapshot evaluated; one whose LID is not there
  // names no node (GUID 0). `now` is the converter's clock, as a snapshot's published time.
  std::vector<Decision> forward(std::vector<collector::SmNotice> notices,
                                converters::Clock::time_point now,
                                std::chrono::system_clock::time_point wall);

  // A new rule set (SIGHUP), applied at the next evaluate(): instances of rules kept by name
  // stay raised and are judged by the new definition from then on, increases of the same
  // counter and window keep their history, and raised instances of rules that are gone clear
  // (managers never keep an alarm nothing will clear).
  void replace_rules(std::vector<Rule> rules);

  // The raised rule instances now (kind kRaised, `when` = when each was raised).
  std::vector<AlertEvent> active() const;
  EngineStats stats() const;
  const std::vector<Rule>& rules() const { return rules_; }

 private:
  struct Impl;
  std::vector<Rule> rules_;
  std::optional<std::vector<Rule>> pending_rules_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibpulse::exporters::alerts
