#pragma once
// A port's core counters (schema::CounterId), packed: the total and the last raw reading of
// each in 16 bytes, their sources and latch flags in three masks. A CounterState is 24 bytes
// (two flags padded to 8); 36 of them per port were 288 bytes more per port than this
// (20 MB on a 70,000-port fabric).
//
// Thread safety: plain data, owned by the converter thread.

#include <array>
#include <cstddef>
#include <cstdint>

#include "ibpulse/converters/accumulator.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {

class CoreCounters {
 public:
  static constexpr size_t kCount = schema::kCoreCounterCount;
  static_assert(kCount <= 64, "a mask holds a bit per counter");

  CounterState operator[](size_t c) const {
    CounterState s{values_[c].total, values_[c].last_raw, Source::kNone,
                   (saturated_ >> c & 1) != 0};
    if (narrow_ >> c & 1) s.source = Source::kNarrow;
    if (wide_ >> c & 1) s.source = Source::kWide;
    return s;
  }
  void set(size_t c, const CounterState& s) {
    values_[c] = {s.total, s.last_raw};
    const uint64_t bit = uint64_t{1} << c;
    narrow_ = s.source == Source::kNarrow ? narrow_ | bit : narrow_ & ~bit;
    wide_ = s.source == Source::kWide ? wide_ | bit : wide_ & ~bit;
    saturated_ = s.saturated ? saturated_ | bit : saturated_ & ~bit;
  }
  uint64_t total(size_t c) const { return values_[c].total; }
  uint64_t saturated() const { return saturated_; }     // bit per counter: latched at all ones
  uint64_t sourced() const { return narrow_ | wide_; }  // bit per counter: read at least once
  uint64_t from(Source source) const {                  // bit per counter: last read from that copy
    return source == Source::kWide ? wide_ : source == Source::kNarrow ? narrow_ : 0;
  }

  struct Values {
    uint64_t total = 0;     // scaled to the counter's unit
    uint64_t last_raw = 0;  // the previous reading, raw
  };
  // Where counter c's total and last reading are, to prefetch.
  const Values* values(size_t c) const { return &values_[c]; }

 private:
  uint64_t narrow_ = 0, wide_ = 0, saturated_ = 0;
  std::array<Values, kCount> values_{};
};

}  // namespace ibpulse::converters
