// Column values of IBPULSE-MIB's ibpulsePortTable (AUGMENTS ifEntry): the subnet of each port
// interface, so that a manager of a collector polling several subnets (rails) tells them
// apart. Subnet prefixes are not unique: the local port that reaches the subnet names it.
#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {

bool ibpulse_port_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  const Row& row = r.context.rows[row_number];
  const collector::Topology* topology = r.view.snapshot().topology.get();
  if (row.link == nullptr || topology == nullptr) return false;  // gone from discovery
  const collector::Topology::Subnet* subnet = topology->subnet_of(*row.link);
  out.type = VarType::kOctetString;
  switch (column) {
    case 1:  // ibpulsePortSubnetPrefix, as IbpulseGuidString
      out.text = collector::guid_string(topology->subnet_prefix_of(*row.link));
      return true;
    case 2:  // ibpulsePortLocalPort
      if (subnet == nullptr) return false;
      out.text = subnet->local_port;
      return true;
  }
  return false;
}

}  // namespace ibpulse::exporters::snmp::mib
