// Column values of IB-IF-MIB's ibIfPortStatTable (Counter32, as the draft defines them: the low
// 32 bits of the exact totals, which wrap as managers expect) and ibIfVLTrafficTable (Counter64
// totals of the sampled time, vl_traffic.h).
#include <array>

#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

// ibIfPortStatEntry column -> counter index in the schema (-1: none), from the schema's MIB
// columns: declared once there.
const std::array<int, 16>& stat_columns() {
  static const std::array<int, 16> columns = [] {
    std::array<int, 16> c{};
    c.fill(-1);
    const auto table = schema::counter_table();
    for (size_t i = 0; i < schema::kCoreCounterCount; ++i) {
      const schema::MibColumn mib = table[i].mib;
      if (mib.table == schema::MibTable::kIbIfPortStat && mib.column < c.size()) {
        c[mib.column] = static_cast<int>(i);
      }
    }
    return c;
  }();
  return columns;
}

}  // namespace

bool port_stat_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  if (column >= stat_columns().size() || stat_columns()[column] < 0) return false;
  const auto counter = static_cast<size_t>(stat_columns()[column]);
  const converters::PortSnapshot& p = r.view.snapshot().ports[r.context.rows[row_number].port];
  if ((p.present >> counter & 1) == 0) return false;  // never read: no instance, not 0
  out.type = VarType::kCounter32;
  out.number = p.totals[counter] & 0xFFFFFFFFu;
  return true;
}

bool vl_traffic_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  const VlRow& row = r.context.vl_rows[row_number];
  const auto& traffic = r.view.snapshot().ports[row.port].vl_traffic;
  if (!traffic) return false;
  using converters::VlColumn;
  out.type = VarType::kCounter64;
  switch (column) {
    case 3:  // ibIfVLOutOctets
      if (!traffic->has(row.vl, VlColumn::kXmitData)) return false;
      out.number = traffic->out_octets(row.vl);
      return true;
    case 4:  // ibIfVLOutPkts
      if (!traffic->has(row.vl, VlColumn::kXmitPackets)) return false;
      out.number = traffic->vl[row.vl][VlColumn::kXmitPackets];
      return true;
    case 5:  // ibIfVLInOctets
      if (!traffic->has(row.vl, VlColumn::kRcvData)) return false;
      out.number = traffic->in_octets(row.vl);
      return true;
    case 6:  // ibIfVLInPkts
      if (!traffic->has(row.vl, VlColumn::kRcvPackets)) return false;
      out.number = traffic->vl[row.vl][VlColumn::kRcvPackets];
      return true;
  }
  return false;
}

}  // namespace ibpulse::exporters::snmp::mib
