#include "ibpulse/exporters/alerts/event.h"

#include "ibpulse/base/check.h"
#include "ibpulse/exporters/alerts/event_queue.h"

namespace ibpulse::exporters::alerts {

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kRaised:
      return "raised";
    case EventKind::kCleared:
      return "cleared";
    case EventKind::kLinkDown:
      return "link_down";
    case EventKind::kLinkUp:
      return "link_up";
    case EventKind::kRateLimited:
      return "rate_limited";
    case EventKind::kSma:
      return "sma_trap";
    case EventKind::kSmMaster:
      return "sm_master_changed";
  }
  return "unknown";
}

std::string_view to_string(Condition condition) {
  switch (condition) {
    case Condition::kDelta:
      return "delta";
    case Condition::kRatePerSecond:
      return "rate";
    case Condition::kPercent:
      return "percent";
    case Condition::kState:
      return "state";
  }
  return "unknown";
}

EventQueue::EventQueue(size_t capacity) : capacity_(capacity) {
  IBPULSE_CHECK(capacity > 0);
}

void EventQueue::push(AlertEvent event) {
  std::lock_guard lock(mutex_);
  if (events_.size() == capacity_) {
    events_.pop_front();
    ++dropped_;
  }
  events_.push_back(std::move(event));
}

std::vector<AlertEvent> EventQueue::take_all() {
  std::lock_guard lock(mutex_);
  std::vector<AlertEvent> out(std::make_move_iterator(events_.begin()),
                              std::make_move_iterator(events_.end()));
  events_.clear();
  return out;
}

uint64_t EventQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace ibpulse::exporters::alerts
