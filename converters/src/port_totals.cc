#include "ibpulse/converters/port_totals.h"

#include <vector>

namespace ibpulse::converters {

CoreTotals PortTotals::all() const {
  CoreTotals out{};
  size_t rank = 0;
  for (uint64_t todo = nonzero_; todo != 0; todo &= todo - 1, ++rank) {
    const auto c = static_cast<size_t>(std::countr_zero(todo));
    out[c] = rank < kInline ? inline_[rank] : overflow_.get()[rank - kInline];
  }
  return out;
}

void PortTotals::assign(const CoreTotals& all) {
  nonzero_ = 0;
  inline_.fill(0);
  std::vector<uint64_t> rest;
  size_t rank = 0;
  for (size_t c = 0; c < kCount; ++c) {
    if (all[c] == 0) continue;
    nonzero_ |= uint64_t{1} << c;
    if (rank < kInline) {
      inline_[rank] = all[c];
    } else {
      rest.push_back(all[c]);
    }
    ++rank;
  }
  if (rest.empty()) {
    overflow_.reset();
    return;
  }
  auto block = std::make_shared<uint64_t[]>(rest.size());
  std::copy(rest.begin(), rest.end(), block.get());
  overflow_ = std::move(block);
}

void PortTotals::set(size_t c, uint64_t value) {
  CoreTotals t = all();
  t[c] = value;
  assign(t);
}

}  // namespace ibpulse::converters
