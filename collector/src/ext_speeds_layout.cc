#include "ibpulse/collector/ext_speeds_layout.h"

#include <infiniband/mad.h>

#include <array>

namespace ibpulse::collector {
namespace {

using schema::Layout;

constexpr uint32_t kPmaRsFecCounters = 0x4000;      // ClassPortInfo CapabilityMask
constexpr uint32_t kHasCapabilityMask2 = 0x8000;    // PortInfo CapabilityMask
constexpr uint16_t kPortInfoExtendedSupported = 2;  // PortInfo CapabilityMask2
constexpr uint32_t kFecModeSupported = 1;           // PortInfoExtended CapabilityMask

bool rs_fec_active(const PortInfoExtended& pie) {
  const bool rs_fec_mode = pie.fec_mode_active >= 2 && pie.fec_mode_active <= 4;
  return (pie.capability_mask & kFecModeSupported) != 0 && rs_fec_mode;
}

}  // namespace

PortInfoExtended decode_port_info_extended(std::span<const uint8_t> data) {
  std::array<uint8_t, 64> bytes{};  // the fields are in the first 8 bytes
  for (size_t i = 0; i < bytes.size() && i < data.size(); ++i)
    bytes[i] = data[i];
  PortInfoExtended pie;
  pie.capability_mask = mad_get_field(bytes.data(), 0, IB_PORT_EXT_CAPMASK_F);
  pie.fec_mode_active =
      static_cast<uint16_t>(mad_get_field(bytes.data(), 0, IB_PORT_EXT_FEC_MODE_ACTIVE_F));
  return pie;
}

LayoutDecision ExtSpeedsLayouts::decide(const PmaCapabilities* caps, const Port& port,
                                        bool smps) const {
  switch (mode_) {
    case ExtSpeedsLayoutMode::kLegacy:
      return {Layout::kStandard, "collect.ext-speeds-layout legacy"};
    case ExtSpeedsLayoutMode::kRsFec:
      return {Layout::kRsFec, "collect.ext-speeds-layout rsfec"};
    case ExtSpeedsLayoutMode::kAuto:
      break;
  }
  if (caps == nullptr) return {Layout::kStandard, "ClassPortInfo unanswered", true};
  if ((caps->capability_mask & kPmaRsFecCounters) == 0) {
    return {Layout::kStandard, "no RS-FEC counters (ClassPortInfo CapabilityMask 0x4000)"};
  }
  if ((port.capability_mask & kHasCapabilityMask2) == 0 ||
      (port.capability_mask2 & kPortInfoExtendedSupported) == 0) {
    return {Layout::kStandard, "no PortInfoExtended (PortInfo CapabilityMask2 0x0002)"};
  }
  const auto found = entries_.find(port.key);
  if (found != entries_.end() && found->second.answer) {
    return rs_fec_active(*found->second.answer)
               ? LayoutDecision{Layout::kRsFec, "PortInfoExtended: RS-FEC active"}
               : LayoutDecision{Layout::kStandard, "PortInfoExtended: no RS-FEC active"};
  }
  if (found != entries_.end() && found->second.refused) {
    return {Layout::kStandard, "PortInfoExtended refused", true};
  }
  if (found != entries_.end() && found->second.failures >= kMaxAsks) {
    return {Layout::kStandard, "PortInfoExtended unanswered", true};
  }
  if (!smps) return {Layout::kStandard, "SMPs are off (poll.port-info-interval)", true};
  return {std::nullopt, "asking PortInfoExtended"};
}

bool ExtSpeedsLayouts::answered(PortKey port, const PortInfoExtended& answer) {
  entries_[port].answer = answer;
  return true;
}

bool ExtSpeedsLayouts::failed(PortKey port, bool refused) {
  Entry& e = entries_[port];
  e.refused = e.refused || refused;
  ++e.failures;
  return e.refused || e.failures >= kMaxAsks;
}

}  // namespace ibpulse::collector
