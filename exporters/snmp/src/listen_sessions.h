#pragma once
// The master agent's listening sockets. net-snmp opens each address given to it as one agent
// session; its udp6 and tcp6 sockets are IPV6_V6ONLY, so "[::]:161" alone would never answer an
// IPv4 manager, where an operator reads "[::]" (as for /metrics) as every address. A listen
// address on "::" therefore gets a second session on 0.0.0.0 at the same port, and every
// session gets the fast path (fast_path.h).
//
// Thread safety: the agent thread only, like all of net-snmp.

#include <string>
#include <vector>

#include "ibpulse/base/result.h"
#include "net_snmp.h"
#include "transport.h"

namespace ibpulse::exporters::snmp::detail {

// Why a socket of `t`'s kind cannot be bound (net-snmp only says "Error opening specified
// endpoint"): binds one to find out.
std::string bind_failure(const Transport& t);

// Opens the master agent on `listen` (init_master_agent(): its session is net-snmp's
// main_session) and, when `listen` is dual-stack, the IPv4 twin on the port the first got.
// Returns every listening session, main_session first.
Result<std::vector<netsnmp_session*>> open_listen_sessions(const Transport& listen,
                                                           const std::string& as_written);

// The port the main session listens on (port 0 asks for a free one), 0 if unknown.
uint16_t main_session_port();

}  // namespace ibpulse::exporters::snmp::detail
