#include "ibpulse/converters/extra_counters.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {

ExtraCounters::Groups ExtraCounters::build_groups() {
  Groups g;
  const auto table = schema::counter_table();
  g.total = table.size() - schema::kCoreCounterCount;
  // Checked in every build: a schema that outgrows the bit sets would index past them.
  if (g.total > kWords * 64) {
    std::fprintf(stderr, "ibpulse: %zu extra counters do not fit ExtraCounters (raise kWords)\n",
                 g.total);
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
      g.list[g.count] = Group{static_cast<uint8_t>(i), 0};
      ++g.count;
    }
    ++g.list[g.count - 1].size;
    g.of_index[i] = static_cast<uint8_t>(g.count - 1);
  }
  return g;
}

ExtraCounters::ExtraCounters(const ExtraCounters& other)
    : packed_bits_(other.packed_bits_),
      zero_bits_(other.zero_bits_),
      present_(other.present_),
      packed_(other.packed_) {
  if (other.vl_wait_rates_)
    vl_wait_rates_ = std::make_unique<std::array<float, kVls>>(*other.vl_wait_rates_);
  if (packed_ == 0) return;
  states_ = std::make_unique_for_overwrite<unsigned char[]>(packed_ * kPacked);
  std::copy_n(other.states_.get(), packed_ * kPacked, states_.get());
}

bool ExtraCounters::vl_wait_rate_differs(size_t vl, float rate) const {
  if (vl >= kVls) return false;
  const float now = vl_wait_rates_ ? (*vl_wait_rates_)[vl] : kNoRate;
  return !(now == rate || (std::isnan(now) && std::isnan(rate)));
}

void ExtraCounters::set_vl_wait_rate(size_t vl, float rate) {
  if (vl >= kVls) return;
  if (!vl_wait_rates_) {
    vl_wait_rates_ = std::make_unique<std::array<float, kVls>>();
    vl_wait_rates_->fill(kNoRate);
  }
  (*vl_wait_rates_)[vl] = rate;
}

size_t ExtraCounters::counters() const {
  size_t n = 0;
  for (size_t g = 0; g < groups().count; ++g) {
    if ((present_ >> g & 1) != 0) n += groups().list[g].size;
  }
  return n;
}

void ExtraCounters::store(size_t slot, const ExtraCounterState& s) {
  unsigned char* at = states_.get() + slot * kPacked;
  std::memcpy(at, &s.total, 8);
  std::memcpy(at + 8, &s.last_raw, 4);
  at[12] = static_cast<unsigned char>(static_cast<unsigned>(s.source) | (s.saturated ? 4u : 0u));
}

// Exactly the room needed: a counter gets a slot when it first moves, then keeps it (the
// counters that move move again); what a port holds grows a few slots at a time.
void ExtraCounters::insert_slot(size_t slot) {
  auto grown = std::make_unique_for_overwrite<unsigned char[]>((packed_ + 1) * kPacked);
  std::copy_n(states_.get(), slot * kPacked, grown.get());
  std::copy_n(states_.get() + slot * kPacked, (packed_ - slot) * kPacked,
              grown.get() + (slot + 1) * kPacked);
  states_ = std::move(grown);
  ++packed_;
}

// A counter back to a state without a slot (a clear to 0, a state file's restore): rare, so
// the storage is not shrunk.
void ExtraCounters::erase_slot(size_t slot) {
  unsigned char* at = states_.get() + slot * kPacked;
  std::copy(at + kPacked, states_.get() + packed_ * kPacked, at);
  --packed_;
}

void ExtraCounters::set(size_t index, const ExtraCounterState& state) {
  if (index >= groups().total) {  // a caller's bug: it would write another counter's state
    std::fprintf(stderr, "ibpulse: extra counter %zu out of range (%zu)\n", index, groups().total);
    std::abort();
  }
  // The attribute's other counters read as never read (source none) until set.
  present_ = static_cast<uint8_t>(present_ | 1u << groups().of_index[index]);
  uint64_t& packed_word = packed_bits_[index / 64];
  uint64_t& zero_word = zero_bits_[index / 64];
  const uint64_t bit = uint64_t{1} << (index % 64);
  const bool slotless = state == kReadZero || state == ExtraCounterState{};
  zero_word = state == kReadZero ? zero_word | bit : zero_word & ~bit;
  const size_t slot = slot_of(index);
  if ((packed_word & bit) != 0) {
    if (!slotless) return store(slot, state);
    erase_slot(slot);
    packed_word &= ~bit;
    return;
  }
  if (slotless) return;
  insert_slot(slot);
  packed_word |= bit;
  store(slot, state);
}

}  // namespace ibpulse::converters
