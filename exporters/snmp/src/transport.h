#pragma once
// SNMP addresses as operators write them, and as net-snmp takes them. Accepted:
//   HOST:PORT                 IPv4 address or host name (the form ibpulse always took)
//   [IPV6]:PORT               an IPv6 address (udp6)
//   udp:HOST:PORT  tcp:HOST:PORT  udp6:[IPV6]:PORT  tcp6:[IPV6]:PORT   net-snmp's own syntax
//   unix:/PATH                AgentX only
// The port may be left out where a default exists (a trap sink's 162, AgentX's 705). An IPv6
// address needs its brackets when a port follows. Anything else is refused with this list.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string>
#include <string_view>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::snmp::detail {

struct Transport {
  enum class Domain { kUdp, kUdp6, kTcp, kTcp6, kUnix };
  Domain domain = Domain::kUdp;
  std::string host;  // without brackets; empty for unix
  uint16_t port = 0;
  std::string path;  // unix

  bool ipv6() const { return domain == Domain::kUdp6 || domain == Domain::kTcp6; }
  bool stream() const { return domain == Domain::kTcp || domain == Domain::kTcp6; }
  // "[::]:P", "udp6:[::]:P", "tcp6:[::]:P": every address, IPv6 and IPv4 (listen_sessions.h).
  bool dual_stack() const { return ipv6() && host == "::"; }
  // For net-snmp: "udp:127.0.0.1:161", "udp6:[::1]:161", "tcp:host:705", "unix:/path".
  std::string spec() const;
};

enum class TransportUse {
  kListen,  // the agent's own address: an IP address, not a name; port 0 picks a free one
  kSink,    // where notifications go: a name is resolved by net-snmp; port defaults to 162
  kAgentX,  // the master agent: unix or tcp; port defaults to 705
};

// `what` names the setting in errors ("SNMP listen address", "trap sink").
Result<Transport> parse_transport(std::string_view text, TransportUse use, std::string_view what);

}  // namespace ibpulse::exporters::snmp::detail
