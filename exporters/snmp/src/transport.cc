#include "transport.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace ibpulse::exporters::snmp::detail {
namespace {

using Domain = Transport::Domain;

struct Prefix {
  std::string_view name;
  Domain domain;
};
constexpr std::array<Prefix, 5> kPrefixes = {{{"udp6:", Domain::kUdp6},
                                              {"tcp6:", Domain::kTcp6},
                                              {"udp:", Domain::kUdp},
                                              {"tcp:", Domain::kTcp},
                                              {"unix:", Domain::kUnix}}};

bool is_ipv4(const std::string& host) {
  in_addr ignored{};
  return inet_pton(AF_INET, host.c_str(), &ignored) == 1;
}

bool is_ipv6(const std::string& host) {
  in6_addr ignored{};
  return inet_pton(AF_INET6, host.c_str(), &ignored) == 1;
}

bool host_name(const std::string& host) {
  return !host.empty() && host.size() <= 253 && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

uint16_t default_port(TransportUse use) {
  switch (use) {
    case TransportUse::kSink:
      return 162;
    case TransportUse::kAgentX:
      return 705;
    case TransportUse::kListen:
      break;
  }
  return 0;
}

std::string forms(TransportUse use) {
  switch (use) {
    case TransportUse::kListen:
      return "HOST:PORT, [IPV6]:PORT, or udp:, udp6:, tcp:, tcp6: before either "
             "(udp6:[::1]:161)";
    case TransportUse::kSink:
      return "HOST[:PORT], [IPV6][:PORT], or udp:, udp6:, tcp:, tcp6: before either "
             "(udp6:[::1]:162)";
    case TransportUse::kAgentX:
      break;
  }
  return "HOST:PORT, [IPV6]:PORT, tcp: or tcp6: before either, or unix:/PATH "
         "(unix:/var/agentx/master)";
}

// "[v6]:port", "[v6]", "host:port", "host": host and port text (empty when left out).
Result<std::pair<std::string, std::string>> split_host_port(std::string_view rest) {
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return Err("a '[' without its ']'");
    const std::string host(rest.substr(1, close - 1));
    std::string_view after = rest.substr(close + 1);
    if (after.empty()) return std::pair{host, std::string()};
    if (!after.starts_with(':')) return Err("'{}' after the address", after);
    return std::pair{host, std::string(after.substr(1))};
  }
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return std::pair{std::string(rest), std::string()};
  if (rest.find(':') != colon) return Err("an IPv6 address needs brackets: [ADDRESS]:PORT");
  return std::pair{std::string(rest.substr(0, colon)), std::string(rest.substr(colon + 1))};
}

Result<uint16_t> parse_port(const std::string& text, TransportUse use) {
  if (text.empty()) {
    if (use == TransportUse::kListen) return Err("the port is missing");
    return default_port(use);
  }
  if (text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(text) > 65535) {
    return Err("port '{}' is not a number from 0 to 65535", text);
  }
  const auto port = static_cast<uint16_t>(std::stoul(text));
  if (port == 0 && use != TransportUse::kListen) return Err("port 0 is only for listening");
  return port;
}

Status check_host(const Transport& t, TransportUse use) {
  if (t.host.empty()) return Err("the address is missing");
  if (t.ipv6()) {
    if (!is_ipv6(t.host)) return Err("'{}' is not an IPv6 address", t.host);
    return Ok{};
  }
  if (is_ipv6(t.host)) return Err("'{}' is an IPv6 address: write udp6:[{}]:PORT", t.host, t.host);
  if (use == TransportUse::kListen && !is_ipv4(t.host))
    return Err("'{}' is not an IPv4 address (listen on an address, e.g. 0.0.0.0)", t.host);
  if (!is_ipv4(t.host) && !host_name(t.host)) return Err("'{}' is not an address or name", t.host);
  return Ok{};
}

Result<Transport> parse(std::string_view text, TransportUse use) {
  Transport t;
  std::string_view rest = text;
  bool prefixed = false;
  for (const Prefix& p : kPrefixes) {
    if (!rest.starts_with(p.name)) continue;
    t.domain = p.domain;
    rest.remove_prefix(p.name.size());
    prefixed = true;
    break;
  }
  // A bare absolute path is a unix socket to AgentX, as net-snmp reads it.
  if (!prefixed && use == TransportUse::kAgentX && rest.starts_with('/')) t.domain = Domain::kUnix;
  if (t.domain == Domain::kUnix) {
    if (use != TransportUse::kAgentX) return Err("unix: is for AgentX only");
    if (!rest.starts_with('/')) return Err("unix: needs an absolute path");
    t.path = std::string(rest);
    return t;
  }
  if (!prefixed) {
    // "sctp:host:port", "dtls:...": a transport named but not one of ours.
    const size_t colon = rest.find(':');
    const std::string_view word = rest.substr(0, colon);
    const bool named = colon != std::string_view::npos && !word.empty() &&
                       rest.find(':', colon + 1) != std::string_view::npos &&
                       std::all_of(word.begin(), word.end(), [](char c) {
                         return std::isalpha(static_cast<unsigned char>(c));
                       });
    if (named) return Err("unknown transport '{}:'", word);
  }
  if (use == TransportUse::kAgentX && (t.domain == Domain::kUdp || t.domain == Domain::kUdp6)) {
    if (prefixed) return Err("AgentX runs over tcp: or unix:");
    t.domain = Domain::kTcp;  // a bare HOST:PORT means AgentX's TCP port
  }
  auto parts = split_host_port(rest);
  if (!parts) return Error{parts.error()};
  t.host = parts->first;
  // A bracketed address without a prefix is IPv6 in the bare form's domain.
  if (!prefixed && rest.starts_with('[')) t.domain = t.stream() ? Domain::kTcp6 : Domain::kUdp6;
  auto port = parse_port(parts->second, use);
  if (!port) return Error{port.error()};
  t.port = *port;
  if (Status s = check_host(t, use); !s.ok()) return Error{s.error()};
  return t;
}

}  // namespace

std::string Transport::spec() const {
  switch (domain) {
    case Domain::kUnix:
      return "unix:" + path;
    case Domain::kUdp6:
      return fmt::format("udp6:[{}]:{}", host, port);
    case Domain::kTcp6:
      return fmt::format("tcp6:[{}]:{}", host, port);
    case Domain::kTcp:
      return fmt::format("tcp:{}:{}", host, port);
    case Domain::kUdp:
      break;
  }
  return fmt::format("udp:{}:{}", host, port);
}

Result<Transport> parse_transport(std::string_view text, TransportUse use, std::string_view what) {
  auto t = parse(text, use);
  if (!t) return Err("{} '{}': {}; write {}", what, text, t.error(), forms(use));
  return t;
}

}  // namespace ibpulse::exporters::snmp::detail
