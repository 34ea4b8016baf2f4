#include "mib_objects.h"

#include <algorithm>

#include "ibpulse/base/check.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

std::vector<uint32_t> range(uint32_t first, uint32_t last) {
  std::vector<uint32_t> v;
  for (uint32_t c = first; c <= last; ++c)
    v.push_back(c);
  return v;
}

Oid below(const Oid& base, std::initializer_list<uint32_t> more) {
  Oid oid = base;
  oid.insert(oid.end(), more);
  return oid;
}

std::vector<Object> build() {
  const Oid mib2 = {1, 3, 6, 1, 2, 1};
  std::vector<Object> v = {
      {below(mib2, {1}), range(1, 7), Rows::kScalar, &system_value},
      {below(mib2, {2}), {1}, Rows::kScalar, &interfaces_value},
      // ifTable without the deprecated ifInNUcastPkts, ifOutNUcastPkts, ifOutQLen, ifSpecific.
      {below(mib2, {2, 2, 1}),
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 19, 20},
       Rows::kInterfaces,
       &if_value},
      {below(mib2, {31, 1, 1, 1}), range(1, 19), Rows::kInterfaces, &if_x_value},
      // IB-IF-MIB as draft -09 numbers it: the index columns (1; 1 and 2) are not accessible.
      {below(kIbIfMib, {1, 1, 1}), range(2, 15), Rows::kInterfaces, &port_stat_value},
      {below(kIbIfMib, {1, 2, 1}), range(3, 6), Rows::kVirtualLanes, &vl_traffic_value},
      // IB-SMA-MIB in node contexts: the node, switch and management port scalars (not
      // ibSmaPortMKey, 1.4.1) and the port info table (its index, column 1, is not accessible).
      {below(kIbSmaMib, {1, 1}), range(1, 13), Rows::kScalar, &sma_node_value},
      {below(kIbSmaMib, {1, 2}), range(1, 16), Rows::kScalar, &sma_switch_value},
      {below(kIbSmaMib, {1, 4}), range(2, 39), Rows::kScalar, &sma_management_port_value},
      {below(kIbSmaMib, {1, 5, 1, 1}), range(2, 26), Rows::kInterfaces, &sma_port_info_value},
      {below(kIbSmaMib, {1, 6, 1, 1}), range(3, 4), Rows::kPKeys, &sma_pkey_value},
      {kIbpulsePortEntry, range(1, 5), Rows::kInterfaces, &ibpulse_port_value},
      {kIbpulseLinkHealthEntry, range(1, 9), Rows::kInterfaces, &link_health_value},
      // The subnet manager MIB draft's tables: their index columns are not accessible.
      {kIbpulseSmNodeEntry,
       {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13},
       Rows::kSmNodes,
       &sm_node_table_value},
      {kIbpulseSmSwitchEntry, range(2, 16), Rows::kSmSwitches, &sm_switch_table_value},
      // Not the draft's smInfoSMKey (2): a secret.
      {kIbpulseSmInfoEntry, {3, 4, 5, 7}, Rows::kSmInfos, &sm_info_table_value},
  };
  IBPULSE_CHECK(std::is_sorted(v.begin(), v.end(),
                               [](const Object& a, const Object& b) { return a.entry < b.entry; }));
  return v;
}

}  // namespace

const std::vector<Object>& objects() {
  static const std::vector<Object> v = build();
  return v;
}

}  // namespace ibpulse::exporters::snmp::mib
