#include "sweep_accounting.h"

#include <algorithm>

namespace ibpulse::collector {

bool counts_in_sweep(const Port& p) {
  return p.remote.has_value() && p.lid != 0 && p.key.port != 0;
}

uint64_t SweepAccounting::count_read(const Topology& topology, size_t index,
                                     Clock::time_point now) {
  if (expected_ == 0) {
    ++number_;
    for (const Port& p : topology.ports)
      expected_ += counts_in_sweep(p);
    done_ = 0;
    unreachable_ = 0;
    stale_.clear();
    mark_.assign(topology.ports.size(), 0);
    started_ = now;
  }
  if (index >= mark_.size() || mark_[index] == number_) return 0;
  mark_[index] = number_;
  return number_;
}

std::optional<SweepAccounting::Ended> SweepAccounting::completed(uint64_t sweep, PortKey port,
                                                                 MadFailure failure,
                                                                 Clock::time_point now,
                                                                 Clock::duration interval) {
  if (sweep == 0 || sweep != number_ || expected_ == 0) return std::nullopt;
  if (failure != MadFailure::kNone) stale_.insert(port);
  if (failure == MadFailure::kUnreachable || failure == MadFailure::kSendError) ++unreachable_;
  if (++done_ < expected_) return std::nullopt;
  // Reads are spread over the interval, so a sweep that keeps up lasts about one interval.
  const std::chrono::duration<double> took = now - started_;
  const std::chrono::duration<double> span = interval;
  Ended ended{
      {number_, expected_, stale_.size(), took.count(), std::max(0.0, (took - span).count())},
      unreachable_ == expected_};
  expected_ = 0;
  return ended;
}

}  // namespace ibpulse::collector
