#pragma once
// The hand-built fabric and clock the threshold engine's unit tests evaluate: a switch with
// ports 1-4 (1 linked to the HCA, 2-4 unlinked) and an HCA with port 1, snapshots at chosen
// seconds with chosen symbol-error and FEC-uncorrectable totals and utilisation.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ibpulse/converters/extra_counters.h"
#include "ibpulse/exporters/alerts/engine.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::exporters::alerts {

using namespace std::chrono_literals;
using converters::Clock;
using converters::FabricSnapshot;
using converters::OperStatus;
using schema::CounterId;

inline constexpr uint64_t kSwitch = 0x0002c90300000001, kHca = 0x0002c90300000010;

// fec_uncorrectable_blocks lane 0 among the extra counters (counter_table() after the core).
inline size_t fec_lane0() {
  const auto table = schema::counter_table();
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    if (table[i].name == "fec_uncorrectable_blocks") return i - schema::kCoreCounterCount;
  }
  ADD_FAILURE() << "no fec_uncorrectable_blocks counter";
  return 0;
}

// A switch with ports 1-4 (1 linked to the HCA, 2 linked to nothing), an HCA with port 1.
class FabricClock {
 public:
  FabricClock() {
    auto t = std::make_shared<collector::Topology>();
    t->nodes = {
        {kSwitch, collector::NodeKind::kSwitch, "leaf01 switch", "leaf01", 4, 0, 1, {}, {}, {}},
        {kHca, collector::NodeKind::kCa, "node07 HCA-1", "node07", 1, 0, 2, {}, {}, {}}};
    std::sort(t->nodes.begin(), t->nodes.end(), [](auto& a, auto& b) { return a.guid < b.guid; });
    for (uint8_t port = 1; port <= 4; ++port)
      t->ports.push_back(port_of(kSwitch, port, port == 1));
    t->ports.push_back(port_of(kHca, 1, true));
    t->ports[0].remote = collector::PortKey{kHca, 1};
    t->ports[4].remote = collector::PortKey{kSwitch, 1};
    std::sort(t->ports.begin(), t->ports.end(), [](auto& a, auto& b) { return a.key < b.key; });
    topology = t;
  }

  static collector::Port port_of(uint64_t guid, uint8_t port, bool active) {
    collector::Port p;
    p.key = {guid, port};
    p.link.state = active ? 4 : 1;
    p.link.phys_state = active ? 5 : 2;
    p.link.width_supported = p.link.width_enabled = 1 | 2;
    p.link.width_active = 2;
    p.link.speed_supported = p.link.speed_enabled = 7;
    p.link.speed_active = 4;
    return p;
  }

  // A port of a new topology, as the daemon publishes one at each change (snapshots share
  // theirs, never changed after).
  collector::Port& link(uint64_t guid, uint8_t port) {
    auto changed = std::make_shared<collector::Topology>(*topology);
    topology = changed;
    return const_cast<collector::Port&>(*changed->find_port({guid, port}));
  }

  // The snapshot `seconds` after the start, with the given symbol-error totals per port.
  FabricSnapshot at(double seconds) {
    FabricSnapshot s;
    s.topology = topology;
    s.published =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    uint32_t if_index = 1;
    for (const auto& port : topology->ports) {
      converters::PortSnapshot p;
      p.key = port.key;
      p.if_index = if_index++;
      p.oper_status = port.active() ? OperStatus::kUp : OperStatus::kDown;
      p.last_read = s.published;
      const auto idx = schema::index_of(CounterId::kSymbolError);
      if (!read) {
        s.ports.push_back(p);
        continue;
      }
      p.present |= 1ull << idx;
      p.totals.set(idx, symbol_errors[port.key]);
      for (const auto& [which, total] : counters) {
        if (which.first != port.key) continue;
        p.present |= 1ull << schema::index_of(which.second);
        p.totals.set(schema::index_of(which.second), total);
      }
      p.present |= 1ull << schema::index_of(CounterId::kXmitData);
      p.utilisation_out = utilisation[port.key];
      if (const auto fec = fec_uncorrectable.find(port.key); fec != fec_uncorrectable.end()) {
        auto extra = std::make_shared<converters::ExtraCounters>();
        extra->set(fec_lane0(), {fec->second, 0, converters::Source::kNarrow, false});
        p.extra = std::move(extra);
      }
      s.ports.push_back(p);
    }
    return s;
  }

  std::shared_ptr<collector::Topology> topology;
  std::map<collector::PortKey, uint64_t> symbol_errors;
  std::map<std::pair<collector::PortKey, CounterId>, uint64_t> counters;  // other totals read
  std::map<collector::PortKey, float> utilisation;
  std::map<collector::PortKey, uint64_t> fec_uncorrectable;  // lane 0's total; absent: not read
  bool read = true;  // false: no counter was read yet (the daemon's first snapshots)
  Clock::time_point start = Clock::now();
};

inline const auto kWall = std::chrono::system_clock::time_point{} + 1000h;

inline Rule rule_named(const std::vector<Rule>& rules, const std::string& name) {
  for (const auto& r : rules)
    if (r.name == name) return r;
  ADD_FAILURE() << "no rule " << name;
  return {};
}

inline std::vector<Rule> only(const std::string& name) {
  return {rule_named(default_rules(), name)};
}

// The rules of one configured rule, as a flag gives it (YAML flow text, JSON alike); a test
// failure when it does not parse.
inline std::vector<Rule> configured(const std::string& text) {
  auto node = parse_config_text(text, "x");
  if (!node) {
    ADD_FAILURE() << node.error();
    return {};
  }
  const auto parsed = parse_rules({*node}, false);
  EXPECT_TRUE(parsed.errors.empty()) << (parsed.errors.empty() ? "" : parsed.errors.front());
  return parsed.rules;
}

// Evaluates the snapshot at `t` and returns what it decided.
inline std::vector<Decision> step(ThresholdEngine& e, FabricClock& f, double t) {
  return e.evaluate(f.at(t), kWall);
}

}  // namespace ibpulse::exporters::alerts
