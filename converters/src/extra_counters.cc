#include "ibpulse/converters/extra_counters.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {

ExtraCounters::Groups ExtraCounters::build_groups() {
  Groups g;
  const auto table = schema::counter_table();
  g.total = table.size() - schema::kCoreCounterCount;
  // Offsets and sizes are bytes and kAbsent marks a missing group: checked in every build, a
  // schema that outgrows them would otherwise index past the blocks.
  if (g.total >= kAbsent) {
    std::fprintf(stderr, "ibpulse: %zu extra counters do not fit ExtraCounters\n", g.total);
    std::abort();
  }
  for (size_t i = 0; i < g.total; ++i) {
    const auto attribute = table[schema::kCoreCounterCount + i].attribute;
    const bool same = i > 0 && table[schema::kCoreCounterCount + i - 1].attribute == attribute;
    if (!same) {
      const bool seen = std::any_of(g.list.begin(), g.list.begin() + g.count, [&](const Group& x) {
        return table[schema::kCoreCounterCount + x.first].attribute == attribute;
      });
      if (seen || g.count == kMaxGroups) {
        std::fprintf(stderr,
                     "ibpulse: the extra counters of an attribute are not contiguous, "
                     "or there are more than %zu attributes\n",
                     kMaxGroups);
        std::abort();
      }
      g.list[g.count] = Group{static_cast<uint8_t>(g.count), static_cast<uint8_t>(i), 0};
      ++g.count;
    }
    Group& current = g.list[g.count - 1];
    ++current.size;
    g.of_index[i] = current.id;
  }
  return g;
}

ExtraCounters::ExtraCounters(const ExtraCounters& other)
    : offset_(other.offset_),
      size_(other.size_),
      states_(std::make_unique_for_overwrite<unsigned char[]>(other.size_ * kPacked)) {
  std::copy_n(other.states_.get(), size_ * kPacked, states_.get());
}

void ExtraCounters::store(size_t slot, const ExtraCounterState& s) {
  unsigned char* at = states_.get() + slot * kPacked;
  std::memcpy(at, &s.total, 8);
  std::memcpy(at + 8, &s.last_raw, 4);
  at[12] = static_cast<unsigned char>(static_cast<unsigned>(s.source) | (s.saturated ? 4u : 0u));
}

void ExtraCounters::set(size_t index, const ExtraCounterState& state) {
  if (index >= groups().total) {  // a caller's bug: it would write another counter's state
    std::fprintf(stderr, "ibpulse: extra counter %zu out of range (%zu)\n", index, groups().total);
    std::abort();
  }
  const Group& g = group_of(index);
  if (offset_[g.id] == kAbsent) {
    // Exactly the room needed: a port answers each attribute once, then only writes.
    // Value-initialised: the new group's counters read as never read (source none).
    auto grown = std::make_unique<unsigned char[]>((size_ + g.size) * kPacked);
    std::copy_n(states_.get(), size_ * kPacked, grown.get());
    states_ = std::move(grown);
    offset_[g.id] = size_;
    size_ = static_cast<uint8_t>(size_ + g.size);
  }
  store(static_cast<size_t>(offset_[g.id] + index - g.first), state);
}

}  // namespace ibpulse::converters
