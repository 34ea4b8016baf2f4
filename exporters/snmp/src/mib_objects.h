#pragma once
// The objects a MibView serves, each a subtree: a table (ifTable, ifXTable, the IB-IF-MIB
// tables) or a group of scalars (the system group, ifNumber), which is a table whose one row has
// the index 0. Each names its entry OID, its columns and how to read a column of a row. Private
// to the SNMP exporter.
//
// Thread safety: constants; the value functions only read the view they are given.

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ibpulse/collector/topology.h"
#include "ibpulse/exporters/snmp/mib_view.h"

namespace ibpulse::exporters::snmp::mib {

// One interface of a context.
struct Row {
  uint32_t index = 0;                     // ifIndex in its context
  uint32_t port = 0;                      // in snapshot.ports
  const collector::Port* link = nullptr;  // the topology's port; null once it left discovery
  const collector::Node* node = nullptr;  // null once it left discovery
};

// One (interface, VL) of ibIfVLTrafficTable.
struct VlRow {
  uint32_t index = 0;
  uint32_t vl = 0;
  uint32_t port = 0;
};

// One entry of a node's ibSmaPKeyTable: IB-SMA-MIB's port index (the data port, or 255 for a
// switch's port 0) and the entry's index in that port's table.
struct PKeyRow {
  uint32_t port_index = 0;
  uint32_t entry = 0;
  uint16_t pkey = 0;
};

// One row of the subnet manager MIB draft's node and switch tables (IBPULSE-MIB ibpulseSm):
// a node, by the subnet prefix of the subnet it was discovered in and its GUID.
struct SmNodeRow {
  uint64_t subnet_prefix = 0;
  const collector::Node* node = nullptr;
};

// One row of ibpulseSmInfoTable: a subnet manager, by its port's subnet prefix and its GUID.
struct SmInfoRow {
  uint64_t subnet_prefix = 0;
  const collector::SubnetManagerInfo* sm = nullptr;
};

enum class Rows : uint8_t {
  kScalar,
  kInterfaces,
  kVirtualLanes,
  kPKeys,
  kSmNodes,
  kSmSwitches,
  kSmInfos
};

}  // namespace ibpulse::exporters::snmp::mib

namespace ibpulse::exporters::snmp {

struct MibView::Context {
  std::string name;                     // "" or the node's "0x..." GUID
  uint64_t node_guid = 0;               // 0: the whole fabric
  std::vector<mib::Row> rows;           // sorted by index
  std::vector<mib::VlRow> vl_rows;      // sorted by (index, vl)
  std::vector<mib::PKeyRow> pkey_rows;  // node contexts: sorted by (port_index, entry)
  // The fabric's context: every node, and the switches with a SwitchInfo, sorted by index.
  std::vector<mib::SmNodeRow> sm_nodes, sm_switches;
  std::vector<mib::SmInfoRow> sm_infos;  // the fabric's context: its SMs, sorted by index
};

}  // namespace ibpulse::exporters::snmp

namespace ibpulse::exporters::snmp::mib {

// What a value function reads.
struct Reader {
  const MibView& view;
  const MibView::Context& context;
  const SystemInfo& system;
  MibView::Clock::time_point agent_start;
  MibView::Clock::time_point now;
};

// Writes column `column` of row `row` into out (type and value, not the name); false when the
// row has no such instance (a counter never read, say).
using ValueFn = bool (*)(const Reader&, size_t row, uint32_t column, VarBind& out);

struct Object {
  Oid entry;                      // the columns hang below it: entry.column.index
  std::vector<uint32_t> columns;  // sorted
  Rows rows;
  ValueFn value;
};

// In OID order.
const std::vector<Object>& objects();

// Index subidentifiers of a row: up to sixteen (ifIndex; ifIndex and VL; a subnet prefix and a
// GUID, eight octets each).
struct Index {
  std::array<uint32_t, 16> subids{};
  uint8_t size = 0;
  std::span<const uint32_t> span() const { return {subids.data(), size}; }
};

// What value functions write: a number of `type`, an OCTET STRING, a TruthValue.
inline constexpr uint64_t kTrue = 1, kFalse = 2;
inline bool set(VarBind& out, VarType type, uint64_t number) {
  out.type = type;
  out.number = number;
  return true;
}
inline bool set_text(VarBind& out, std::string_view text) {
  out.type = VarType::kOctetString;
  out.text.assign(text);
  return true;
}
inline bool set_truth(VarBind& out, bool value) {
  return set(out, VarType::kInteger, value ? kTrue : kFalse);
}
// The `bytes` low-order octets of `value`, most significant first (IbGuid, device and vendor
// IDs, a revision).
inline bool set_octets(VarBind& out, uint64_t value, unsigned bytes) {
  out.type = VarType::kOctetString;
  out.text.clear();
  for (unsigned i = bytes; i-- > 0;)
    out.text.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return true;
}

// ibpulseSm's rows (sm_mib_values.cc): every node of the snapshot's topology, or its switches
// whose SwitchInfo discovery read; sorted by index.
std::vector<SmNodeRow> sm_node_rows(const converters::FabricSnapshot& s, bool switches);
std::vector<SmInfoRow> sm_info_rows(const converters::FabricSnapshot& s);

// Values of the system group, ifNumber, ifTable / ifXTable, the IB-IF-MIB tables and
// IBPULSE-MIB's port and link health tables.
bool system_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool interfaces_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool if_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool if_x_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool port_stat_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool vl_traffic_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool ibpulse_port_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool link_health_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
// IBPULSE-MIB's ibpulseSmNodeTable and ibpulseSmSwitchTable (sm_mib_values.cc).
bool sm_node_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sm_switch_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sm_info_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
// IB-SMA-MIB (sma_values.cc): values in node contexts only.
bool sma_node_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sma_switch_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sma_management_port_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sma_port_info_value(const Reader& r, size_t row, uint32_t column, VarBind& out);
bool sma_pkey_value(const Reader& r, size_t row, uint32_t column, VarBind& out);

}  // namespace ibpulse::exporters::snmp::mib
