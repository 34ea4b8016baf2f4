#include "ibpulse/converters/port_totals.h"

namespace ibpulse::converters {

CoreTotals PortTotals::all() const {
  CoreTotals out{};
  size_t rank = 0;
  for (uint64_t todo = nonzero_; todo != 0; todo &= todo - 1, ++rank) {
    const auto c = static_cast<size_t>(std::countr_zero(todo));
    out[c] = at_rank(rank);
  }
  return out;
}

void PortTotals::assign(const CoreTotals& all) {
  nonzero_ = 0;
  for (size_t c = 0; c < kCount; ++c) {
    if (all[c] != 0) nonzero_ |= uint64_t{1} << c;
  }
  // Called for every port of every snapshot: one allocation, only for a port beyond kInline.
  const auto count = static_cast<size_t>(std::popcount(nonzero_));
  std::shared_ptr<uint64_t[]> block;
  if (count > kInline) block = std::make_shared_for_overwrite<uint64_t[]>(count - kInline);
  inline_.fill(0);
  size_t rank = 0;
  for (uint64_t todo = nonzero_; todo != 0; todo &= todo - 1, ++rank) {
    const uint64_t v = all[static_cast<size_t>(std::countr_zero(todo))];
    if (rank < kInline) {
      inline_[rank] = v;
    } else {
      block.get()[rank - kInline] = v;
    }
  }
  overflow_ = std::move(block);
}

void PortTotals::set(size_t c, uint64_t value) {
  CoreTotals t = all();
  t[c] = value;
  assign(t);
}

}  // namespace ibpulse::converters
