// Column values of the system group, ifNumber, ifTable and ifXTable (RFC 2863 as the IB-IF-MIB
// draft's section 2.2.7 applies it to InfiniBand ports).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "ibpulse/converters/if_mib.h"
#include "ibpulse/converters/interface_status.h"
#include "mib_objects.h"
#include "octets.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

using converters::PortSnapshot;
using schema::CounterId;

constexpr uint64_t kIfTypeInfiniband = 199;      // IANAifType infiniband(199)
constexpr uint64_t kEnabled = 1, kDisabled = 2;  // ifLinkUpDownTrapEnable

// TimeTicks of sysUpTime at `t`: 0 when it came before the agent started (RFC 2863).
uint64_t ticks_at(const Reader& r, MibView::Clock::time_point t) {
  if (t <= r.agent_start) return 0;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t - r.agent_start).count() / 10);
}

// A node's name as operators know it: the node-name map's or its description, else its GUID.
std::string node_name(const Row& row, const PortSnapshot& p) {
  if (row.node != nullptr && !row.node->name.empty()) return row.node->name;
  return fmt::format("0x{:016x}", p.key.node_guid);
}

// Whether a port's counter columns are served: once its data counters were read. All of them
// or none, so a row never has holes (MRTG's cfgmaker takes a missing 64-bit column for an
// interface without them); a port never read has no octets, not 0. A sum over counters the
// PMA does not have counts them as 0.
bool counters_read(const PortSnapshot& p) {
  return p.has(CounterId::kRcvData) || p.has(CounterId::kXmitData) ||
         p.has(CounterId::kRcvPackets) || p.has(CounterId::kXmitPackets);
}

// The counter columns of ifTable and ifXTable as the schema names them (schema::Derived's
// columns and the always-zero ones), looked up once: [table][column].
using ColumnTable = std::array<std::array<schema::IfCounterColumn, 32>, 2>;

const ColumnTable& counter_columns() {
  static const ColumnTable table = [] {
    ColumnTable t{};
    for (uint8_t c = 0; c < 32; ++c) {
      t[0][c] = schema::if_counter_column(schema::MibTable::kIfTable, c);
      t[1][c] = schema::if_counter_column(schema::MibTable::kIfXTable, c);
    }
    return t;
  }();
  return table;
}

// A counter column's value, once the port's counters were read: the converters' IF-MIB value
// (its low 32 bits in a Counter32), or 0 for a counter that is always 0 on InfiniBand.
bool counter_value(const PortSnapshot& p, schema::MibTable table, uint32_t column, VarBind& out) {
  if (column >= 32) return false;
  const schema::IfCounterColumn& c =
      counter_columns()[table == schema::MibTable::kIfXTable ? 1 : 0][column];
  using Source = schema::IfCounterColumn::Source;
  if (c.source == Source::kNone || !counters_read(p)) return false;
  const VarType type = c.wide ? VarType::kCounter64 : VarType::kCounter32;
  if (c.source == Source::kZero) return set(out, type, 0);
  if (!p.value_ready(c.id)) return false;
  const uint64_t v = p.value(c.id);
  return set(out, type, c.wide ? v : v & 0xFFFFFFFFu);
}

uint64_t link_bits_per_second(const Row& row) {
  if (row.link == nullptr || row.link->link.state < 2) return 0;  // down: no width or speed
  return converters::link_bits_per_second(row.link->link);
}

}  // namespace

bool system_value(const Reader& r, size_t /*row*/, uint32_t column, VarBind& out) {
  switch (column) {
    case 1:
      return set_text(out, r.system.descr);
    case 2:
      out.type = VarType::kObjectId;
      out.oid_value = r.system.object_id;
      return true;
    case 3:
      return set(out, VarType::kTimeTicks, ticks_at(r, r.now));
    case 4:
      return set_text(out, r.system.contact);
    case 5: {
      if (r.context.node_guid == 0) return set_text(out, r.system.name);
      const auto* node = r.view.snapshot().topology
                             ? r.view.snapshot().topology->find_node(r.context.node_guid)
                             : nullptr;
      return set_text(out, node != nullptr ? std::string_view(node->name) : r.context.name);
    }
    case 6:
      return set_text(out, r.system.location);
    case 7:
      return set(out, VarType::kInteger, 2);  // sysServices: a link-layer (bridge-like) entity
  }
  return false;
}

bool interfaces_value(const Reader& r, size_t /*row*/, uint32_t /*column*/, VarBind& out) {
  return set(out, VarType::kInteger, r.context.rows.size());  // ifNumber
}

bool if_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  const Row& row = r.context.rows[row_number];
  const PortSnapshot& p = r.view.snapshot().ports[row.port];
  switch (column) {
    case 1:
      return set(out, VarType::kInteger, row.index);
    case 2:
      out.type = VarType::kOctetString;
      out.text = fmt::format("{} port {} (node GUID 0x{:016x})", node_name(row, p), p.key.port,
                             p.key.node_guid);
      return true;
    case 3:
      return set(out, VarType::kInteger, kIfTypeInfiniband);
    case 4:
      return set(out, VarType::kInteger, p.mtu);
    case 5:
      return set(out, VarType::kGauge32, converters::if_speed(link_bits_per_second(row)));
    case 6: {
      out.type = VarType::kOctetString;
      out.text.clear();
      if (p.phys_lid != 0) append_big_endian(out.text, p.phys_lid, 2);  // the base LID
      return true;
    }
    case 7: {  // ifAdminStatus: down only when the port was disabled
      const bool disabled = row.link != nullptr && row.link->link.phys_state == 3;
      return set(out, VarType::kInteger, disabled ? 2 : 1);
    }
    case 8:
      return set(out, VarType::kInteger, static_cast<uint64_t>(p.oper_status));
    case 9:
      return set(out, VarType::kTimeTicks, ticks_at(r, p.last_change));
  }
  return counter_value(p, schema::MibTable::kIfTable, column, out);
}

bool if_x_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  const Row& row = r.context.rows[row_number];
  const PortSnapshot& p = r.view.snapshot().ports[row.port];
  switch (column) {
    case 1:  // ifName: what ibnetdiscover and perfquery users call the port
      out.type = VarType::kOctetString;
      out.text = fmt::format("{}/{}", node_name(row, p), p.key.port);
      return true;
    case 14:  // the same for every port: the agent's switch, when it has a sink
      return set(out, VarType::kInteger, r.view.link_up_down_traps() ? kEnabled : kDisabled);
    case 15:
      return set(out, VarType::kGauge32, converters::if_high_speed(link_bits_per_second(row)));
    case 16:
      return set(out, VarType::kInteger, kFalse);  // ifPromiscuousMode
    case 17:
      return set(out, VarType::kInteger, kTrue);  // a physical port (switch port 0 is no row)
    case 18: {                                    // ifAlias: the port at the other end of the link
      out.type = VarType::kOctetString;
      out.text.clear();
      if (row.link != nullptr && row.link->remote) {
        const auto* topology = r.view.snapshot().topology.get();
        const auto* peer = topology ? topology->find_node(row.link->remote->node_guid) : nullptr;
        const std::string name = peer != nullptr && !peer->name.empty()
                                     ? peer->name
                                     : fmt::format("0x{:016x}", row.link->remote->node_guid);
        out.text = fmt::format("to {}/{}", name, row.link->remote->port);
      }
      return true;
    }
    case 19:
      return set(out, VarType::kTimeTicks, ticks_at(r, p.discontinuity));
  }
  return counter_value(p, schema::MibTable::kIfXTable, column, out);
}

}  // namespace ibpulse::exporters::snmp::mib
