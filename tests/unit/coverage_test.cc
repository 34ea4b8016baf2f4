// The time the error counts cover (PortSnapshot::covered_symbol, covered_fec): only intervals
// whose delta is exact count, so a bit error ratio never takes a failed read, a latched
// counter or a foreign clear for error-free time.
#include <gtest/gtest.h>

#include "ibpulse/converters/converter.h"
#include "sample_builders.h"

namespace ibpulse::converters {
namespace {

using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using namespace std::chrono_literals;
using testing::field;

constexpr PortKey kPort{0x0002c90300000042ull, 3};
const Clock::time_point t0 = Clock::time_point{} + 1h;

RawSample symbol_errors(Clock::time_point at, uint64_t value) {
  RawSample s = testing::sample(kPort, Attribute::kPortCounters, at);
  s.values[field(Attribute::kPortCounters, "SymbolErrorCounter")] = value;
  return s;
}

std::chrono::milliseconds covered(const Converter& c) {
  return std::chrono::milliseconds(c.snapshot(t0 + 1h)->find(kPort)->covered_symbol_ms);
}

std::chrono::milliseconds covered_fec(const Converter& c) {
  return std::chrono::milliseconds(c.snapshot(t0 + 1h)->find(kPort)->covered_fec_ms);
}

TEST(Coverage, AFailedReadAddsNothingAndTheNextExactDeltaCoversTheGap) {
  Converter c({});
  c.apply(symbol_errors(t0, 10));  // the first reading: a baseline, no interval
  EXPECT_EQ(covered(c), 0s);
  c.apply(symbol_errors(t0 + 1s, 12));
  EXPECT_EQ(covered(c), 1s);
  RawSample failed = symbol_errors(t0 + 2s, 0);
  failed.failure = collector::MadFailure::kTimeout;
  c.apply(failed);
  EXPECT_EQ(covered(c), 1s);
  c.apply(symbol_errors(t0 + 3s, 13));  // its delta holds the errors of the failed read's time
  EXPECT_EQ(covered(c), 3s);
}

TEST(Coverage, LatchedAndForeignClearedIntervalsAreNotCovered) {
  Converter c({});
  c.apply(symbol_errors(t0, 10));
  c.apply(symbol_errors(t0 + 1s, 0xFFFF));  // latched: errors past the latch were lost
  c.apply(symbol_errors(t0 + 2s, 0xFFFF));  // still latched
  EXPECT_EQ(covered(c), 0s);
  c.apply(symbol_errors(t0 + 3s, 5));  // cleared by someone: the errors before it are lost
  EXPECT_EQ(covered(c), 0s);
  c.apply(symbol_errors(t0 + 5s, 7));
  EXPECT_EQ(covered(c), 2s);
}

// SymbolErrorCounter is read from one copy: PortCountersExtended's on a PMA with 64-bit error
// counters (PortCounters' is superseded), else PortCounters'. Either way the time is counted
// once, from the samples of that copy.
TEST(Coverage, TheTimeIsCoveredByTheCopyThePortReads) {
  for (const uint64_t wide_advertised : {~uint64_t{0}, uint64_t{0x0F}}) {
    Converter c({});
    for (unsigned i = 0; i < 5; ++i) {
      const auto at = t0 + std::chrono::seconds(i);
      RawSample wide = testing::sample(kPort, Attribute::kPortCountersExtended, at);
      wide.advertised &= wide_advertised;  // 0x0F: the four data counters only
      wide.values[field(Attribute::kPortCountersExtended, "SymbolErrorCounter")] = 100u + i;
      wide.values[field(Attribute::kPortCountersExtended, "PortXmitData")] = uint64_t{1000} * i;
      RawSample narrow = symbol_errors(at, 100u + i);
      narrow.superseded = collector::superseded_fields(wide.advertised);
      c.apply(narrow);
      c.apply(wide);
    }
    EXPECT_EQ(covered(c), 4s) << std::hex << wide_advertised;
  }
}

RawSample rs_fec(Clock::time_point at, uint32_t uncorrectable, uint32_t corrected) {
  RawSample s;
  s.port = kPort;
  s.received = at;
  std::array<uint8_t, 192> data{};
  for (size_t b = 0; b < 4; ++b) {
    data[144 + b] = static_cast<uint8_t>(uncorrectable >> (24 - 8 * b));
    data[148 + b] = static_cast<uint8_t>(corrected >> (24 - 8 * b));
  }
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, schema::Layout::kRsFec, data, s);
  s.advertised = (uint64_t{1} << s.field_count) - 1;
  return s;
}

TEST(Coverage, RsFecTimeIsCoveredWhenBothTotalsAreExact) {
  Converter c({});
  c.apply(rs_fec(t0, 1, 1000));
  c.apply(rs_fec(t0 + 10s, 2, 5000));
  EXPECT_EQ(covered_fec(c), 10s);
  c.apply(rs_fec(t0 + 20s, 3, 0xFFFFFFFF));  // corrected symbols latched: not exact
  EXPECT_EQ(covered_fec(c), 10s);
  EXPECT_EQ(covered(c), 0s) << "no symbol errors read";
}

}  // namespace
}  // namespace ibpulse::converters
