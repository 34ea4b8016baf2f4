#pragma once
// Clear requests travel from the converters back to the poller: a narrow counter near its
// latch, with no 64-bit copy, is cleared with a Set of its attribute right after a read, and
// the Set's response (the counters after the clear) comes back through the sample ring with
// RawSample::cleared set.
//
// With several pollers (local ports, subnets) each has a ring of its own and every request
// goes to all of them (ClearRings): the poller that reads the port sends the Set, the others
// drop it (Poller::take_clear_requests). Routing to the owner instead would go stale when a
// local port goes down and its nodes move to another poller.
//
// Thread safety: each ring is single producer (the converter), single consumer (its poller).

#include <boost/lockfree/spsc_queue.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "ibpulse/collector/topology.h"
#include "ibpulse/schema/attributes.h"

namespace ibpulse::collector {

struct ClearRequest {
  PortKey port;
  schema::Attribute attribute = schema::Attribute::kPortCounters;
  uint64_t fields = 0;  // bit i: clear field i of the attribute (schema::fields_of order)
};

using ClearRing = boost::lockfree::spsc_queue<ClearRequest>;

class ClearRings {
 public:
  ClearRings(size_t pollers, size_t capacity) {
    for (size_t i = 0; i < pollers; ++i)
      rings_.push_back(std::make_unique<ClearRing>(capacity));
  }
  // To every poller; false when a ring was full (the converter counts the request dropped and
  // asks again at the port's next reading).
  bool push(const ClearRequest& r) {
    bool all = true;
    for (auto& ring : rings_)
      all = ring->push(r) && all;
    return all;
  }
  ClearRing& ring(size_t poller) { return *rings_.at(poller); }
  // One per poller, in the order of the sample rings.
  std::vector<ClearRing*> rings() {
    std::vector<ClearRing*> out;
    for (auto& ring : rings_)
      out.push_back(ring.get());
    return out;
  }

 private:
  std::vector<std::unique_ptr<ClearRing>> rings_;
};

}  // namespace ibpulse::collector
