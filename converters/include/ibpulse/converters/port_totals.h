#pragma once
// A port's core counter totals as a snapshot keeps them: the non-zero ones only, in counter
// order. Most of a port's 36 core counters are error counters that stay at 0, and a snapshot
// is held by every reader still behind (remote write holds two while it writes one): the full
// array was 288 of a port snapshot's 440 bytes, 20 MB per snapshot at 70,000 ports. Up to
// kInline non-zero totals live in the object; a port with more keeps the rest in a shared
// block (snapshots are copied in tests and benches, never changed once published).
//
// Thread safety: plain data; immutable once its snapshot is published.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {

using CoreTotals = std::array<uint64_t, schema::kCoreCounterCount>;

class PortTotals {
 public:
  static constexpr size_t kCount = schema::kCoreCounterCount;
  static_assert(kCount <= 64, "a mask holds a bit per counter");
  // A busy healthy port has about a dozen non-zero core counters (data, packets, unicast,
  // multicast, xmit wait, a few errors).
  static constexpr size_t kInline = 14;

  PortTotals() = default;
  explicit PortTotals(const CoreTotals& all) { assign(all); }

  uint64_t operator[](size_t c) const {
    const uint64_t bit = uint64_t{1} << c;
    if ((nonzero_ & bit) == 0) return 0;
    return at_rank(static_cast<size_t>(std::popcount(nonzero_ & (bit - 1))));
  }
  CoreTotals all() const;
  void assign(const CoreTotals& all);
  // Changes one total (tests and benches build snapshots by hand; the converter assigns all).
  void set(size_t c, uint64_t value);

  bool operator==(const PortTotals& other) const { return all() == other.all(); }

 private:
  // The rank-th non-zero total (in counter order).
  uint64_t at_rank(size_t rank) const {
    return rank < kInline ? inline_[rank] : overflow_.get()[rank - kInline];
  }

  uint64_t nonzero_ = 0;  // bit per counter: its total is not 0
  std::array<uint64_t, kInline> inline_{};
  std::shared_ptr<const uint64_t[]> overflow_;  // the non-zero totals from rank kInline on
};

}  // namespace ibpulse::converters
