#pragma once
// Each polled node's PMA capabilities (ClassPortInfo), as the poller plans its reads by them.
//
// A node's answer decides which copy of its counters is read: with CapabilityMask 0x200/0x400
// the 64-bit PortCountersExtended, else the narrow PortCounters. A lost answer is not "no
// capabilities": reading the narrow copy until it is known, then the 64-bit one, switches the
// counters' source twice (the counts between are lost), and after a restart the switch leaves
// a total at the state file's older value, below what was exported before (a counter reset in
// Prometheus; seen in the fault soak on a port losing 20% of its MADs). So a node that did not
// answer is `pending`: its ports are not read, and stale, until it does (asked again every
// retry interval); after kMaxAttempts unanswered asks it is read as a node without them, its
// samples marked as such (`given_up`, RawSample::narrow_fallback: the converter keeps a counter
// it read from the 64-bit copy on that copy, a dead or initialising link being the likely
// cause, not a PMA that lost its 64-bit counters). Each
// ask waits for its answers (the engine's timeout and retries: 3 s by default for a dead
// node), hence the few attempts. A rediscovery asks every node again, and keeps the last
// answer of one whose MADs were lost.
//
// Thread safety: plain data; the poller's thread.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ibpulse/collector/sweep.h"

namespace ibpulse::collector {

class NodeCapabilities {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr unsigned kMaxAttempts = 3;
  using Warn = std::function<void(const std::string&)>;

  // After a discovery: asks every node of `targets` (`refresh`) or those not known yet.
  void ask(MadEngine& engine, std::span<const SweepTarget> targets, bool refresh,
           Clock::time_point now, const Warn& warn);
  // Asks the pending nodes again when their retry is due; true when any answered (or was
  // given up), so the plans must be rebuilt.
  bool retry_due(MadEngine& engine, std::span<const SweepTarget> targets, Clock::time_point now,
                 const Warn& warn);

  // The node's capabilities: null when it has none (it refused, or was given up).
  const PmaCapabilities* find(uint64_t guid) const;
  bool pending(uint64_t guid) const { return attempts_.contains(guid); }
  // Read without capabilities because its asks went unanswered (not because it refused).
  bool given_up(uint64_t guid) const { return given_up_.contains(guid); }
  bool any_pending() const { return !attempts_.empty(); }
  Clock::time_point next_retry() const { return next_retry_; }
  void set_retry_interval(Clock::duration d) { retry_interval_ = d; }

 private:
  void note_unanswered(const std::vector<uint64_t>& unanswered, Clock::time_point now,
                       const Warn& warn);

  CapabilityCache cache_;
  std::map<uint64_t, unsigned> attempts_;  // pending nodes: unanswered asks so far
  std::set<uint64_t> given_up_;
  Clock::duration retry_interval_ = std::chrono::seconds(1);
  Clock::time_point next_retry_{};
};

}  // namespace ibpulse::collector
