// IBPULSE-MIB's ibpulseSmNodeTable, ibpulseSmSwitchTable and ibpulseSmInfoTable: the subnet
// manager MIB draft's smNodeInfoTable, smSwitchInfoTable and smInfoTable
// (draft-yang-ib-subnet-management-mib-00), whose own OIDs clash with the InfiniBand MIB arc,
// rehomed at ibpulseObjects 5, in the default context. Every node discovery found (the
// switches with a SwitchInfo), from the NodeInfo and SwitchInfo discovery read; the subnet
// managers the poller's last SMInfo round found. Indexed by a subnet prefix and a GUID, eight
// index subidentifiers each (fixed-size OCTET STRINGs).
#include <algorithm>

#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

constexpr size_t kDescriptionMax = 64;  // DisplayString (SIZE (0..64))

bool set_integer(VarBind& out, uint64_t value) {
  return set(out, VarType::kInteger, value);  // Integer32, as the draft has them
}

}  // namespace

std::vector<SmNodeRow> sm_node_rows(const converters::FabricSnapshot& s, bool switches) {
  std::vector<SmNodeRow> rows;
  const collector::Topology* t = s.topology.get();
  if (t == nullptr) return rows;
  for (const collector::Node& n : t->nodes) {
    if (switches && !n.switch_info) continue;
    rows.push_back({t->node_subnet_prefix(n.guid), &n});
  }
  std::sort(rows.begin(), rows.end(), [](const SmNodeRow& a, const SmNodeRow& b) {
    return a.subnet_prefix != b.subnet_prefix ? a.subnet_prefix < b.subnet_prefix
                                              : a.node->guid < b.node->guid;
  });
  return rows;
}

std::vector<SmInfoRow> sm_info_rows(const converters::FabricSnapshot& s) {
  std::vector<SmInfoRow> rows;
  const collector::Topology* t = s.topology.get();
  if (t == nullptr || !s.subnet_managers) return rows;
  for (const collector::SubnetManagerInfo& sm : s.subnet_managers->managers)
    rows.push_back({sm.subnet_prefix, &sm});
  std::sort(rows.begin(), rows.end(), [](const SmInfoRow& a, const SmInfoRow& b) {
    return a.subnet_prefix != b.subnet_prefix ? a.subnet_prefix < b.subnet_prefix
                                              : a.sm->info.guid < b.sm->info.guid;
  });
  // Two ports answering with one GUID would make one index twice: the first stays.
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const SmInfoRow& a, const SmInfoRow& b) {
                           return a.subnet_prefix == b.subnet_prefix &&
                                  a.sm->info.guid == b.sm->info.guid;
                         }),
             rows.end());
  return rows;
}

bool sm_info_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out) {
  const collector::SubnetManagerInfo& sm = *r.context.sm_infos[row].sm;
  switch (column) {
    case 3:
      return set(out, VarType::kGauge32, sm.info.act_count);  // Unsigned32
    case 4:
      return set_integer(out, sm.info.priority);
    case 5:
      return set_integer(out, sm.info.state);
    case 7:
      return set(out, VarType::kGauge32, sm.lid);
    default:
      return false;
  }
}

bool sm_node_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out) {
  const collector::Node& n = *r.context.sm_nodes[row].node;
  switch (column) {
    case 2:
      return set_integer(out, n.sma.base_version);
    case 3:
      return set_integer(out, n.sma.class_version);
    case 4:  // NodeInfo's codes: channelAdapter(1), switch(2), router(3)
      return set_integer(out, static_cast<uint64_t>(n.kind));
    case 5:
      return set_integer(out, n.num_ports);
    case 6:
      return set_octets(out, n.sma.port_guid, 8);
    case 7:
      return set_integer(out, n.sma.partition_cap);
    case 8:
      return set_octets(out, n.sma.device_id, 2);
    case 9:
      return set_octets(out, n.sma.revision, 4);
    case 10:
      return set_integer(out, n.sma.local_port);
    case 11:
      return set_octets(out, n.sma.vendor_id, 3);
    case 13:
      return set_text(out, std::string_view(n.description).substr(0, kDescriptionMax));
    default:
      return false;
  }
}

bool sm_switch_table_value(const Reader& r, size_t row, uint32_t column, VarBind& out) {
  const collector::SmaSwitchInfo& w = *r.context.sm_switches[row].node->switch_info;
  switch (column) {
    case 2:
      return set_integer(out, w.linear_fdb_cap);
    case 3:
      return set_integer(out, w.random_fdb_cap);
    case 4:
      return set_integer(out, w.multicast_fdb_cap);
    case 5:
      return set_integer(out, w.linear_fdb_top);
    case 6:
      return set_integer(out, w.default_port);
    case 7:
      return set_integer(out, w.default_multicast_primary_port);
    case 8:
      return set_integer(out, w.default_multicast_not_primary_port);
    case 9:
      return set_integer(out, w.life_time_value);
    case 10:  // stable(0), portInTransition(1)
      return set_integer(out, w.port_state_change ? 1 : 0);
    case 11:
      return set_integer(out, w.lids_per_port);
    case 12:
      return set_integer(out, w.partition_enforcement_cap);
    case 13:
      return set_truth(out, w.inbound_enforcement_cap);
    case 14:
      return set_truth(out, w.outbound_enforcement_cap);
    case 15:
      return set_truth(out, w.filter_raw_inbound_cap);
    case 16:
      return set_truth(out, w.filter_raw_outbound_cap);
    default:
      return false;
  }
}

}  // namespace ibpulse::exporters::snmp::mib
