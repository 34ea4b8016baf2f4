#pragma once
// Values kept in slots reused once freed: what a MAD in flight was for travels through the
// engine as its slot number (the request's cookie), and once the pool has grown to the most
// ever in flight no MAD allocates. Private to the poller.
//
// Thread safety: none; the poller's thread only.

#include <cstdint>
#include <vector>

#include "ibpulse/base/check.h"

namespace ibpulse::collector {

template <typename T, typename Id = uint32_t>
class SlotPool {
 public:
  Id add(const T& value) {
    if (!free_.empty()) {
      const Id id = free_.back();
      free_.pop_back();
      slots_[id] = value;
      return id;
    }
    slots_.push_back(value);
    return static_cast<Id>(slots_.size() - 1);
  }
  T& operator[](Id id) {
    IBPULSE_CHECK(id < slots_.size(), "slot {} of {}: a cookie the poller did not give", id,
                  slots_.size());
    return slots_[id];
  }
  void free(Id id) { free_.push_back(id); }
  // The value, its slot freed.
  T take(Id id) {
    T value = (*this)[id];
    free(id);
    return value;
  }

 private:
  std::vector<T> slots_;
  std::vector<Id> free_;
};

}  // namespace ibpulse::collector
