// Values of IB-SMA-MIB's node, switch and management port groups and its port info table, in a
// node's context only (the fabric's context has no node): what the node's SMA answered to
// discovery's NodeInfo, SwitchInfo and PortInfo. The module's enumerations are those of the
// first InfiniBand release (1X/4X/12X, 2.5 Gb/s): an encoding they do not name (a 2X or 8X
// width, any speed above SDR) is other(n), as the module says; IF-MIB's ifHighSpeed and
// ibpulse's metrics carry the real rates.
#include <array>
#include <optional>
#include <utility>

#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

using collector::Node;
using collector::Port;
using collector::SmaPortInfo;

const Node* context_node(const Reader& r) {
  if (r.context.node_guid == 0) return nullptr;
  const collector::Topology* t = r.view.snapshot().topology.get();
  return t != nullptr ? t->find_node(r.context.node_guid) : nullptr;
}

bool set_unsigned(VarBind& out, uint64_t value) {
  return set(out, VarType::kGauge32, value);  // Unsigned32: Gauge32 on the wire
}

// An IBA code mapped onto the module's enumeration: the value listed for it, else `other`.
bool set_enum(VarBind& out, uint8_t raw, std::initializer_list<std::pair<uint8_t, uint8_t>> map,
              uint8_t other) {
  for (const auto& [from, to] : map) {
    if (raw == from) return set(out, VarType::kInteger, to);
  }
  return set(out, VarType::kInteger, other);
}

// PortInfo's 1..N codes that the module numbers the same way (states, MTUs, VLs), else other.
bool set_same_enum(VarBind& out, uint8_t raw, uint8_t last, uint8_t other) {
  return set(out, VarType::kInteger, raw >= 1 && raw <= last ? raw : other);
}

// The port whose PortInfo stands for the node's management port: a switch's port 0; a CA's or
// router's own port with the node's LID (its first linked port), else its first port.
const SmaPortInfo* management_port(const Reader& r, const Node& node) {
  if (node.port0) return &*node.port0;
  if (node.kind == collector::NodeKind::kSwitch) return nullptr;  // port 0 was not read
  const SmaPortInfo* first = nullptr;
  for (const Row& row : r.context.rows) {
    if (row.link == nullptr || row.link->link.state == 0) continue;  // PortInfo never read
    if (row.link->sma.lid != 0 && row.link->sma.lid == node.lid) return &row.link->sma;
    if (first == nullptr) first = &row.link->sma;
  }
  return first;
}

// ibSmaMgmtPortInfo's capability flags, columns 5 to 23: the CapabilityMask bit of each.
constexpr std::array<uint8_t, 19> kCapabilityBits = {
    1,   // IsSM
    2,   // IsNoticeSupported
    3,   // IsTrapSupported
    5,   // IsAutomaticMigrationSupported
    6,   // IsSLMappingSupported
    7,   // IsM_KeyNVRAM
    8,   // IsP_KeyNVRAM
    9,   // IsLEDInfoSupported
    10,  // IsSMdisabled
    11,  // IsSystemImageGUIDSupported
    12,  // IsPKeySwitchExternalPortTrapSupported
    16,  // IsCommunicationManagementSupported
    17,  // IsSNMPTunnelingSupported
    18,  // IsReinitSupported
    19,  // IsDeviceManagementSupported
    20,  // IsVendorClassSupported
    21,  // IsDRNoticeSupported
    22,  // IsCapabilityMaskNoticeSupported
    23,  // IsBootManagementSupported
};

}  // namespace

bool sma_node_value(const Reader& r, size_t /*row*/, uint32_t column, VarBind& out) {
  const Node* node = context_node(r);
  if (node == nullptr) return false;
  switch (column) {
    case 1:
      return set_text(out, node->description);
    case 2:
      return set_unsigned(out, node->sma.base_version);
    case 3:
      return set_unsigned(out, node->sma.class_version);
    case 4:
      return set(out, VarType::kInteger, static_cast<uint64_t>(node->kind));
    case 5:
      return set_unsigned(out, node->num_ports);
    case 6:
      return set_octets(out, node->system_image_guid, 8);
    case 7:
      return set_octets(out, node->guid, 8);
    case 8:
      return set_octets(out, node->sma.port_guid, 8);
    case 9:
      return set_unsigned(out, node->sma.partition_cap);
    case 10:
      return set_octets(out, node->sma.device_id, 2);
    case 11:
      return set_octets(out, node->sma.revision, 4);
    case 12:  // the IB port that received the SNMP request: none does (UDP), so 0, "unknown"
      return set_unsigned(out, 0);
    case 13:
      return set_octets(out, node->sma.vendor_id, 3);
  }
  return false;
}

bool sma_switch_value(const Reader& r, size_t /*row*/, uint32_t column, VarBind& out) {
  const Node* node = context_node(r);
  if (node == nullptr || !node->switch_info) return false;
  const collector::SmaSwitchInfo& s = *node->switch_info;
  switch (column) {
    case 1:
      return set_unsigned(out, s.linear_fdb_cap);
    case 2:
      return set_unsigned(out, s.random_fdb_cap);
    case 3:
      return set_unsigned(out, s.multicast_fdb_cap);
    case 4:
      return set_unsigned(out, s.linear_fdb_top);
    case 5:
      return set_unsigned(out, s.default_port);
    case 6:
      return set_unsigned(out, s.default_multicast_primary_port);
    case 7:
      return set_unsigned(out, s.default_multicast_not_primary_port);
    case 8:
      return set_unsigned(out, s.life_time_value);
    case 9:
      return set_truth(out, s.port_state_change);
    case 10:
      return set_unsigned(out, s.lids_per_port);
    case 11:
      return set_unsigned(out, s.partition_enforcement_cap);
    case 12:
      return set_truth(out, s.inbound_enforcement_cap);
    case 13:
      return set_truth(out, s.outbound_enforcement_cap);
    case 14:
      return set_truth(out, s.filter_raw_inbound_cap);
    case 15:
      return set_truth(out, s.filter_raw_outbound_cap);
    case 16:
      return set_truth(out, s.enhanced_port0);
  }
  return false;
}

