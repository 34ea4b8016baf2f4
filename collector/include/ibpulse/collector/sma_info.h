#pragma once
// What a node's Subnet Management Agent says of the node and its ports beyond what the
// topology's link view keeps: the NodeInfo, SwitchInfo and PortInfo fields that IB-SMA-MIB
// serves, decoded once from the SMPs discovery already reads (no SMP of their own), in their
// raw IBA encodings (each field's meaning beside it).
//
// Thread safety: value types.

#include <cstdint>
#include <vector>

namespace ibpulse::collector {

// NodeInfo (SMP attribute 0x11).
struct SmaNodeInfo {
  uint8_t base_version = 0;    // MAD base version supported
  uint8_t class_version = 0;   // SMP class version supported
  uint16_t partition_cap = 0;  // P_Key table entries of a CA, router or switch port 0
  uint16_t device_id = 0;
  uint32_t revision = 0;
  uint32_t vendor_id = 0;  // 24 bits, IEEE OUI
  uint64_t port_guid = 0;  // of the port the NodeInfo was read through
  uint8_t local_port = 0;  // the port it was read through
  friend bool operator==(const SmaNodeInfo&, const SmaNodeInfo&) = default;
};

// SwitchInfo (SMP attribute 0x12), of switches only.
struct SmaSwitchInfo {
  uint16_t linear_fdb_cap = 0, random_fdb_cap = 0, multicast_fdb_cap = 0;
  uint16_t linear_fdb_top = 0;
  uint8_t default_port = 0, default_multicast_primary_port = 0;
  uint8_t default_multicast_not_primary_port = 0;
  uint8_t life_time_value = 0;  // 5 bits
  bool port_state_change = false;
  uint16_t lids_per_port = 0;
  uint16_t partition_enforcement_cap = 0;  // P_Key entries per data port; 0: no enforcement
  bool inbound_enforcement_cap = false, outbound_enforcement_cap = false;
  bool filter_raw_inbound_cap = false, filter_raw_outbound_cap = false;
  bool enhanced_port0 = false;
  friend bool operator==(const SmaSwitchInfo&, const SmaSwitchInfo&) = default;
};

// PortInfo (SMP attribute 0x15), the port's own (a switch's data ports have no LID, M_Key or
// SM fields of their own: port 0's hold them). The M_Key itself is not kept.
struct SmaPortInfo {
  uint64_t gid_prefix = 0;
  uint16_t lid = 0;
  uint16_t master_sm_lid = 0;
  uint32_t capability_mask = 0;
  uint16_t m_key_lease_period = 0;  // seconds
  uint8_t m_key_protect_bits = 0;   // 0..3
  uint8_t lmc = 0;
  uint8_t master_sm_sl = 0;
  uint8_t init_type =
      0;  // bits: 0 NoLoad, 1 PreserveContent, 2 PreservePresence, 3 DoNotResuscitate
  uint8_t init_type_reply =
      0;  // bits: 0 NoLoadReply, 1 PreserveContentReply, 2 PreservePresenceReply
  uint8_t link_down_default_state = 0;  // 1 Sleep, 2 Polling
  uint8_t vl_cap = 0;                   // 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14
  uint8_t vl_high_limit = 0;
  uint8_t vl_arbitration_high_cap = 0, vl_arbitration_low_cap = 0;
  uint8_t mtu_cap = 0;  // 1=256 ... 5=4096
  uint8_t vl_stall_count = 0;
  uint8_t hoq_life = 0;
  uint8_t operational_vls = 0;  // as vl_cap
  bool partition_enforcement_inbound = false, partition_enforcement_outbound = false;
  bool filter_raw_inbound = false, filter_raw_outbound = false;
  uint16_t m_key_violations = 0, p_key_violations = 0, q_key_violations = 0;
  uint8_t guid_cap = 0;
  uint8_t subnet_timeout = 0;
  uint8_t resp_time_value = 0;
  uint8_t local_phys_error_threshold = 0;  // 4 bits
  uint8_t overrun_error_threshold = 0;     // 4 bits
  friend bool operator==(const SmaPortInfo&, const SmaPortInfo&) = default;
};

// SMInfo (SMP attribute 0x20), of a port whose PortInfo says IsSM: the subnet manager there.
struct SmaSmInfo {
  uint64_t guid = 0;       // the SM's port GUID
  uint32_t act_count = 0;  // grows as the SM works (a master's keeps growing)
  uint8_t priority = 0;    // 4 bits
  uint8_t state = 0;       // 0 not active, 1 discovering, 2 standby, 3 master
  friend bool operator==(const SmaSmInfo&, const SmaSmInfo&) = default;
};

// A subnet manager found on a port, and where: the port (a switch's: port 0), its LID, the
// subnet prefix of its subnet (the port's, a switch's first port's that knows one) and which of
// the daemon's subnets found it (Port::subnet).
struct SubnetManagerInfo {
  uint64_t node_guid = 0;
  uint8_t port = 0;
  uint16_t lid = 0;
  uint64_t subnet_prefix = 0;
  uint8_t subnet = 0;
  SmaSmInfo info;
};

// The subnet managers of every subnet the daemon polls, each subnet's from its last round of
// SMInfo reads, and how many rounds each subnet has ended (index: Port::subnet): a reader tells
// from them which subnets were read again.
struct SubnetManagers {
  std::vector<SubnetManagerInfo> managers;  // by subnet, each in the order its round found them
  std::vector<uint64_t> rounds;
};

// `data`: the 64 bytes of the attribute. (SMInfo's SM_Key is not kept: a secret, and 0 to a
// requester that does not give it.)
SmaNodeInfo sma_node_info(const uint8_t* data);
SmaSmInfo sma_sm_info(const uint8_t* data);
SmaSwitchInfo sma_switch_info(const uint8_t* data);
SmaPortInfo sma_port_info(const uint8_t* data);

}  // namespace ibpulse::collector
