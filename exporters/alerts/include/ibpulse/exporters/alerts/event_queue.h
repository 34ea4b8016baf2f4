#pragma once
// The bounded hand-over from the threshold engine's thread to a consumer (the SNMP agent's
// thread: net-snmp is not thread-safe, so nothing else may send). When the consumer falls behind,
// the oldest events are dropped and counted: the newest state of the fabric matters most.
//
// Thread safety: every member may be called from any thread.

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "ibpulse/exporters/alerts/event.h"

namespace ibpulse::exporters::alerts {

class EventQueue {
 public:
  explicit EventQueue(size_t capacity);

  void push(AlertEvent event);         // drops the oldest when full
  std::vector<AlertEvent> take_all();  // empties the queue, oldest first
  uint64_t dropped() const;            // events dropped so far
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<AlertEvent> events_;
  uint64_t dropped_ = 0;
};

}  // namespace ibpulse::exporters::alerts
