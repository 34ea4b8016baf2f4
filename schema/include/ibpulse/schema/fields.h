#pragma once
// The counter schema: every PMA field ibpulse reads, declared once. Decoders, accumulators,
// exporters, MIB tests and docs/metrics.md are driven by this table; adding a counter is one
// line. Offsets are bits from the start of the attribute data (MAD byte 64), numbered as the
// IBA spec does (most significant bit of byte 0 first). Names are the IBA field names exactly
// as perfquery prints them. Samples stay raw: `scale` is applied once, in the converters.
//
// Thread safety: constants and pure functions only.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ibpulse/schema/attributes.h"

namespace ibpulse::schema {

// What a field counts, after scaling by `scale`.
enum class Unit : uint8_t {
  kEvents,   // errors, discards, link events
  kBytes,    // data counters (raw: 4-byte words, scale 4)
  kPackets,  // packet counters
  kTicks,    // PortXmitWait: ticks with data to send but no credit
  kBlocks,   // FEC blocks
  kSymbols,  // RS-FEC symbols (10 bits each)
};

// Which layout of its attribute a field belongs to. Every attribute has one, except
// PortExtendedSpeedsCounters: its RS-FEC layout (ports running RS-FEC: HDR, NDR, XDR) puts
// per-lane corrected-symbol counters and three port totals where the older layout has
// per-lane error detection and FEC block counters. The poller chooses a port's layout
// (docs/collector.md, "Extended speeds"); the sample says which one it was decoded with.
enum class Layout : uint8_t {
  kStandard,  // the attribute's only layout; PortExtendedSpeedsCounters' pre-RS-FEC one
  kRsFec,     // PortExtendedSpeedsCounters with RS-FEC active
};
inline constexpr size_t kLayoutCount = 2;

// The capability a field needs before it may be read: a bit of the node's ClassPortInfo
// CapabilityMask (or CapabilityMask2) that says the PMA carries it.
enum class Requires : uint8_t {
  kNothing,
  kExtendedWidth,       // CapabilityMask 0x200 or 0x400: the four 64-bit data counters
  kExtendedWidthFull,   // CapabilityMask 0x200: 64-bit unicast/multicast packet counters
  kAdditionalExtended,  // CapabilityMask2 bit 1: 64-bit error counters
  kXmitWait,            // CapabilityMask 0x1000
  kQp1Dropped,          // CapabilityMask 0x8000
};

// Which select mask of the attribute clears the field on a Set.
enum class SelectMask : uint8_t { kNone, kCounterSelect, kCounterSelect2 };

struct Field {
  Attribute attribute;
  std::string_view name;
  uint16_t bit_offset;
  uint8_t width;  // bits, 2..64
  SelectMask select;
  uint8_t select_bit;  // bit within that mask (bit 0 = least significant)
  uint8_t scale;       // raw x scale = value in `unit`
  Unit unit;
  Requires requires_capability;
  Layout layout = Layout::kStandard;

  // Narrow counters stop at all ones instead of wrapping; 64-bit ones never get there.
  bool latches() const { return width < 64; }
};

// Every field, grouped by attribute and layout, each group in the order of its layout.
std::span<const Field> all_fields();

// The most fields one layout of an attribute has (PortExtendedSpeedsCounters' 38): what a
// sample holds room for. Checked against the table when the schema compiles.
inline constexpr size_t kMaxFieldsPerAttribute = 38;

// The fields of one layout of an attribute (empty for an attribute without counters, or
// without that layout).
std::span<const Field> fields_of(Attribute attribute, Layout layout = Layout::kStandard);

std::optional<Field> find_field(Attribute attribute, std::string_view name,
                                Layout layout = Layout::kStandard);

// Reads `width` bits at `bit_offset` (IBA bit order) from attribute data; 0 past the end.
uint64_t extract_bits(std::span<const uint8_t> data, unsigned bit_offset, unsigned width);

// The CounterSelect / CounterSelect2 masks that clear exactly `fields` with a Set.
struct SelectMasks {
  uint64_t counter_select = 0;
  uint64_t counter_select2 = 0;
};
SelectMasks select_masks_for(std::span<const Field> fields);

}  // namespace ibpulse::schema
