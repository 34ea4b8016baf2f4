#include "storm_control.h"

namespace ibpulse::exporters::alerts {
namespace {

constexpr unsigned kLinkChangesPerHoldDown = 2;  // a down and the up that ends it

}  // namespace

bool StormControl::take_budget(Clock::time_point now, bool count_if_withheld) {
  if (interval_start_ == Clock::time_point{}) interval_start_ = now;
  if (sent_in_interval_ < options_.rate_limit) {
    ++sent_in_interval_;
    return true;
  }
  if (count_if_withheld) {
    ++withheld_in_interval_;
    ++suppressed_total_;
  }
  return false;
}

bool StormControl::admit_link(const AlertEvent& event, Clock::time_point now) {
  PortLinks& port = links_[event.port];
  if (port.hold_start == Clock::time_point{} || now - port.hold_start >= options_.link_hold_down) {
    port.hold_start = now;
    port.sent = 0;
  }
  if (port.sent >= kLinkChangesPerHoldDown) {
    port.pending = event;  // only the newest state matters
    ++suppressed_total_;
    return false;
  }
  if (!take_budget(now, true)) {
    port.pending = event;
    return false;
  }
  ++port.sent;
  port.last_sent = event.kind;
  port.pending.reset();
  return true;
}

bool StormControl::admit(const AlertEvent& event, Clock::time_point now, bool retry) {
  if (event.kind == EventKind::kLinkDown || event.kind == EventKind::kLinkUp) {
    return admit_link(event, now);
  }
  return take_budget(now, !retry);
}

std::vector<AlertEvent> StormControl::tick(Clock::time_point now,
                                           std::chrono::system_clock::time_point wall) {
  std::vector<AlertEvent> out;
  if (interval_start_ == Clock::time_point{}) interval_start_ = now;
  if (now - interval_start_ >= options_.rate_interval) {
    if (withheld_in_interval_ > 0) {
      AlertEvent summary;
      summary.kind = EventKind::kRateLimited;
      summary.when = wall;
      summary.suppressed = withheld_in_interval_;
      summary.window_seconds = static_cast<uint32_t>(
          std::chrono::duration_cast<std::chrono::seconds>(options_.rate_interval).count());
      out.push_back(std::move(summary));
    }
    interval_start_ = now;
    sent_in_interval_ = withheld_in_interval_ = 0;
  }
  for (auto it = links_.begin(); it != links_.end();) {
    PortLinks& port = it->second;
    const bool hold_over = now - port.hold_start >= options_.link_hold_down;
    if (hold_over && port.pending) {
      // The final state, unless it is the one managers already have.
      AlertEvent last = std::move(*port.pending);
      port.pending.reset();
      if (last.kind != port.last_sent) {
        last.when = wall;
        if (admit_link(last, now)) out.push_back(std::move(last));
      }
    }
    // A port whose last notified state is down stays: its linkUp must never be lost, even
    // when it comes after the hold-down and the rate limit withholds it.
    if (hold_over && !port.pending && port.last_sent == EventKind::kLinkUp) {
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace ibpulse::exporters::alerts
