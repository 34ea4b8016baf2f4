// Trap sinks from the configuration: one map per sink (a YAML list item, or a flag's `{...}`),
// checked here so that a mistake is reported at start with what to write.
#include "ibpulse/exporters/snmp/trap_sink.h"

#include <algorithm>
#include <array>

#include "ibpulse/base/duration.h"
#include "ibpulse/base/number.h"

namespace ibpulse::exporters::snmp {
namespace {

constexpr std::array<std::string_view, 10> kKeys = {
    "address",       "type",          "community",     "user",    "auth-protocol",
    "auth-password", "priv-protocol", "priv-password", "timeout", "retries"};

// The daemon's durations ("500ms", "1s", "2m"; ibpulse/base/duration.h), with what to write.
Result<std::chrono::milliseconds> parse_timeout(std::string_view text) {
  auto d = parse_duration(std::string(text));
  if (!d) return Err("trap sink: timeout '{}': want a duration like 1s or 500ms", text);
  return *d;
}

}  // namespace

std::string_view to_string(TrapSink::Kind kind) {
  switch (kind) {
    case TrapSink::Kind::kV2cTrap:
      return "v2c-trap";
    case TrapSink::Kind::kV3Trap:
      return "v3-trap";
    case TrapSink::Kind::kV3Inform:
      return "v3-inform";
  }
  return "unknown";
}

Result<TrapSink> parse_trap_sink(const ConfigNode& node) {
  if (!node.is_map()) return Err("trap sink: want a map of address, type, community, user, ...");
  TrapSink sink;
  bool v3_keys = false;
  bool community_key = false;
  for (const auto& [key, value] : node.fields()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      return Err(
          "trap sink: unknown key '{}' (address, type, community, user, auth-protocol, "
          "auth-password, priv-protocol, priv-password, timeout, retries)",
          key);
    }
    if (!value.is_scalar()) return Err("trap sink: '{}' must be a string", key);
    if (key == "retries") {
      auto n = parse_unsigned(value.text(), 0, 20);
      if (!n) return Err("trap sink: retries must be a whole number from 0 to 20");
      sink.retries = static_cast<unsigned>(*n);
      continue;
    }
    const std::string& text = value.text();
    if (key == "address") {
      sink.address = text;
    } else if (key == "type") {
      if (text == "v2c-trap") {
        sink.kind = TrapSink::Kind::kV2cTrap;
      } else if (text == "v3-trap") {
        sink.kind = TrapSink::Kind::kV3Trap;
      } else if (text == "v3-inform") {
        sink.kind = TrapSink::Kind::kV3Inform;
      } else {
        return Err("trap sink: type '{}' is not v2c-trap, v3-trap or v3-inform", text);
      }
    } else if (key == "community") {
      sink.community = text;
      community_key = true;
    } else if (key == "timeout") {
      Result<std::chrono::milliseconds> d = parse_timeout(text);
      if (!d.ok()) return Error{d.error()};
      sink.timeout = *d;
    } else {
      v3_keys = true;
      if (key == "user") sink.user.name = text;
      if (key == "auth-protocol") sink.user.auth_protocol = text;
      if (key == "auth-password") sink.user.auth_password = text;
      if (key == "priv-protocol") sink.user.priv_protocol = text;
      if (key == "priv-password") sink.user.priv_password = text;
    }
  }
  if (sink.address.empty()) return Err("trap sink: 'address' (host:port) is missing");
  const bool v3 = sink.kind != TrapSink::Kind::kV2cTrap;
  if (v3 && community_key)
    return Err("trap sink {}: 'community' is for v2c-trap; SNMPv3 sinks take a user", sink.address);
  if (!v3 && v3_keys) {
    return Err(
        "trap sink {}: user and passwords are for type v3-trap or v3-inform; a v2c-trap takes a "
        "community",
        sink.address);
  }
  if (Status s = validate(sink); !s.ok()) return Error{s.error()};
  return sink;
}

}  // namespace ibpulse::exporters::snmp
