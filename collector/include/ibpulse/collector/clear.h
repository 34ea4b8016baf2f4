#pragma once
// Clear requests travel from the converters back to the poller: a narrow counter near its
// latch, with no 64-bit copy, is cleared with a Set of its attribute right after a read, and
// the Set's response (the counters after the clear) comes back through the sample ring with
// RawSample::cleared set.
//
// Thread safety: the ring is single producer (the converter), single consumer (the poller).

#include <boost/lockfree/spsc_queue.hpp>
#include <cstdint>

#include "ibpulse/collector/topology.h"
#include "ibpulse/schema/attributes.h"

namespace ibpulse::collector {

struct ClearRequest {
  PortKey port;
  schema::Attribute attribute = schema::Attribute::kPortCounters;
  uint64_t fields = 0;  // bit i: clear field i of the attribute (schema::fields_of order)
};

using ClearRing = boost::lockfree::spsc_queue<ClearRequest>;

}  // namespace ibpulse::collector
