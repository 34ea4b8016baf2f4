#include "pma_fields.h"

#include <fmt/format.h>
#include <infiniband/mad.h>

#include <array>

namespace ibpulse::sim {
namespace {

constexpr std::array kPortCounters = {
    PmaField{"SymbolErrorCounter", IB_PC_ERR_SYM_F, 16},
    PmaField{"LinkErrorRecoveryCounter", IB_PC_LINK_RECOVERS_F, 8},
    PmaField{"LinkDownedCounter", IB_PC_LINK_DOWNED_F, 8},
    PmaField{"PortRcvErrors", IB_PC_ERR_RCV_F, 16},
    PmaField{"PortRcvRemotePhysicalErrors", IB_PC_ERR_PHYSRCV_F, 16},
    PmaField{"PortRcvSwitchRelayErrors", IB_PC_ERR_SWITCH_REL_F, 16},
    PmaField{"PortXmitDiscards", IB_PC_XMT_DISCARDS_F, 16},
    PmaField{"PortXmitConstraintErrors", IB_PC_ERR_XMTCONSTR_F, 8},
    PmaField{"PortRcvConstraintErrors", IB_PC_ERR_RCVCONSTR_F, 8},
    PmaField{"LocalLinkIntegrityErrors", IB_PC_ERR_LOCALINTEG_F, 4},
    PmaField{"ExcessiveBufferOverrunErrors", IB_PC_ERR_EXCESS_OVR_F, 4},
    PmaField{"VL15Dropped", IB_PC_VL15_DROPPED_F, 16},
    PmaField{"PortXmitData", IB_PC_XMT_BYTES_F, 32},
    PmaField{"PortRcvData", IB_PC_RCV_BYTES_F, 32},
    PmaField{"PortXmitPkts", IB_PC_XMT_PKTS_F, 32},
    PmaField{"PortRcvPkts", IB_PC_RCV_PKTS_F, 32},
    PmaField{"PortXmitWait", IB_PC_XMT_WAIT_F, 32},
};

constexpr std::array kPortCountersExtended = {
    PmaField{"PortXmitData", IB_PC_EXT_XMT_BYTES_F, 64},
    PmaField{"PortRcvData", IB_PC_EXT_RCV_BYTES_F, 64},
    PmaField{"PortXmitPkts", IB_PC_EXT_XMT_PKTS_F, 64},
    PmaField{"PortRcvPkts", IB_PC_EXT_RCV_PKTS_F, 64},
    PmaField{"PortUnicastXmitPkts", IB_PC_EXT_XMT_UPKTS_F, 64},
    PmaField{"PortUnicastRcvPkts", IB_PC_EXT_RCV_UPKTS_F, 64},
    PmaField{"PortMultiCastXmitPkts", IB_PC_EXT_XMT_MPKTS_F, 64},
    PmaField{"PortMultiCastRcvPkts", IB_PC_EXT_RCV_MPKTS_F, 64},
};

constexpr std::array kPortRcvErrorDetails = {
    PmaField{"PortLocalPhysicalErrors", IB_PC_RCV_LOCAL_PHY_ERR_F, 16},
    PmaField{"PortMalformedPacketErrors", IB_PC_RCV_MALFORMED_PKT_ERR_F, 16},
    PmaField{"PortBufferOverrunErrors", IB_PC_RCV_BUF_OVR_ERR_F, 16},
    PmaField{"PortDLIDMappingErrors", IB_PC_RCV_DLID_MAP_ERR_F, 16},
    PmaField{"PortVLMappingErrors", IB_PC_RCV_VL_MAP_ERR_F, 16},
    PmaField{"PortLoopingErrors", IB_PC_RCV_LOOPING_ERR_F, 16},
};

// ibsim has no PerformanceSet name for PortSwHOQLifetimeLimitDiscards.
constexpr std::array kPortXmitDiscardDetails = {
    PmaField{"PortInactiveDiscards", IB_PC_XMT_INACT_DISC_F, 16},
    PmaField{"PortNeighborMTUDiscards", IB_PC_XMT_NEIGH_MTU_DISC_F, 16},
    PmaField{"PortSwLifetimeLimitDiscards", IB_PC_XMT_SW_LIFE_DISC_F, 16},
};

constexpr std::array kAttributes = {
    PmaAttribute{"PortCounters", IB_GSI_PORT_COUNTERS, kPortCounters},
    PmaAttribute{"PortCountersExtended", IB_GSI_PORT_COUNTERS_EXT, kPortCountersExtended},
    PmaAttribute{"PortRcvErrorDetails", IB_GSI_PORT_RCV_ERROR_DETAILS, kPortRcvErrorDetails},
    PmaAttribute{"PortXmitDiscardDetails", IB_GSI_PORT_XMIT_DISCARD_DETAILS,
                 kPortXmitDiscardDetails},
};

}  // namespace

const PmaAttribute* find_pma_attribute(std::string_view name) {
  for (const auto& a : kAttributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const PmaField* find_pma_field(const PmaAttribute& attribute, std::string_view field) {
  for (const auto& f : attribute.fields) {
    if (f.name == field) return &f;
  }
  return nullptr;
}

bool is_traffic_field(std::string_view field) {
  return field.ends_with("Data") || field.ends_with("Pkts");
}

std::string injectable_field_names() {
  std::string out;
  for (const auto& a : kAttributes) {
    for (const auto& f : a.fields) {
      if (is_traffic_field(f.name)) continue;
      if (!out.empty()) out += ", ";
      out += fmt::format("{}.{}", a.name, f.name);
    }
  }
  return out;
}

}  // namespace ibpulse::sim