bool sma_management_port_value(const Reader& r, size_t /*row*/, uint32_t column, VarBind& out) {
  const Node* node = context_node(r);
  const SmaPortInfo* p = node != nullptr ? management_port(r, *node) : nullptr;
  if (p == nullptr) return false;
  if (column >= 5 && column < 5 + kCapabilityBits.size())
    return set_truth(out, (p->capability_mask >> kCapabilityBits[column - 5]) & 1u);
  if (column >= 27 && column <= 30) return set_truth(out, (p->init_type >> (column - 27)) & 1u);
  if (column >= 31 && column <= 33)
    return set_truth(out, (p->init_type_reply >> (column - 31)) & 1u);
  switch (column) {
    case 2:
      return set_octets(out, p->gid_prefix, 8);
    case 3:
      return set_unsigned(out, p->lid);
    case 4:
      return set_unsigned(out, p->master_sm_lid);
    case 24:
      return set_unsigned(out, p->m_key_lease_period);
    case 25:  // noMKeyProtection(1) .. failOnNoMatch(4): the 2-bit code + 1
      return set(out, VarType::kInteger, p->m_key_protect_bits + 1u);
    case 26:
      return set_unsigned(out, p->master_sm_sl);
    case 34:
      return set(out, VarType::kCounter32, p->m_key_violations);
    case 35:
      return set(out, VarType::kCounter32, p->p_key_violations);
    case 36:
      return set(out, VarType::kCounter32, p->q_key_violations);
    case 37:
      return set_unsigned(out, p->guid_cap);
    case 38:
      return set_unsigned(out, p->subnet_timeout);
    case 39:
      return set_unsigned(out, p->resp_time_value);
  }
  return false;  // 1, ibSmaPortMKey: the key itself is never served
}

bool sma_port_info_value(const Reader& r, size_t row, uint32_t column, VarBind& out) {
  if (r.context.node_guid == 0) return false;
  const Port* port = r.context.rows[row].link;
  // Gone from discovery, or its PortInfo never read (a CA port without a link): no row.
  if (port == nullptr || port->link.state == 0) return false;
  const SmaPortInfo& p = port->sma;
  const collector::LinkState& l = port->link;  // kept fresh between discoveries
  switch (column) {
    case 2:
      return set_enum(out, l.width_enabled,
                      {{1, 1}, {2, 2}, {3, 3}, {8, 4}, {9, 5}, {10, 6}, {11, 7}, {255, 8}}, 9);
    case 3:
      return set_enum(out, l.width_supported, {{1, 1}, {3, 2}, {11, 3}}, 4);
    case 4:
      return set_enum(out, l.width_active, {{1, 1}, {2, 2}, {8, 3}}, 4);
    case 5:
      return set_enum(out, l.speed_supported, {{1, 1}}, 2);
    case 6:
      return set_same_enum(out, l.state, 4, 5);
    case 7:
      return set_same_enum(out, l.phys_state, 6, 7);
    case 8:
      return set_same_enum(out, p.link_down_default_state, 2, 3);
    case 9:
      return set_unsigned(out, p.lmc);
    case 10:
      return set_enum(out, l.speed_active, {{1, 1}}, 2);
    case 11:
      return set_enum(out, l.speed_enabled, {{1, 1}, {15, 2}}, 3);
    case 12:
      return set_same_enum(out, l.mtu, 5, 6);
    case 13:
      return set_same_enum(out, p.vl_cap, 5, 6);
    case 14:
      return set_unsigned(out, p.vl_high_limit);
    case 15:
      return set_unsigned(out, p.vl_arbitration_high_cap);
    case 16:
      return set_unsigned(out, p.vl_arbitration_low_cap);
    case 17:
      return set_same_enum(out, p.mtu_cap, 5, 6);
    case 18:
      return set_unsigned(out, p.vl_stall_count);
    case 19:
      return set_unsigned(out, p.hoq_life);
    case 20:
      return set_same_enum(out, p.operational_vls, 5, 6);
    case 21:
      return set_truth(out, p.partition_enforcement_inbound);
    case 22:
      return set_truth(out, p.partition_enforcement_outbound);
    case 23:
      return set_truth(out, p.filter_raw_inbound);
    case 24:
      return set_truth(out, p.filter_raw_outbound);
    case 25:
      return set_unsigned(out, p.local_phys_error_threshold);
    case 26:
      return set_unsigned(out, p.overrun_error_threshold);
  }
  return false;
}

bool sma_pkey_value(const Reader& r, size_t row, uint32_t column, VarBind& out) {
  const PKeyRow& p = r.context.pkey_rows[row];
  switch (column) {
    case 3:  // limited(2), full(3); an empty entry (none(1)) is no row
      return set(out, VarType::kInteger, (p.pkey & 0x8000) != 0 ? 3 : 2);
    case 4:
      return set_unsigned(out, p.pkey & 0x7FFF);
  }
  return false;
}

}  // namespace ibpulse::exporters::snmp::mib
