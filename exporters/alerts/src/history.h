#pragma once
// A counter's recent values on every port, for increases over a rule's window. All ports share
// the snapshot times, so one ring of a few slots per (counter, window) holds a value per port:
// a slot kept every window/6, plus the previous snapshot's values (replaced at each snapshot).
// The base of an increase is the newest value from at least a window ago (else, for a port read
// only recently, the oldest one inside the window), so a burst right after a port's first
// reading, before a kept slot had its value, still counts.
//
// Thread safety: the engine's thread only.

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "counter_source.h"
#include "ibpulse/converters/snapshot.h"

namespace ibpulse::exporters::alerts {

// The port keys of one snapshot, shared by every slot stored while they did not change.
using PortLayout = std::shared_ptr<const std::vector<collector::PortKey>>;

struct Increase {
  uint64_t delta = 0;
  double seconds = 0;  // the time the increase took (up to the window)
};

class CounterHistory {
 public:
  // Values are kept in blocks of this many ports (see Slot).
  static constexpr size_t kBlock = 512;

  CounterHistory(CounterSource source, milliseconds window);

  const CounterSource& source() const { return source_; }
  milliseconds window() const { return window_; }

  // One snapshot, in three steps: begin() it, gather() its values block by block (the engine
  // reads every history's block from the same rows while they are in cache), read increase()
  // and unchanged() for its ports, then commit() to store the values.
  void begin(const converters::FabricSnapshot& s, const PortLayout& layout);
  void gather(const converters::FabricSnapshot& s, size_t block);
  void commit();

  // Port `i` of the snapshot begun against its base value (see above); none without one.
  std::optional<Increase> increase(const converters::FabricSnapshot& s, size_t i) const;
  // True when no port of `block` moved since the newest slot a window old: every increase
  // there is 0 (or none), so a rule that cannot hold at 0 need not look at those ports.
  bool unchanged(size_t block) const;

 private:
  static constexpr uint64_t kAbsent = ~uint64_t{0};
  // A slot's values in blocks of ports, each shared with the previous slot when no value in it
  // changed: error counters of a healthy fabric stay still, so most blocks of most slots are
  // one copy (memory_bench: the engine held ~1.6 KB per port with a vector per slot).
  using Block = std::array<uint64_t, kBlock>;  // kAbsent where the port had no value
  struct Slot {
    converters::Clock::time_point time;
    PortLayout layout;
    std::vector<std::shared_ptr<const Block>> blocks;
    uint64_t at(size_t i) const { return (*blocks[i / kBlock])[i % kBlock]; }
  };
  uint64_t value_in(const Slot& slot, size_t i, collector::PortKey key) const;
  void backfill_newest_kept();
  Increase increase_since(const Slot& base_slot, uint64_t base, uint64_t now) const;
  std::optional<Increase> search_base(const converters::FabricSnapshot& s, size_t i,
                                      uint64_t now) const;

  CounterSource source_;
  milliseconds window_, step_;
  std::deque<Slot> slots_;         // oldest first
  bool last_provisional_ = false;  // the newest slot is the previous snapshot, not a kept one
  // The snapshot begun: its values, the newest slot's blocks (to share), and the newest slot
  // that covers the whole window before it (the base of every port it has a value for).
  Slot pending_;
  const Slot* previous_ = nullptr;
  const Slot* window_base_ = nullptr;
};

}  // namespace ibpulse::exporters::alerts
