// Column values of IBPULSE-MIB's ibpulseLinkHealthTable (AUGMENTS ifEntry): the health the
// alert loop judged from the newest snapshot, for each port interface and its link.
#include <cmath>

#include "mib_objects.h"

namespace ibpulse::exporters::snmp::mib {
namespace {

// IbpulseBitErrorRatio: units of 1e-18, so 1e-12 reads 1000000; none for an unknown ratio.
bool ber_value(float ber, VarBind& out) {
  if (!std::isfinite(ber) || ber < 0) return false;
  constexpr double kUnitsPerBer = 1e18;
  const double units = std::round(static_cast<double>(ber) * kUnitsPerBer);
  out.type = VarType::kCounter64;
  out.number = units >= kUnitsPerBer ? static_cast<uint64_t>(kUnitsPerBer)  // a ratio is <= 1
                                     : static_cast<uint64_t>(units);
  return true;
}

// IbpulseHealthState: ok(1), degraded(2), failing(3).
uint64_t state_value(alerts::HealthState state) {
  return static_cast<uint64_t>(state) + 1;
}

std::string reason_list(uint16_t reasons) {
  std::string text;
  for (size_t bit = 0; bit < alerts::kHealthReasonCount; ++bit) {
    if ((reasons >> bit & 1) == 0) continue;
    if (!text.empty()) text += ',';
    text += alerts::health_reason_name(bit);
  }
  return text;
}

}  // namespace

bool link_health_value(const Reader& r, size_t row_number, uint32_t column, VarBind& out) {
  const alerts::HealthSnapshot* health = r.view.health();
  if (health == nullptr) return false;
  const collector::PortKey key = r.view.snapshot().ports[r.context.rows[row_number].port].key;
  const alerts::PortHealth* port = health->find_port(key);
  if (port == nullptr) return false;  // not judged yet
  const alerts::LinkHealth* link = health->find_link(key);
  const uint16_t link_reasons = link ? link->reasons : port->reasons;
  out.type = VarType::kInteger;
  switch (column) {
    case 1:  // ibpulseLinkHealthPortState
      out.number = state_value(port->state);
      return true;
    case 2:  // ibpulseLinkHealthState
      out.number = state_value(link ? link->state : port->state);
      return true;
    case 3:  // ibpulseLinkHealthReasons
      out.type = VarType::kOctetString;
      out.text = reason_list(link_reasons);
      return true;
    case 4:
      return ber_value(port->symbol_ber, out);
    case 5:
      return ber_value(port->effective_ber, out);
    case 6:
      return ber_value(port->raw_ber, out);
    case 7:  // ibpulseLinkHealthFlaps
      out.type = VarType::kGauge32;
      out.number = port->link_flaps;
      return true;
    case 8:  // ibpulseLinkHealthPeerNodeGuid
    case 9: {
      const collector::Port* tp = r.context.rows[row_number].link;
      if (tp == nullptr || !tp->remote) return false;
      if (column == 9) {
        out.type = VarType::kGauge32;  // IbPort is Unsigned32: on the wire the same as Gauge32
        out.number = tp->remote->port;
        return true;
      }
      out.type = VarType::kOctetString;
      out.text = collector::guid_string(tp->remote->node_guid);
      return true;
    }
  }
  return false;
}

}  // namespace ibpulse::exporters::snmp::mib
