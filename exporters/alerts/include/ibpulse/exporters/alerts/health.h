#pragma once
// Link health, per port and per link, from each snapshot (docs/health.md): bit error ratios
// over the error counts' covered time, link flaps and error bursts over a window, links
// trained below their capability; a state (ok, degraded, failing) with the reasons for it,
// and the same for each link, both ends combined, so a bad cable is one entry.
//
// Reasons and the state they mean (the worst reason wins):
//   failing:  ber_above_spec (symbol errors), effective_ber_above_spec (RS-FEC uncorrectable
//             blocks), ufm_window (a UFM-style window's error count exceeded), flapping
//             (LinkDowned + LinkErrorRecovery above the flap limit in the flap window)
//   degraded: trained_below_capability (width or speed below what both ends support),
//             error_burst (symbol + link integrity + buffer overrun errors above the burst
//             limit in the flap window)
// Every condition is judged over its own sliding window, so a reason clears once its window
// no longer holds the errors that raised it.
//
// Thread safety: HealthEngine on one thread; HealthSnapshot immutable; HealthStore any.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ibpulse/base/result.h"
#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/congestion.h"

namespace ibpulse::exporters::alerts {

enum class HealthState : uint8_t { kOk, kDegraded, kFailing };
std::string_view health_state_name(HealthState state);

enum HealthReason : uint16_t {
  kReasonBerAboveSpec = 1u << 0,
  kReasonEffectiveBerAboveSpec = 1u << 1,
  kReasonUfmWindow = 1u << 2,
  kReasonFlapping = 1u << 3,
  kReasonTrainedBelowCapability = 1u << 4,
  kReasonErrorBurst = 1u << 5,
};
inline constexpr size_t kHealthReasonCount = 6;
// The name of reason bit `bit` (0-5): "ber_above_spec", ...
std::string_view health_reason_name(size_t bit);
HealthState health_state_of(uint16_t reasons);
// The states an alert rule can watch (`state:` in a rule, docs/alerts.md) and the reasons each
// stands for: "ber-above-spec" (symbol or effective BER, or a UFM window), "link-flapping",
// "health-failing" (any failing reason); 0 for another name.
uint16_t health_rule_reasons(std::string_view state);

enum class BerMethod : uint8_t { kPoisson, kUfm, kBoth };

struct UfmWindowSetting {
  std::string speed;  // "NDR", "HDR", ... as infiniband_port_info's link_speed; empty: all
  std::chrono::milliseconds window{0};
  double ber = 0;
};

// health.maintenance: links with an end on a matching node are excluded from alerts (and shown
// as in maintenance) until `until`.
struct MaintenanceWindow {
  std::string node;  // a node GUID ("0x..."), or a regular expression on node names
  std::chrono::system_clock::time_point until{};
};

// A maintenance window's node as health.maintenance takes it: "0x" and a GUID, or a valid
// pattern (the rules' name patterns: POSIX extended, bounded).
Status check_maintenance_node(const std::string& node);

struct HealthOptions {
  std::chrono::milliseconds ber_window{std::chrono::minutes(10)};
  double ber_spec = 1e-12;
  std::vector<std::pair<std::string, double>> ber_spec_by_speed;  // speed name -> spec
  BerMethod ber_method = BerMethod::kPoisson;
  std::vector<UfmWindowSetting> ufm_windows;  // empty: NVIDIA UFM's NDR pair
  std::chrono::milliseconds flap_window{std::chrono::minutes(1)};
  uint64_t flap_limit = 5;
  uint64_t burst_errors = 100;
  CongestionOptions congestion;  // the congestion pass's (congestion.h)
  std::vector<MaintenanceWindow> maintenance;
  // After a switch is back from a power loss or reboot, how long its links' own alerts stay
  // withheld (the switch_down alert told of it; its flaps and link-down counts are its echo).
  std::chrono::milliseconds switch_hold{std::chrono::minutes(5)};
};

// PortHealth::flags: why a port's own alerts are withheld. Both ends of a link carry them.
enum HealthFlag : uint8_t {
  kFlagSwitchHeld = 1u << 0,   // its switch, or its peer's, is down or just back
  kFlagMaintenance = 1u << 1,  // health.maintenance names its node or its peer's
};

struct PortHealth {
  collector::PortKey key;
  // Errors per bit over the BER window; NaN: no covered time (absent, not 0).
  float symbol_ber = 0, effective_ber = 0, raw_ber = 0;
  float fec_corrected_symbols_per_second = 0;  // NaN: no RS-FEC totals read
  uint32_t link_flaps = 0;                     // in the flap window
  uint16_t reasons = 0;
  HealthState state = HealthState::kOk;
  uint8_t flags = 0;  // HealthFlag bits
};

struct LinkHealth {
  collector::PortKey a, b;  // a < b; b's health is unknown when not polled here (a shard)
  uint16_t reasons = 0;     // both ends'
  HealthState state = HealthState::kOk;
};

struct HealthSnapshot {
  uint64_t sequence = 0;          // the fabric snapshot's it was computed from
  std::vector<PortHealth> ports;  // sorted by key
  std::vector<LinkHealth> links;  // sorted by (a, b)
  // Per entry of `ports`: the index of its link in `links`, kNoLink for a port without one.
  static constexpr uint32_t kNoLink = UINT32_MAX;
  std::vector<uint32_t> link_of_port;
  Congestion congestion;                // roots and victims (congestion.h)
  std::vector<uint64_t> switches_down;  // GUIDs, sorted: down, or rebooted in this snapshot

  const PortHealth* find_port(collector::PortKey key) const;  // null: not evaluated
  const LinkHealth* find_link(collector::PortKey key) const;  // the link with `key` at one end
};

// What survives a restart (`<state.dir>/health.json`): per port that was not ok or had
// flapped, its reasons and the flaps in its flap window, at the save's wall-clock time.
struct SavedPortHealth {
  collector::PortKey key;
  uint16_t reasons = 0;
  uint32_t link_flaps = 0;
};
struct SavedHealth {
  int64_t saved_unix_seconds = 0;
  std::vector<SavedPortHealth> ports;
};
std::string encode_health(const HealthSnapshot& health, int64_t unix_seconds);
Result<SavedHealth> decode_health(const std::string& text);

class HealthEngine {
 public:
  explicit HealthEngine(HealthOptions options = {});
  ~HealthEngine();
  HealthEngine(const HealthEngine&) = delete;
  HealthEngine& operator=(const HealthEngine&) = delete;

  // `wall`: now, for health.maintenance's end times.
  std::shared_ptr<const HealthSnapshot> evaluate(
      const converters::FabricSnapshot& snapshot,
      std::chrono::system_clock::time_point wall = std::chrono::system_clock::now());

  // Before the first evaluate(): the health a restart left. Each saved reason holds, on top of
  // what the fresh windows say, until its own window (BER window, flap window, UFM window) has
  // passed since the save; the saved flaps count until the flap window has. Windows begin
  // empty after a restart: without this, a flapping port would read healthy for a window.
  void restore(const SavedHealth& saved, std::chrono::system_clock::time_point wall_now,
               converters::Clock::time_point now);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The newest health snapshot (as converters::SnapshotStore).
class HealthStore {
 public:
  void publish(std::shared_ptr<const HealthSnapshot> h) {
    std::shared_ptr<const HealthSnapshot> previous;
    std::lock_guard lock(mutex_);
    previous = std::exchange(current_, std::move(h));
  }
  std::shared_ptr<const HealthSnapshot> load() const {
    std::lock_guard lock(mutex_);
    return current_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const HealthSnapshot> current_;
};

}  // namespace ibpulse::exporters::alerts
