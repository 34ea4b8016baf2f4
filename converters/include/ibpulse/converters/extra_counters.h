#pragma once
// A port's per-VL and per-lane counters (the schema's "extra" counters, after the core ones),
// stored by attribute: an attribute's counters exist only once one of its readings came.
// Ports answer a subset of the extra attributes (ibsim answers the four PortVL* attributes but
// not PortExtendedSpeedsCounters; many HCAs answer fewer), and most counters they answer stay
// 0: a fabric that carries its traffic on VL 0 leaves 15 of each attribute's 16 per-VL
// counters at 0, and ibsim moves none of them. A counter read as 0 (and never anything else) is
// a bit; only the others take room, 13 bytes each in the converter and in every snapshot
// version still read: total, last raw reading and flags packed without padding
// (ExtraCounterState, the form they are read and written in, is 16). At 70,000 ports on ibsim
// that is 59 MB of per-VL state as 13-byte slots for every counter, and none now.
//
// Indexes are extra indexes: a counter's index in schema::counter_table() minus
// kCoreCounterCount.
//
// Thread safety: plain data. The converter writes its own copy; snapshots share immutable ones.

#include <array>
#include <bit>
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
    if ((present_ >> groups().of_index[index] & 1) == 0) return std::nullopt;
    return state_of(index);
  }
  // Stores the counter's state, adding its attribute's counters (never read) first if needed.
  void set(size_t index, const ExtraCounterState& state);

  // Calls f(index, state) for every counter of every attribute read (its counters read or not
  // yet), in index order.
  template <typename F>
  void for_each(F&& f) const {
    const Groups& all = groups();
    for (size_t g = 0; g < all.count; ++g) {
      if ((present_ >> g & 1) == 0) continue;
      const Group& group = all.list[g];
      for (size_t i = group.first; i < size_t{group.first} + group.size; ++i)
        f(i, state_of(i));
    }
  }
  size_t counters() const;                   // of every attribute read
  size_t packed() const { return packed_; }  // of them, those that take 13 bytes
  // Where the packed counters live (null: none), for readers that prefetch it: a pass over a
  // large fabric's ports otherwise waits on memory once for the object, once for this.
  const void* storage() const { return states_.get(); }

  // PortVLXmitWait's rate per VL (ticks per second) over the last interval between two
  // readings of PortVLXmitWaitCounters: NaN when that interval has none (a 16-bit counter
  // latched at all ones, or cleared by someone else: its count is short of the truth), nothing
  // before the port's second reading. Derived, but kept here: it changes with the counters,
  // and snapshots share the block with them.
  std::optional<float> vl_wait_rate(size_t vl) const {
    if (!vl_wait_rates_ || vl >= kVls) return std::nullopt;
    const float rate = (*vl_wait_rates_)[vl];
    if (rate == kNoRate) return std::nullopt;
    return rate;
  }
  // Whether set_vl_wait_rate(vl, rate) would change anything (NaN equals NaN here).
  bool vl_wait_rate_differs(size_t vl, float rate) const;
  void set_vl_wait_rate(size_t vl, float rate);

 private:
  // The extra counters of one attribute: contiguous in the schema's counter table.
  struct Group {
    uint8_t first = 0;  // extra index of its first counter
    uint8_t size = 0;
  };
  static constexpr size_t kMaxGroups = 8;  // bits of present_
  static constexpr size_t kWords = 2;      // of each bit set: up to 128 extra counters
  struct Groups {
    std::array<Group, kMaxGroups> list{};
    size_t count = 0;
    size_t total = 0;                     // extra counters in the schema
    std::array<uint8_t, 256> of_index{};  // extra index -> group
  };
  // Built once from the schema; aborts if the schema breaks the limits above. Inline: a reader
  // summing a family's counters on every port of a large fabric calls it per counter.
  static const Groups& groups() {
    static const Groups built = build_groups();
    return built;
  }
  static Groups build_groups();

  // A counter read and found 0 every time since: no slot.
  static constexpr ExtraCounterState kReadZero{0, 0, Source::kNarrow, false};
  using Bits = std::array<uint64_t, kWords>;
  static bool test(const Bits& b, size_t i) { return (b[i / 64] >> (i % 64) & 1) != 0; }
  // The packed slot of a counter with one: the packed counters before it.
  size_t slot_of(size_t index) const {
    size_t n = 0;
    for (size_t w = 0; w < index / 64; ++w)
      n += static_cast<size_t>(std::popcount(packed_bits_[w]));
    const uint64_t below = (uint64_t{1} << (index % 64)) - 1;
    return n + static_cast<size_t>(std::popcount(packed_bits_[index / 64] & below));
  }
  // The state of a counter of an attribute read.
  ExtraCounterState state_of(size_t index) const {
    if (test(packed_bits_, index)) return load(slot_of(index));
    return test(zero_bits_, index) ? kReadZero : ExtraCounterState{};
  }

  // A packed counter: total (8 bytes), last raw reading (4), flags (1: source, saturated).
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
  void insert_slot(size_t slot);
  void erase_slot(size_t slot);

  static constexpr size_t kVls = 16;
  static constexpr float kNoRate = -1;  // a VL without a rate yet
  // Allocated at the first rate: most ports never read PortVLXmitWaitCounters twice.
  std::unique_ptr<std::array<float, kVls>> vl_wait_rates_;
  Bits packed_bits_{};   // counters with a slot, in index order
  Bits zero_bits_{};     // counters read as 0 only (kReadZero), without one
  uint8_t present_ = 0;  // bit per group: its attribute was read
  uint8_t packed_ = 0;
  std::unique_ptr<unsigned char[]> states_;  // packed_ x kPacked bytes
};

}  // namespace ibpulse::converters
