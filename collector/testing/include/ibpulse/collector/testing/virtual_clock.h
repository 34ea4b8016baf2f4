#pragma once
// Time that moves only when told to: the FakeMadEngine advances it to its next event while it
// polls, a test's PollerBackend::sleep advances it while the poller sleeps. Tests that run
// the poller on it take no wall-clock time and never depend on timing.
//
// Thread safety: none; one thread (the poller's) uses it.

#include <algorithm>
#include <chrono>

namespace ibpulse::collector::testing {

class VirtualClock {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts far from the epoch: the collector and converters read a zero time point as "never".
  Clock::time_point now() const { return now_; }
  void advance(Clock::duration d) { now_ += std::max(d, Clock::duration::zero()); }
  void advance_to(Clock::time_point t) { now_ = std::max(now_, t); }  // never backwards

 private:
  Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1000);
};

}  // namespace ibpulse::collector::testing
