#pragma once
// Storm control between the engine's decisions and the notifiers: a flapping port or a
// fabric-wide event (a switch reboot, a spine failure) produces a bounded number of
// notifications. Per port, link changes beyond a down/up pair are held back during a hold-down
// and only the final state is sent; over the fabric, a rate limit per interval with one summary
// (kRateLimited) per interval that withheld anything.
//
// Thread safety: the engine's thread only.

#include <optional>
#include <unordered_map>

#include "ibpulse/converters/snapshot.h"
#include "ibpulse/exporters/alerts/engine.h"

namespace ibpulse::exporters::alerts {

class StormControl {
 public:
  using Clock = converters::Clock;
  explicit StormControl(const EngineOptions& options) : options_(options) {}

  // Whether a raise, re-notification or link change may be sent now (counted if so). A retry of
  // a raise withheld before is not counted as withheld again.
  bool admit(const AlertEvent& event, Clock::time_point now, bool retry = false);
  // A clear of a raise that was sent: always sent, so managers never keep a stale alarm (bounded
  // by the raises admitted before it).
  void admit_clear() { ++sent_in_interval_; }

  // Link changes held back until a port's hold-down ended, and the summary of an interval that
  // withheld notifications; call once per evaluation.
  std::vector<AlertEvent> tick(Clock::time_point now, std::chrono::system_clock::time_point wall);

  uint64_t suppressed() const { return suppressed_total_; }

 private:
  bool admit_link(const AlertEvent& event, Clock::time_point now);
  bool take_budget(Clock::time_point now, bool count_if_withheld);

  struct PortLinks {
    Clock::time_point hold_start{};
    unsigned sent = 0;  // link notifications in this hold-down
    EventKind last_sent = EventKind::kLinkUp;
    std::optional<AlertEvent> pending;  // the newest held-back change
  };
  EngineOptions options_;
  std::unordered_map<collector::PortKey, PortLinks, collector::PortKeyHash> links_;
  Clock::time_point interval_start_{};
  unsigned sent_in_interval_ = 0, withheld_in_interval_ = 0;
  uint64_t suppressed_total_ = 0;
};

}  // namespace ibpulse::exporters::alerts
