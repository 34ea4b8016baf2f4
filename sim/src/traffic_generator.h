#pragma once
// The traffic generator's state and tick (see ibpulse/sim/traffic.h for the model): the ports
// it drives, each direction of each link, the error and congestion wait rules, and the
// PerformanceSet lines of one tick.
//
// Thread safety: one thread; `stop` may be set from any thread or a signal handler.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/sim/traffic.h"
#include "pma_reader.h"
#include "traffic_congestion.h"

namespace ibpulse::sim {

uint64_t saturating_add(uint64_t a, uint64_t b);

// `PerformanceSet "node"[port] Attribute.Field=value`.
std::string set_line(const DumpPort& p, std::string_view attribute, std::string_view field,
                     uint64_t value);

class Generator {
 public:
  using Clock = std::chrono::steady_clock;

  Generator(const FabricState& fabric, const TrafficOptions& options, std::vector<DumpPort> ports,
            std::unique_ptr<PmaReader> reader)
      : fabric_(fabric), options_(options), ports_(std::move(ports)), reader_(std::move(reader)) {}

  Status prepare();
  Result<TrafficReport> run(const std::atomic<bool>& stop, const TickFn& on_tick);

 private:
  struct ErrorRule {
    const PmaAttribute* attribute;
    std::string field;
    double per_second;
    Clock::duration active{};
    uint64_t injected = 0;
  };

  // A counter delta due this tick. Deltas for one field are summed before its one write: each
  // write sets current + delta, so a second write would overwrite the first (two error rules
  // for one field of a port).
  struct PendingAdd {
    const PmaAttribute* attribute;
    const PmaField* field;
    uint64_t delta;
  };

  struct Target {
    const DumpPort* port;
    std::vector<ErrorRule> rules;
    std::optional<ErrorRule> wait;  // PortXmitWait of a congestion root or victim
    std::map<std::string_view, CounterValues> current;  // attribute name -> values this tick
    std::vector<PendingAdd> pending;
    bool readable = false;
  };

  struct Direction {
    size_t from;
    size_t to;
    double bytes_per_s;
    Clock::duration active{};  // time both ends were readable
    uint64_t dwords = 0;
    uint64_t pkts = 0;
  };

  Status add_directions(const std::vector<CongestedPort>& plan);
  void attach_wait_rules(const std::vector<CongestedPort>& plan);
  Status attach_error_rules();
  Status read_counters(Target& t);
  void add(size_t target, const PmaAttribute* attribute, std::string_view field, uint64_t delta);
  void write_pending();
  void note_latched(size_t target, std::string name);
  void move_traffic(Clock::duration dt);
  void inject_errors(Clock::duration dt);
  void inject_waits(Clock::duration dt);
  static uint64_t advance(ErrorRule& rule, Clock::duration dt);
  Status tick(Clock::duration dt);

  const FabricState& fabric_;
  const TrafficOptions& options_;
  std::vector<DumpPort> ports_;
  std::unique_ptr<PmaReader> reader_;
  const PmaAttribute* counters_ = find_pma_attribute("PortCounters");
  const PmaAttribute* extended_ = find_pma_attribute("PortCountersExtended");
  std::vector<Target> targets_;
  std::vector<Direction> directions_;
  std::vector<std::string> lines_;
  TrafficReport report_;
};

}  // namespace ibpulse::sim
