#pragma once
// How often each group of a port's reads comes due (poll.*-interval): the poller's schedule.
//
// Thread safety: a value type.

#include <chrono>

namespace ibpulse::collector {

struct Intervals {
  std::chrono::milliseconds counters{1000};
  std::chrono::milliseconds details{10000};
  std::chrono::milliseconds idle{60000};
  // Port state between discoveries (which run every few minutes); 0: none.
  std::chrono::milliseconds port_info{10000};
};

}  // namespace ibpulse::collector
