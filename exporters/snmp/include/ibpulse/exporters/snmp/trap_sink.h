#pragma once
// Where the agent sends its notifications (IBPULSE-MIB's threshold notifications, IF-MIB's
// linkDown/linkUp): one receiver each, as an SNMPv2c trap, an SNMPv3 trap (authPriv, the agent's
// own engineID authoritative: the receiver needs `createUser -e <agent engineID> ...`) or an
// SNMPv3 inform (authPriv, the receiver authoritative; retried until acknowledged).
//
// Thread safety: value types and a pure function.

#include <chrono>
#include <string>
#include <string_view>

#include "ibpulse/base/config_node.h"
#include "ibpulse/base/result.h"
#include "ibpulse/exporters/snmp/snmp_user.h"

namespace ibpulse::exporters::snmp {

struct TrapSink {
  enum class Kind { kV2cTrap, kV3Trap, kV3Inform };
  Kind kind = Kind::kV2cTrap;
  std::string address;  // HOST[:PORT], [IPV6][:PORT] or udp:/udp6:/tcp:/tcp6: forms; port 162
  std::string community = "public";  // v2c
  SnmpUser user;                     // v3: authPriv
  // How long to wait for an inform's acknowledgement, and how often net-snmp sends it again
  // before the round counts as failed (the inform then waits its turn to be sent again).
  std::chrono::milliseconds timeout{1000};
  unsigned retries = 3;
};

std::string_view to_string(TrapSink::Kind kind);  // "v2c-trap", "v3-trap", "v3-inform"

// One sink from a map (a config list item): keys address, type ("v2c-trap", "v3-trap",
// "v3-inform"; default v2c-trap), community, user, auth-protocol, auth-password, priv-protocol,
// priv-password, timeout ("1s", "500ms"), retries. An unknown key or bad value is an error that
// says what to write.
Result<TrapSink> parse_trap_sink(const ConfigNode& node);

// The checks parse_trap_sink() and the agent make: the address, the community, the v3 user.
Status validate(const TrapSink& sink);

}  // namespace ibpulse::exporters::snmp
