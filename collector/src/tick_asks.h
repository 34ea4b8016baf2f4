#pragma once
// Which nodes to ask for PortSamplesControl, whose Tick gives their PortXmitWait tick (the
// converter turns it into a period at each port's speed). Every PMA must answer it (it is
// mandatory), but ibsim does not: its MAD goes unanswered, holding a place in the engine's
// window for the whole timeout and retries (3 s by default). So a node is asked once, through
// one of its polled ports, by at most kMaxInFlight asks at once, kMaxAsks times at most; one
// left unanswered is asked again after kRetryAfter, at a discovery. A refusal (a MAD status)
// settles it: no tick.
//
// Thread safety: plain data; the poller's thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>

#include "ibpulse/collector/topology.h"

namespace ibpulse::collector {

class TickAsks {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr unsigned kMaxAsks = 2;
  static constexpr size_t kMaxInFlight = 4;
  static constexpr Clock::duration kRetryAfter = std::chrono::hours(1);

  struct Ask {
    PortKey port;      // asked through (PortSelect)
    uint16_t lid = 0;  // the node's PMA
    size_t port_index = 0;
  };

  // After a discovery: queues the nodes of `topology` with a linked, addressed port that were
  // not asked yet (or whose asks went unanswered over kRetryAfter ago).
  void plan(const Topology& topology, Clock::time_point now);
  // The next ask to send, counted in flight; nothing when kMaxInFlight are out or none waits.
  std::optional<Ask> next();
  void answered(uint64_t node_guid);
  // A timeout (asked again later, up to kMaxAsks) or a refusal (`refused`: never again).
  void failed(uint64_t node_guid, bool refused, Clock::time_point now);

 private:
  enum class Stage : uint8_t { kAsking, kAnswered, kRefused, kUnanswered };
  struct Node {
    Stage stage = Stage::kAsking;
    unsigned asks = 0;
    Clock::time_point given_up{};
    Ask ask;  // its latest
  };
  std::deque<uint64_t> queue_;  // node GUIDs
  std::unordered_map<uint64_t, Node> nodes_;
  size_t in_flight_ = 0;
};

}  // namespace ibpulse::collector
