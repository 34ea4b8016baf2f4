#include "ibpulse/schema/attributes.h"

#include <algorithm>
#include <array>

namespace ibpulse::schema {
namespace {

constexpr std::array kAttributes = {
    AttributeInfo{Attribute::kClassPortInfo, "ClassPortInfo"},
    AttributeInfo{Attribute::kPortSamplesControl, "PortSamplesControl"},
    AttributeInfo{Attribute::kPortSamplesResult, "PortSamplesResult"},
    AttributeInfo{Attribute::kPortCounters, "PortCounters"},
    AttributeInfo{Attribute::kPortRcvErrorDetails, "PortRcvErrorDetails"},
    AttributeInfo{Attribute::kPortXmitDiscardDetails, "PortXmitDiscardDetails"},
    AttributeInfo{Attribute::kPortOpRcvCounters, "PortOpRcvCounters"},
    AttributeInfo{Attribute::kPortFlowCtlCounters, "PortFlowCtlCounters"},
    AttributeInfo{Attribute::kPortVLOpPackets, "PortVLOpPackets"},
    AttributeInfo{Attribute::kPortVLOpData, "PortVLOpData"},
    AttributeInfo{Attribute::kPortVLXmitFlowCtlUpdateErrors, "PortVLXmitFlowCtlUpdateErrors"},
    AttributeInfo{Attribute::kPortVLXmitWaitCounters, "PortVLXmitWaitCounters"},
    AttributeInfo{Attribute::kPortCountersExtended, "PortCountersExtended"},
    AttributeInfo{Attribute::kPortSamplesResultExtended, "PortSamplesResultExtended"},
    AttributeInfo{Attribute::kPortExtendedSpeedsCounters, "PortExtendedSpeedsCounters"},
};

}  // namespace

std::span<const AttributeInfo> all_attributes() {
  return kAttributes;
}

std::optional<AttributeInfo> find_attribute(std::string_view name) {
  const auto* it = std::find_if(kAttributes.begin(), kAttributes.end(),
                                [name](const AttributeInfo& a) { return a.name == name; });
  if (it == kAttributes.end()) return std::nullopt;
  return *it;
}

std::optional<AttributeInfo> find_attribute(Attribute id) {
  const auto* it = std::find_if(kAttributes.begin(), kAttributes.end(),
                                [id](const AttributeInfo& a) { return a.id == id; });
  if (it == kAttributes.end()) return std::nullopt;
  return *it;
}

}  // namespace ibpulse::schema
