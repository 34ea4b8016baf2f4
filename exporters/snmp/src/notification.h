#pragma once
// The varbinds of the notification an alert event becomes: IBPULSE-MIB's
// ibpulseThresholdCrossed / ibpulseThresholdCleared / ibpulseRateLimited, IF-MIB's linkDown /
// linkUp, each after sysUpTime.0 and snmpTrapOID.0 (RFC 3416 section 4.2.6). Private to the SNMP
// exporter.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "ibpulse/exporters/alerts/event.h"
#include "ibpulse/exporters/snmp/mib_view.h"

namespace ibpulse::exporters::snmp::detail {

// sysUpTime.0, snmpTrapOID.0, then the notification's objects in its OBJECTS order.
// `uptime_ticks`: sysUpTime in hundredths of a second.
std::vector<VarBind> notification_varbinds(const alerts::AlertEvent& event, uint64_t uptime_ticks);

// IbpulseThousandths: 12.5 -> 12500, rounded; never negative, saturating.
uint64_t thousandths(double value);

}  // namespace ibpulse::exporters::snmp::detail
