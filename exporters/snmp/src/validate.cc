// The agent's options checked before net-snmp sees them: net-snmp would log a parse error and
// run on without the user or community, which an operator would find out only from a refused
// request.
#include <algorithm>
#include <array>
#include <cctype>

#include "access_config.h"
#include "ibpulse/exporters/snmp/agent.h"
#include "transport.h"

namespace ibpulse::exporters::snmp {
namespace {

constexpr std::array<std::string_view, 6> kAuthProtocols = {"MD5",     "SHA",     "SHA-224",
                                                            "SHA-256", "SHA-384", "SHA-512"};
constexpr std::array<std::string_view, 2> kPrivProtocols = {"AES", "DES"};

bool plain_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

template <size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

// Config-line safe and long enough (RFC 3414: at least 8 characters).
bool good_password(std::string_view s) {
  return s.size() >= 8 && s.find_first_of("\"\n\r") == std::string_view::npos;
}

Status validate_user(const SnmpUser& u) {
  if (!plain_word(u.name) || u.name.size() > 32)
    return Err("SNMPv3 user '{}': a name is 1-32 letters, digits, '-', '_' or '.'", u.name);
  if (!one_of(kAuthProtocols, u.auth_protocol))
    return Err(
        "SNMPv3 user '{}': auth protocol '{}' is not one of MD5, SHA, SHA-224, SHA-256, "
        "SHA-384, SHA-512",
        u.name, u.auth_protocol);
  if (!one_of(kPrivProtocols, u.priv_protocol))
    return Err("SNMPv3 user '{}': privacy protocol '{}' is not AES or DES", u.name,
               u.priv_protocol);
  if (!good_password(u.auth_password))
    return Err("SNMPv3 user '{}': the auth password needs 8 or more characters and no quotes",
               u.name);
  if (!u.priv_password.empty() && !good_password(u.priv_password))
    return Err("SNMPv3 user '{}': the privacy password needs 8 or more characters and no quotes",
               u.name);
  return Ok{};
}

bool same_user(const SnmpUser& a, const SnmpUser& b) {
  return a.name == b.name && a.auth_protocol == b.auth_protocol &&
         a.auth_password == b.auth_password && a.priv_protocol == b.priv_protocol &&
         a.priv_password == b.priv_password;
}

}  // namespace

Status validate(const TrapSink& sink) {
  if (auto t = detail::parse_transport(sink.address, detail::TransportUse::kSink, "trap sink");
      !t) {
    return Error{t.error()};
  }
  if (sink.timeout.count() <= 0 || sink.timeout > std::chrono::minutes(1))
    return Err("trap sink {}: timeout must be from 1ms to 1m", sink.address);
  if (sink.retries > 20) return Err("trap sink {}: retries must be 0 to 20", sink.address);
  if (sink.kind == TrapSink::Kind::kV2cTrap) {
    const std::string& c = sink.community;
    if (c.empty() || c.size() > 64 || c.find_first_of("\n\r") != std::string::npos)
      return Err("trap sink {}: the community must be 1-64 characters", sink.address);
    return Ok{};
  }
  if (sink.user.name.empty())
    return Err("trap sink {}: SNMPv3 sinks need a 'user' (authPriv)", sink.address);
  if (Status s = validate_user(sink.user); !s.ok())
    return Err("trap sink {}: {}", sink.address, s.error());
  return Ok{};
}

Status validate(const AgentOptions& options) {
  for (const std::string& c : options.communities) {
    // '@' separates a community from a context (COMMUNITY@CONTEXT).
    if (c.empty() || c.size() > 64 || c.find_first_of(" \t\"@\n\r") != std::string::npos) {
      return Err("SNMP community '{}': 1-64 characters without spaces, quotes or '@'", c);
    }
  }
  for (const std::string& source : options.sources) {
    if (!detail::valid_source(source))
      return Err("SNMP source '{}': want 'default' or an IPv4 or IPv6 address[/prefix]", source);
  }
  for (const SnmpUser& user : options.users) {
    if (Status s = validate_user(user); !s.ok()) return s;
  }
  for (const TrapSink& sink : options.trap_sinks) {
    if (Status s = validate(sink); !s.ok()) return s;
    // A v3 trap's user is keyed by the agent's own engineID, like the agent's users: one name,
    // one set of keys.
    if (sink.kind != TrapSink::Kind::kV3Trap) continue;
    for (const SnmpUser& user : options.users) {
      if (user.name == sink.user.name && !same_user(user, sink.user)) {
        return Err(
            "trap sink {}: v3-trap user '{}' is also an SNMPv3 user of the agent with other "
            "settings: use another name, or the same protocols and passwords",
            sink.address, user.name);
      }
    }
    for (const TrapSink& other : options.trap_sinks) {
      if (&other == &sink || other.kind != TrapSink::Kind::kV3Trap) continue;
      if (other.user.name == sink.user.name && !same_user(other.user, sink.user)) {
        return Err(
            "trap sinks {} and {}: v3-trap user '{}' with two different settings (both are "
            "keyed by the agent's engineID): use another name, or the same protocols and "
            "passwords",
            sink.address, other.address, sink.user.name);
      }
    }
  }
  if (!options.agentx.empty()) {
    if (options.agentx_context.empty() || options.agentx_context.size() > 32 ||
        options.agentx_context.starts_with("0x")) {
      return Err("AgentX context '{}': 1-32 characters, not a node's 0x... context",
                 options.agentx_context);
    }
    return Ok{};  // the master's communities and users apply
  }
  if (options.state_dir.empty() && !options.users.empty())
    return Err("SNMPv3 users need a state directory (engineID, engine boots, keys)");
  const bool v3_traps =
      std::any_of(options.trap_sinks.begin(), options.trap_sinks.end(),
                  [](const TrapSink& s) { return s.kind == TrapSink::Kind::kV3Trap; });
  if (options.state_dir.empty() && v3_traps) {
    return Err(
        "v3-trap sinks need a state directory: their receivers know the user by the agent's "
        "engineID, which must not change at every start");
  }
  return Ok{};
}

}  // namespace ibpulse::exporters::snmp
