#pragma once
// The threshold engine's private state: per rule, its raised (or pending) instances and which
// ports its scope covers; per port, what the link did last. Split from engine.cc so that each
// evaluation step reads as a small function over this state.
//
// Thread safety: the engine's thread only.

#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "history.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "storm_control.h"

namespace ibpulse::exporters::alerts {

using converters::Clock;
inline constexpr Clock::time_point kNever{};

// One rule on one port, from the first time its condition held until it cleared.
struct Instance {
  Clock::time_point true_since = kNever, false_since = kNever;
  bool raised = false, notified = false;
  Clock::time_point last_notice = kNever;  // the last raise we tried to notify
  std::chrono::system_clock::time_point raised_wall{};
  double value = 0;
  uint64_t seen_round = 0;
  // Where it was raised, as the raise said it: the clear carries the same objects even after
  // the port left the fabric.
  uint32_t if_index = 0;
  std::string node_name;
};

struct RuleState {
  CounterHistory* history = nullptr;  // delta and rate rules
  std::unordered_map<collector::PortKey, Instance, collector::PortKeyHash> instances;
  // Whether each port of the current layout is in the rule's scope.
  std::vector<char> in_scope;
  PortLayout scope_layout;
  std::shared_ptr<const collector::Topology> scope_topology;
};

// What one evaluation produces, and the clocks it runs on.
struct Step {
  const converters::FabricSnapshot& snapshot;
  const HealthSnapshot* health = nullptr;  // of the same snapshot, or null
  Clock::time_point now;
  std::chrono::system_clock::time_point wall;
  std::vector<Decision>& out;
};

// An event about port `p` (of `node`, when known) at `wall`: what every alert starts from.
AlertEvent port_event(EventKind kind, const converters::PortSnapshot& p,
                      const collector::Node* node, std::chrono::system_clock::time_point wall);

struct ThresholdEngine::Impl {
  explicit Impl(const EngineOptions& o) : options(o), storm(o) {}

  EngineOptions options;
  StormControl storm;
  EngineStats stats;
  std::vector<std::unique_ptr<CounterHistory>> histories;
  std::vector<RuleState> states;
  PortLayout layout;
  std::vector<const collector::Node*> nodes;  // per snapshot port, or null
  std::vector<const collector::Port*> links;  // per snapshot port: its discovery entry
  // Per snapshot port: its link trained below what both ends can do. Judged from discovery's
  // entries, so only when they change: the peer lookup for every port at every snapshot was an
  // eighth of the engine's time at 70,000 ports.
  std::vector<char> degraded;
  std::shared_ptr<const collector::Topology> indexed_topology;  // what nodes and links point into
  // Per layout row: what the port's link did before.
  struct PortHistory {
    bool seen = false;         // ifOperStatus known: the first sight is no change
    bool ever_active = false;  // Active at some point: down from there is a port going down
    converters::OperStatus oper = converters::OperStatus::kUnknown;
    // Traps 129 and 130: each counter's total where its window started (sma_traps.cc).
    struct SmaWindow {
      Clock::time_point start = kNever;
      uint64_t base = 0;
      bool sent = false;  // this window's trap went out
    };
    std::array<SmaWindow, 2> sma_windows{};
  };
  std::vector<PortHistory> port_history;
  uint64_t round = 0;
  // Traps 144 and 145: what discovery said before. The capability mask by management port
  // (a switch's port 0: {guid, 0}; a CA's own ports), the system image GUID by node.
  std::unordered_map<collector::PortKey, uint32_t, collector::PortKeyHash> capability_masks;
  std::unordered_map<uint64_t, uint64_t> image_guids;
  std::shared_ptr<const collector::Topology> sma_topology;  // the one they were taken from
  // ibpulseSmMasterChanged (sm_master.cc): each subnet's master SM as last told, by
  // Port::subnet, and the SMInfo rounds judged.
  struct SubnetMaster {
    collector::SubnetManagerInfo sm;  // node_guid 0: none (told so)
    uint64_t rounds_without = 0;      // consecutive rounds in which no SM said master
  };
  std::map<uint8_t, SubnetMaster> masters;
  std::vector<uint64_t> sm_rounds_judged;

  void index_ports(const converters::FabricSnapshot& s);
  const std::vector<char>& scope_of(const Rule& rule, RuleState& st,
                                    const converters::FabricSnapshot& s);
  static std::optional<double> measure_health(const Rule& rule, const Step& step, size_t i);
  // IF-MIB link changes: ifOperStatus leaving or reaching up (the first sight is no change).
  void follow_links(Step& step);
  // IB-SMA-MIB notifications from what the snapshots show (sma_traps.cc): 129 and 130 from the
  // counters, 144 and 145 from a new discovery. (128 comes with the link changes.)
  void follow_sma(Step& step);
  void sma_thresholds(Step& step, size_t i);
  void sma_discovery(Step& step);
  AlertEvent sma_event(uint16_t trap, size_t i, const Step& step) const;
  // A subnet's master SM: another one, or none for kSmMasterLostRounds rounds (sm_master.cc).
  void follow_subnet_managers(Step& step);
  void judge_master(uint8_t subnet,
                    const std::vector<const collector::SubnetManagerInfo*>& sm_round,
                    uint64_t rounds_ended, Step& step);
  // `now`: the new master, null when none. `first_sight`: only logged (AlertEvent).
  void notify_master(uint8_t subnet, const collector::SubnetManagerInfo* now,
                     const collector::SubnetManagerInfo& before, Step& step, bool first_sight);
  // The rule's value on port i now; nothing when it cannot be judged.
  std::optional<double> measure(const Rule& rule, RuleState& st, const Step& step, size_t i) const;
  void evaluate_port(const Rule& rule, RuleState& st, Step& step, size_t i);
  // Every rule on every port in its scope (engine.cc says which ports it skips).
  void evaluate_rules(const std::vector<Rule>& rules, Step& step);
  // One port's instance after its condition was judged; false: forget the instance.
  bool update(const Rule& rule, Instance& in, std::optional<double> value, bool holds,
              const AlertEvent& where, Step& step);
  // Instances of ports gone from the snapshot: their condition no longer holds.
  void expire_vanished(const Rule& rule, RuleState& st, Step& step);
  // Hands an event to storm control and records the decision; true when it may be sent.
  bool notify(AlertEvent e, Step& step, bool retry = false);
  void carry_port_history(const std::vector<collector::PortKey>& keys);
  // One state per rule, each increase rule with the history of its counter and window (shared
  // between rules, taken over from `reusable` when one was kept there).
  using HistoryKey = std::pair<std::string, int64_t>;
  void attach_histories(const std::vector<Rule>& rules,
                        std::map<HistoryKey, std::unique_ptr<CounterHistory>> reusable);
  // From `old_rules` to `new_rules` (replace_rules()).
  void adopt(const std::vector<Rule>& old_rules, const std::vector<Rule>& new_rules, Step& step);
  void clear(const Rule& rule, const Instance& in, AlertEvent e, Step& step);
};

}  // namespace ibpulse::exporters::alerts
