#pragma once
// Performance Management attributes (IBA vol. 1, chapter 16.1.3) that ibpulse reads.
// The counter schema (fields, offsets, widths, exported names) grows from these declarations;
// it is the bottom of the dependency graph and includes no libibmad header.
//
// Thread safety: constants and pure functions only.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ibpulse::schema {

enum class Attribute : uint16_t {
  kClassPortInfo = 0x01,
  kPortSamplesControl = 0x10,
  kPortSamplesResult = 0x11,
  kPortCounters = 0x12,
  kPortRcvErrorDetails = 0x15,
  kPortXmitDiscardDetails = 0x16,
  kPortOpRcvCounters = 0x17,
  kPortFlowCtlCounters = 0x18,
  kPortVLOpPackets = 0x19,
  kPortVLOpData = 0x1A,
  kPortVLXmitFlowCtlUpdateErrors = 0x1B,
  kPortVLXmitWaitCounters = 0x1C,
  kPortCountersExtended = 0x1D,
  kPortSamplesResultExtended = 0x1E,
  kPortExtendedSpeedsCounters = 0x1F,
};

struct AttributeInfo {
  Attribute id;
  std::string_view name;  // IBA name, as ibsim's PerformanceSet console command spells it
};

// Every attribute above, in id order.
std::span<const AttributeInfo> all_attributes();

std::optional<AttributeInfo> find_attribute(std::string_view name);
std::optional<AttributeInfo> find_attribute(Attribute id);

}  // namespace ibpulse::schema
