#pragma once
// The listening socket of the metrics server, from an operator's listen address:
//   ":9731"          every address: IPv6 and IPv4 (dual-stack), IPv4 alone on a host
//                    without IPv6
//   "0.0.0.0:9731"   every IPv4 address;  "127.0.0.1:9731", "host.example:9731": that address
//   "[::1]:9731"     that IPv6 address;   "[::]:9731": every address, dual-stack
// Port 0 picks a free port. Private to the exporter.
//
// Thread safety: pure functions (and the sockets they open).

#include <cstdint>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse::exporters::prometheus::detail {

struct ListenAddress {
  std::string host;  // without brackets; empty: every address
  uint16_t port = 0;
  bool ipv6_literal = false;  // given in brackets
};

// Errors name the address and say what form is wanted.
Result<ListenAddress> parse_listen_address(const std::string& address);

struct Listener {
  int fd = -1;
  uint16_t port = 0;  // the bound port
};

// A bound, listening, close-on-exec TCP socket. Errors: "cannot listen on ADDRESS: why".
Result<Listener> open_listener(const std::string& address);

}  // namespace ibpulse::exporters::prometheus::detail
