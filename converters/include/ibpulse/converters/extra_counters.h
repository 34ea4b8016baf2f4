#pragma once
// A port's per-VL and per-lane counters (the schema's "extra" counters, after the core ones),
// stored by attribute: an attribute's counters take room only once one of its readings came.
// Ports answer a subset of the extra attributes (ibsim answers the four PortVL* attributes but
// not PortExtendedSpeedsCounters, 38 of the 102 counters; many HCAs answer fewer), and each
// stored counter costs 13 bytes in the converter and in every snapshot version still read: its
// total, last raw reading and flags packed without padding (ExtraCounterState, the form they
// are read and written in, is 16; 64 MB instead of 72 MB of per-VL state at 70,000 ports).
//
// Indexes are extra indexes: a counter's index in schema::counter_table() minus
// kCoreCounterCount.
//
// Thread safety: plain data. The converter writes its own copy; snapshots share immutable ones.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "ibpulse/converters/accumulator.h"

namespace ibpulse::converters {

class ExtraCounters {
 public:
  ExtraCounters() = default;
  ExtraCounters(const ExtraCounters& other);
  ExtraCounters& operator=(const ExtraCounters&) = delete;

  // The counter's state, or nothing if its attribute was never read on this port.
  std::optional<ExtraCounterState> find(size_t index) const {
    if (index >= groups().total) return std::nullopt;
    const Group& g = group_of(index);
    const uint8_t at = offset_[g.id];
    if (at == kAbsent) return std::nullopt;
    return load(static_cast<size_t>(at + index - g.first));
  }
  // Stores the counter's state, adding its attribute's counters (never read) first if needed.
  void set(size_t index, const ExtraCounterState& state);

  // Calls f(index, state) for every counter stored (read or not yet), in index order.
  template <typename F>
  void for_each(F&& f) const {
    for (size_t g = 0; g < groups().count; ++g) {
      if (offset_[g] == kAbsent) continue;
      const Group& group = groups().list[g];
      for (size_t i = 0; i < group.size; ++i)
        f(group.first + i, load(offset_[g] + i));
    }
  }
  size_t stored() const { return size_; }  // counters with room, of every attribute read
  // Where the stored counters live (null: none), for readers that prefetch it: a pass over a
  // large fabric's ports otherwise waits on memory once for the object, once for this.
  const void* storage() const { return states_.get(); }

 private:
  // The extra counters of one attribute: contiguous in the schema's counter table.
  struct Group {
    uint8_t id = 0;
    uint8_t first = 0;  // extra index of its first counter
    uint8_t size = 0;
  };
  static constexpr size_t kMaxGroups = 8;
  static constexpr uint8_t kAbsent = 0xff;
  struct Groups {
    std::array<Group, kMaxGroups> list{};
    size_t count = 0;
    size_t total = 0;                     // extra counters in the schema
    std::array<uint8_t, 256> of_index{};  // extra index -> group id
  };
  // Built once from the schema; aborts if the schema breaks the limits above. Inline: a reader
  // summing a family's counters on every port of a large fabric calls it per counter.
  static const Groups& groups() {
    static const Groups built = build_groups();
    return built;
  }
  static Groups build_groups();
  static const Group& group_of(size_t index) {
    const Groups& g = groups();
    return g.list[g.of_index[index]];
  }

  // A stored counter: total (8 bytes), last raw reading (4), flags (1: source, saturated).
  static constexpr size_t kPacked = 13;
  ExtraCounterState load(size_t slot) const {
    const unsigned char* at = states_.get() + slot * kPacked;
    ExtraCounterState s;
    std::memcpy(&s.total, at, 8);
    std::memcpy(&s.last_raw, at + 8, 4);
    s.source = static_cast<Source>(at[12] & 3);
    s.saturated = (at[12] & 4) != 0;
    return s;
  }
  void store(size_t slot, const ExtraCounterState& s);

  std::array<uint8_t, kMaxGroups> offset_ = filled_absent();  // per group: where it starts
  uint8_t size_ = 0;
  std::unique_ptr<unsigned char[]> states_;  // size_ x kPacked bytes

  static constexpr std::array<uint8_t, kMaxGroups> filled_absent() {
    std::array<uint8_t, kMaxGroups> a{};
    a.fill(kAbsent);
    return a;
  }
};

}  // namespace ibpulse::converters
