#pragma once
// The SNMP agent's configuration keys (snmp.*), declared beside the options they fill;
// base/config_keys.h says how a program reads them.
//
// Thread safety: pure functions.

#include "ibpulse/base/config_keys.h"
#include "ibpulse/exporters/snmp/endpoint.h"

namespace ibpulse::exporters::snmp {

// One SNMPv3 user from a map: name, auth-protocol, auth-password, priv-protocol, priv-password.
Result<SnmpUser> parse_snmp_user(const ConfigNode& node);

// snmp.listen, community, sources, users, node-contexts, agentx, agentx-context, trap-sink,
// trap-community, trap-sinks, link-up-down-traps, notification-queue, sys-name, sys-contact,
// sys-location.
config::Keys<EndpointOptions> snmp_keys();

}  // namespace ibpulse::exporters::snmp
