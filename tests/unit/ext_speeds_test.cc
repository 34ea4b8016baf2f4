// PortExtendedSpeedsCounters in its two layouts: decoded at each layout's offsets, and
// counted by the converter into each layout's counters, the ones both layouts have (sync
// header errors, unknown blocks) continuous when a port's layout changes.
#include <gtest/gtest.h>

#include <array>

#include "ibpulse/converters/converter.h"
#include "ibpulse/schema/counters.h"

namespace ibpulse::converters {
namespace {

using collector::PortKey;
using collector::RawSample;
using schema::Attribute;
using schema::Layout;
using namespace std::chrono_literals;

constexpr PortKey kPort{0x0002c90300001234ull, 7};
const Clock::time_point t0 = Clock::time_point{} + 1h;

void put32(std::array<uint8_t, 192>& data, size_t byte, uint32_t v) {
  for (size_t b = 0; b < 4; ++b)
    data[byte + b] = static_cast<uint8_t>(v >> (24 - 8 * b));
}

void put16(std::array<uint8_t, 192>& data, size_t byte, uint16_t v) {
  data[byte] = static_cast<uint8_t>(v >> 8);
  data[byte + 1] = static_cast<uint8_t>(v);
}

// Attribute data of an RS-FEC port: sync header 11, unknown block 12, lane i's corrected
// symbols 1000 + i (bytes 44 + 4i), then the totals at bytes 140, 144 and 148.
std::array<uint8_t, 192> rs_fec_data(uint32_t offset = 0) {
  std::array<uint8_t, 192> data{};
  put16(data, 16, static_cast<uint16_t>(11 + offset));
  put16(data, 18, static_cast<uint16_t>(12 + offset));
  for (uint32_t lane = 0; lane < 12; ++lane)
    put32(data, 44 + 4 * lane, 1000 + lane + offset);
  put32(data, 140, 7001 + offset);
  put32(data, 144, 7002 + offset);
  put32(data, 148, 7003 + offset);
  return data;
}

uint64_t value(const RawSample& s, std::string_view name) {
  const auto fields = schema::fields_of(s.attribute, s.layout);
  for (size_t i = 0; i < s.field_count; ++i) {
    if (fields[i].name == name) return s.values[i];
  }
  ADD_FAILURE() << "no field " << name;
  return 0;
}

TEST(ExtendedSpeeds, DecodesEachLayoutAtItsOffsets) {
  const auto data = rs_fec_data();
  RawSample rs;
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, Layout::kRsFec, data, rs);
  EXPECT_EQ(rs.layout, Layout::kRsFec);
  EXPECT_EQ(rs.field_count, 17);
  EXPECT_EQ(value(rs, "SyncHeaderErrorCounter"), 11u);
  EXPECT_EQ(value(rs, "UnknownBlockCounter"), 12u);
  EXPECT_EQ(value(rs, "FECCorrectableSymbolCtrLane0"), 1000u);
  EXPECT_EQ(value(rs, "FECCorrectableSymbolCtrLane11"), 1011u);
  EXPECT_EQ(value(rs, "PortFECCorrectableBlockCtr"), 7001u);
  EXPECT_EQ(value(rs, "PortFECUncorrectableBlockCtr"), 7002u);
  EXPECT_EQ(value(rs, "PortFECCorrectedSymbolCtr"), 7003u);
  // The same bytes in the older layout: lane 3's corrected symbols read as its corrected
  // blocks, and the totals are past its fields. Decoding with the wrong layout is wrong.
  RawSample standard;
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, Layout::kStandard, data,
                           standard);
  EXPECT_EQ(standard.layout, Layout::kStandard);
  EXPECT_EQ(standard.field_count, 38);
  EXPECT_EQ(value(standard, "FECCorrectableBlockCtrLane3"), 1003u);
  EXPECT_EQ(value(standard, "SyncHeaderErrorCounter"), 11u);
}

RawSample reading(Layout layout, const std::array<uint8_t, 192>& data, Clock::time_point at) {
  RawSample s;
  s.port = kPort;
  s.received = at;
  collector::decode_fields(Attribute::kPortExtendedSpeedsCounters, layout, data, s);
  s.advertised = collector::advertised_fields(s.attribute, nullptr, layout);
  return s;
}

// The total of the extra counter `name` (label value `label_value`; -1: the unlabelled one).
std::optional<uint64_t> total(const Converter& c, std::string_view name, int label_value) {
  const auto table = schema::counter_table();
  const auto* st = c.state(kPort);
  if (st == nullptr || !st->extra) return std::nullopt;
  for (size_t i = schema::kCoreCounterCount; i < table.size(); ++i) {
    const bool match =
        table[i].name == name &&
        (label_value < 0 ? table[i].label.empty()
                         : !table[i].label.empty() && table[i].label_value == label_value);
    if (!match) continue;
    const auto e = st->extra->find(i - schema::kCoreCounterCount);
    if (!e || e->source == Source::kNone) return std::nullopt;
    return e->total;
  }
  ADD_FAILURE() << "no counter " << name;
  return std::nullopt;
}

TEST(ExtendedSpeeds, RsFecReadingsFeedTheRsFecCounters) {
  Converter c({});
  c.apply(reading(Layout::kRsFec, rs_fec_data(), t0));
  c.apply(reading(Layout::kRsFec, rs_fec_data(50), t0 + 10s));
  EXPECT_EQ(total(c, "fec_corrected_symbols", -1), 7053u);
  EXPECT_EQ(total(c, "fec_correctable_blocks", -1), 7051u);
  EXPECT_EQ(total(c, "fec_uncorrectable_blocks", -1), 7052u);
  EXPECT_EQ(total(c, "fec_correctable_symbols", 4), 1054u);
  EXPECT_EQ(total(c, "sync_header_error", -1), 61u);
  // Nothing of the older layout was read.
  EXPECT_EQ(total(c, "fec_correctable_blocks", 4), std::nullopt);
  EXPECT_EQ(total(c, "error_detection", 0), std::nullopt);
  EXPECT_EQ(c.state(kPort)->foreign_clears, 0u);
}

TEST(ExtendedSpeeds, ALayoutChangeKeepsTheCountersBothLayoutsHaveContinuous) {
  std::array<uint8_t, 192> legacy{};
  put16(legacy, 16, 40);           // sync header errors
  put32(legacy, 44 + 4 * 2, 900);  // lane 2's corrected blocks
  Converter c({});
  c.apply(reading(Layout::kStandard, legacy, t0));
  EXPECT_EQ(total(c, "fec_correctable_blocks", 2), 900u);
  put16(legacy, 16, 45);
  c.apply(reading(Layout::kStandard, legacy, t0 + 10s));
  ASSERT_EQ(total(c, "sync_header_error", -1), 45u);
  // The link retrains into RS-FEC: the same sync header counter goes on from 45 to 11 + 40.
  c.apply(reading(Layout::kRsFec, rs_fec_data(40), t0 + 20s));
  EXPECT_EQ(total(c, "sync_header_error", -1), 51u);
  EXPECT_EQ(c.state(kPort)->foreign_clears, 0u);
  EXPECT_EQ(c.state(kPort)->source_switches, 0u);
  // The older layout's lane counter keeps its total; the RS-FEC ones start from their reading.
  EXPECT_EQ(total(c, "fec_correctable_blocks", 2), 900u);
  EXPECT_EQ(total(c, "fec_correctable_blocks", -1), 7041u);
}

}  // namespace
}  // namespace ibpulse::converters
