#pragma once
// The clears the converter asked for, each waiting for its port's next read of the attribute:
// the Set clearing the fields goes out right after that read answers (clear.h says why then).
// Requests for the same port and attribute merge, their fields or'ed, until the Set is sent.
// Private to the collector.
//
// Thread safety: the poller's thread only.

#include <cstdint>
#include <map>
#include <utility>

#include "ibpulse/collector/clear.h"

namespace ibpulse::collector {

class ClearQueue {
 public:
  // Takes every request waiting in `ring`, keeping those of a port and attribute the poller
  // reads (`reads(port, attribute)`): another poller serves the rest, or none does, and they
  // would wait forever.
  template <typename Reads>
  void take(ClearRing& ring, const Reads& reads) {
    ClearRequest r;
    while (ring.pop(r)) {
      if (reads(r.port, r.attribute)) waiting_[{r.port, r.attribute}] |= r.fields;
    }
  }

  // After a read of the port's attribute answered: the fields to clear now, no longer waiting
  // (0: none wait).
  uint64_t due(PortKey port, schema::Attribute attribute) {
    const auto it = waiting_.find({port, attribute});
    if (it == waiting_.end()) return 0;
    const uint64_t fields = it->second;
    waiting_.erase(it);
    return fields;
  }

  // After the read plans changed: drops the clears no read serves any more.
  template <typename Reads>
  void keep_only(const Reads& reads) {
    std::erase_if(waiting_,
                  [&](const auto& entry) { return !reads(entry.first.first, entry.first.second); });
  }

  bool empty() const { return waiting_.empty(); }
  size_t size() const { return waiting_.size(); }

 private:
  std::map<std::pair<PortKey, schema::Attribute>, uint64_t> waiting_;  // -> fields
};

}  // namespace ibpulse::collector
