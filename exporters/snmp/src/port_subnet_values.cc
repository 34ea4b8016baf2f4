// Column values of IBPULSE-MIB's ibpulsePortTable (AUGMENTS ifEntry): the subnet of each port
// interface, so that a manager of a collector polling several subnets (rails) tells them
// apart (subnet prefixes are not unique: the local port that reaches the subnet names it),
// and the RS-FEC counters, which neither IF-MIB nor IB-IF-MIB has a column for.
#include <array>

#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

// ibpulsePortEntry column -> counter index in the schema (-1: none), from the schema's MIB
// columns.
const std::array<int, 8>& counter_columns() {
  static const std::array<int, 8> columns = [] {
    std::array<int, 8> c{};
    c.fill(-1);
    const auto table = schema::counter_table();
    for (size_t i = 0; i < table.size(); ++i) {
      const schema::MibColumn mib = table[i].mib;
      if (mib.table == schema::MibTable::kIbpulsePort && mib.column < c.size()) {
        c[mib.column] = static_cast<int>(i);
      }
    }
    return c;
  }();
  return columns;
}

// An extra (per-lane, extended speeds) counter's exact total as a Counter64; none where the
// port never read it.
bool extra_counter_value(const Reader& r, size_t row_number, size_t counter, VarBind& out) {
  const converters::PortSnapshot& p = r.view.snapshot().ports[r.context.rows[row_number].port];
  if (!p.extra || counter < schema::kCoreCounterCount) return false;
  const auto state = p.extra->find(counter - schema::kCoreCounterCount);
  if (!state || state->source == converters::Source::kNone) return false;
  out.type = VarType::kCounter64;
  out.number = state->total;
  return true;
}

}  // namespace

bool ibpulse_port_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  if (column < counter_columns().size() && counter_columns()[column] >= 0) {
    return extra_counter_value(r, row_number, static_cast<size_t>(counter_columns()[column]), out);
  }
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
